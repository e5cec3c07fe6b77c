// A heightfield's numbers wherever they live (a Heightfield's vectors, a snapshot's memory):
// what check_heightfield and the snapshot loader both check. Internal.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <capsweep/values.h>

namespace capsweep {

struct HeightGrid {
  std::uint32_t columns = 0, rows = 0;
  float cell_x = 1.f, cell_z = 1.f;
  Vec3 origin;
  float height_scale = 1.f;
  std::span<const float> heights;
  std::span<const std::uint16_t> samples;
  std::uint32_t layers = kDefaultLayers;
};

// Why the grid cannot be built into a world ("" when it can), with the words of
// check_heightfield (<capsweep/values.h>), holes aside.
std::string check_height_grid(const HeightGrid& grid);

}  // namespace capsweep
