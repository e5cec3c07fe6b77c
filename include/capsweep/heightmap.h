// Heightfields from image and raw files (capsweep::io): a grayscale PNG (16-bit, or 8-bit) or a
// raw little-endian float32 grid, with the cell size, height scale and origin the file does not
// carry, and optionally a PNG marking the holes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include <capsweep/heightfield.h>

namespace capsweep {

struct HeightmapOptions {
  float cell_x = 1.f;        // metres between samples along x (image columns), > 0
  float cell_z = 1.f;        // and along z (image rows, top to bottom)
  float height_scale = 1.f;  // metres per sample step of a PNG; multiplies a raw file's floats
  Vec3 origin;               // where the top-left sample stands at height 0
  // A raw float32 file carries no size: give it (a PNG's own must match if given).
  std::uint32_t columns = 0, rows = 0;
  // A grayscale PNG of (columns - 1) x (rows - 1) pixels, one per cell: 0 = ground, anything
  // else = a hole. Empty: no holes.
  std::string holes;
  std::uint32_t layers = kDefaultLayers;  // the terrain's layer mask
};

// A file that cannot be read as a heightmap, or whose numbers check_heightfield refuses: names
// the file and what is wrong ("terrain.png: a heightmap is a grayscale PNG, this one is RGB").
class HeightmapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// PNG files (by their signature) give 16-bit samples (8-bit ones are widened: a sample is the
// pixel value), anything else is read as raw float32. Throws HeightmapError.
Heightfield load_heightmap(const std::string& path, const HeightmapOptions& options = {});

// "PATH (cell X x Z m, height scale S, origin (x, y, z), holes FILE, layers MASK)": how a
// heightfield was made, for snapshots and the service's Info.
std::string describe_heightmap(const std::string& path, const HeightmapOptions& options);

}  // namespace capsweep
