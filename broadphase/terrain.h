// A heightfield as a World holds it: the samples, a bit per hole, and a min/max height pyramid
// the walk prunes with (terrain_walk.h). Its triangles are never stored: each is made from its
// three samples when a walk reaches it, the same floats every time (heightfield_vertex).
// Internal to capsweep.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <capsweep/values.h>

#include "broadphase/adjacency.h"
#include "simd/triangle_block.h"

namespace capsweep {

// The lowest and highest vertex y of a tile's cells (holes left out); min > max: no ground.
struct HeightRange {
  float min, max;
  bool empty() const { return !(min <= max); }
};
static_assert(sizeof(HeightRange) == 8);

// The pyramid's finest tiles are 4 x 4 cells: one more level, computed from the samples during
// the walk, splits a tile into the four blocks of 2 x 2 cells (8 triangles, one TriangleBlock).
// Finer stored levels would cost 4x the memory (a 4097^2 heightfield: 34 MB instead of 11)
// to save reading 9 samples per block.
inline constexpr std::uint32_t kTileCells = 4;
inline constexpr int kMaxTerrainLevels = 32;

// The pyramid's levels: level 0 has tiles of kTileCells^2 cells, each level above halves both
// counts (rounding up) until one tile covers everything.
struct TerrainLevels {
  int count = 0;
  std::array<std::uint32_t, kMaxTerrainLevels> tiles_x{}, tiles_z{};
  std::array<std::uint64_t, kMaxTerrainLevels> offset{};  // of each level's first tile in the pyramid
  std::uint64_t total = 0;
};
TerrainLevels terrain_levels(std::uint32_t cells_x, std::uint32_t cells_z);

// What the world answers from, wherever the arrays live (built, or in a snapshot's memory).
struct TerrainView {
  std::uint32_t columns = 0, rows = 0;  // samples; 0: the world has no terrain
  float cell_x = 1.f, cell_z = 1.f;
  Vec3 origin;
  float height_scale = 1.f;
  std::span<const float> heights;          // one of the two forms, as in Heightfield
  std::span<const std::uint16_t> samples;
  std::span<const std::uint64_t> holes;    // bit per cell, row by row; empty: no holes
  std::span<const HeightRange> pyramid;    // every level, level 0 first
  TerrainLevels levels;
  std::uint32_t layers = kDefaultLayers;
  std::uint32_t first_triangle = 0;        // the world's index of the terrain's triangle 0
  Aabb bounds;                             // of every vertex of a cell that is not a hole

