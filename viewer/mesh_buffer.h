// The world as the page draws it, in one binary buffer (docs/VIEWER.md, "GET /api/mesh"): the
// triangles as float32 positions with a layer mask each, a heightfield as its grid of heights.
// Binary because a 947k-triangle level is 22 MB this way and would be several times that, and
// slow to parse, as JSON; the page hands the arrays to WebGL as they arrive.
#pragma once

#include <cstdint>
#include <string>

#include <capsweep/world.h>

namespace capsweep::viewer {

inline constexpr std::uint32_t kMeshMagic = 0x4D565743;  // "CWVM"
inline constexpr std::uint32_t kMeshVersion = 2;

// Header (8 u32: magic, version, N, the heightfield's first triangle and its triangle count, its
// columns and rows, V), then the N triangles that are not the heightfield's (in the world's order
// with the terrain's range left out) as V distinct vertices (3 float32 each, the world's own
// floats), 3 N u32 vertex indices and N u32 layer masks; then, with a heightfield, 4 float32 (x
// and z of sample (0, 0), the cell sizes), rows x columns float32 heights (y, absolute, row by
// row) and one byte per cell (non-zero: a hole), padded to 4.
std::string mesh_buffer(const World& world);

}  // namespace capsweep::viewer