  bool present() const { return columns != 0; }
  std::uint32_t cells_x() const { return columns - 1; }
  std::uint32_t cells_z() const { return rows - 1; }
  std::uint64_t triangle_count() const { return present() ? 2 * std::uint64_t(cells_x()) * cells_z() : 0; }
  bool hole(std::uint32_t cell_row, std::uint32_t cell_column) const {
    if (holes.empty()) return false;
    const std::uint64_t i = std::uint64_t(cell_row) * cells_x() + cell_column;
    return (holes[i >> 6] >> (i & 63)) & 1u;
  }
  double height(std::uint32_t row, std::uint32_t column) const {
    const std::size_t i = std::size_t(row) * columns + column;
    return samples.empty() ? double(heights[i]) : double(height_scale) * double(samples[i]);
  }
  // The same numbers as heightfield_vertex.
  float x_at(std::uint32_t column) const { return float(double(origin.x) + double(cell_x) * double(column)); }
  float z_at(std::uint32_t row) const { return float(double(origin.z) + double(cell_z) * double(row)); }
  float y_at(std::uint32_t row, std::uint32_t column) const { return float(double(origin.y) + height(row, column)); }
  Vec3 vertex(std::uint32_t row, std::uint32_t column) const { return {x_at(column), y_at(row, column), z_at(row)}; }
  const HeightRange& range(int level, std::uint32_t tile_x, std::uint32_t tile_z) const {
    return pyramid[levels.offset[level] + std::uint64_t(tile_z) * levels.tiles_x[level] + tile_x];
  }
};

// What a world built in memory keeps of a heightfield.
struct TerrainArrays {
  std::vector<float> heights;
  std::vector<std::uint16_t> samples;
  std::vector<std::uint64_t> holes;
  std::vector<HeightRange> pyramid;
};

// Packs a heightfield that check_heightfield accepted and whose triangles, after the mesh's
// first_triangle, number fewer than kNoTriangle; `view` then points into `arrays`.
void build_terrain(Heightfield terrain, std::uint32_t first_triangle, TerrainArrays& arrays, TerrainView& view);

// The pyramid of a view's samples and holes (the view's own is not read): what build_terrain
// stores and what a snapshot loader recomputes. In parallel.
std::vector<HeightRange> terrain_pyramid(const TerrainView& view);
// The bounds of every vertex of a cell that is not a hole (empty when every cell is a hole).
Aabb terrain_bounds(const TerrainView& view);

// Triangle i of the terrain (0 <= i < triangle_count(): cell i / 2, half i % 2).
Triangle terrain_triangle(const TerrainView& view, std::uint64_t i);
bool terrain_triangle_is_hole(const TerrainView& view, std::uint64_t i);

// Its adjacency, as link_triangles would find it in the terrain's own mesh: neighbours across
// edges (kNoTriangle at a border or a hole), seams between coplanar neighbours, flat vertices.
// World indices (first_triangle added).
TriangleLinks terrain_links(const TerrainView& view, std::uint64_t i);

// The triangles of the 2 x 2 cells whose first cell is (2 block_z, 2 block_x), as make_block
// would pack them: world indices, holes and cells past the grid left out, used lanes first.
// Returns the lanes used (0: nothing there).
// `cells`: which of the four cells to take (bit j * 2 + i: cell row r0 + j, column c0 + i).
int terrain_block(const TerrainView& view, std::uint32_t block_x, std::uint32_t block_z, TriangleBlock& out,
                  unsigned cells = 0xF);

// The boxes of a block's four cells (SoA, as SweptBoxTest reads them: min x, y, z, max x, y, z),
// and which of them hold ground (not a hole, inside the grid).
unsigned terrain_cell_boxes(const TerrainView& view, std::uint32_t block_x, std::uint32_t block_z, float (&box)[6][4]);

// The box of a block's vertices (its cells that are not holes): the walk's last level.
HeightRange terrain_block_range(const TerrainView& view, std::uint32_t block_x, std::uint32_t block_z);

// Calls f(world index, triangle) for both triangles of every cell that is not a hole and
// whose x-z extent may meet `box` (a cell more each way: the brute-force paths' candidates;
// they still test each triangle's own box).
template <class F>
void for_each_terrain_triangle_near(const TerrainView& v, const Aabb& box, F&& f) {
  if (!v.present() || box.empty()) return;
  auto range = [](double lo, double hi, double origin, double cell, std::uint32_t cells, std::uint32_t& first,
                  std::uint32_t& last) {
    const double a = (lo - origin) / cell, b = (hi - origin) / cell;
    if (!(b >= -1.0) || !(a <= double(cells) + 1.0)) return false;
    first = std::uint32_t(std::clamp(std::floor(a) - 1.0, 0.0, double(cells - 1)));
    last = std::uint32_t(std::clamp(std::floor(b) + 1.0, 0.0, double(cells - 1)));
    return true;
  };
  std::uint32_t c0, c1, r0, r1;
  if (!range(box.min.x, box.max.x, v.origin.x, v.cell_x, v.cells_x(), c0, c1) ||
      !range(box.min.z, box.max.z, v.origin.z, v.cell_z, v.cells_z(), r0, r1)) {
    return;
  }
  for (std::uint32_t r = r0; r <= r1; ++r) {
    for (std::uint32_t c = c0; c <= c1; ++c) {
      if (v.hole(r, c)) continue;
      const std::uint64_t i = 2 * (std::uint64_t(r) * v.cells_x() + c);
      for (int half = 0; half < 2; ++half) {
        f(std::uint32_t(v.first_triangle + i + std::uint64_t(half)), terrain_triangle(v, i + std::uint64_t(half)));
      }
    }
  }
}

}  // namespace capsweep
