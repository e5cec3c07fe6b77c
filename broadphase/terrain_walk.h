// Walking a heightfield for one swept box: its min/max height pyramid read as an implicit
// 4-wide tree (each tile's children are its 2 x 2 quarters), children nearest first, pruned by
// the best time found, exactly like the BVH walk. Below the pyramid's finest tiles (4 x 4
// cells) the walk tests blocks of 2 x 2 cells, whose boxes come from their 9 samples, and
// hands each block entered to the leaf function as the TriangleBlock of its 8 triangles, so
// every kernel and every query kind runs on terrain unchanged.
//
// The walk does not start at the root: it starts at the level whose tiles are at least as wide
// as the swept box's footprint, so that at most 2 x 2 tiles there hold everything it may touch
// (a walking step starts 2 levels above the blocks instead of 12 on a 4097^2 heightfield).
// Internal to broadphase/.
#pragma once

#include <algorithm>
#include <bit>
#include <iterator>
#include <cmath>
#include <cstdint>

#include "broadphase/terrain.h"
#include "broadphase/traverse.h"
#include "core/assert.h"

namespace capsweep {

// A pyramid tile (level >= 0) or a block of 2 x 2 cells (level -1), waiting on the stack.
struct TerrainItem {
  std::uint32_t x, z;
  int level;
  float t;
};

namespace detail {

// The cells [first, last] along one axis that the swept box's footprint may reach while it
// moves by limit * d (one cell more each way: the division below rounds).
inline bool footprint(double c, double h, double d, float limit, double origin, double cell, std::uint32_t cells,
                      std::uint32_t& first, std::uint32_t& last) {
  const double end = c + d * double(limit);
  const double lo = (std::min(c, end) - h - origin) / cell, hi = (std::max(c, end) + h - origin) / cell;
  if (!(hi >= -1.0) || !(lo <= double(cells) + 1.0)) return false;
  first = std::uint32_t(std::clamp(std::floor(lo) - 1.0, 0.0, double(cells - 1)));
  last = std::uint32_t(std::clamp(std::floor(hi) + 1.0, 0.0, double(cells - 1)));
  return true;
}

// Tests up to four candidates (boxes in SoA, `used` bits) and pushes those entered, nearest
// on top.
inline void push_entered(const SweptBoxTest& test, TerrainItem* stack, int& top, const TerrainItem* candidate,
                         unsigned used, const float (&box)[6][4], float limit) {
  alignas(16) float near[4];
  unsigned bits = test.enter(box[0], box[1], box[2], box[3], box[4], box[5], limit, near) & used;
  TerrainItem hits[4];
  int count = 0;
  for (; bits != 0; bits &= bits - 1) {
    const int k = std::countr_zero(bits);
    int at = count++;
    while (at > 0 && hits[at - 1].t > near[k]) {  // insertion by entry time, stable
      hits[at] = hits[at - 1];
      --at;
    }
    hits[at] = candidate[k];
    hits[at].t = near[k];
  }
  for (int k = count - 1; k >= 0; --k) stack[top++] = hits[k];
}

}  // namespace detail

// Visits the blocks of the terrain whose box the swept box enters at a time <= limit, nearest
// first, as traverse() visits the BVH's: leaf(block) may lower `limit` and returns true to stop
// the walk (walk_terrain then returns true).
template <class Leaf>
bool walk_terrain(const TerrainView& v, const SweptBox& s, float& limit, TraversalStats& stats, Leaf&& leaf) {
  if (!v.present() || v.pyramid.empty() || v.range(v.levels.count - 1, 0, 0).empty()) return false;
  std::uint32_t c0, c1, r0, r1;
  if (!detail::footprint(s.c[0], s.h[0], s.d[0], limit, v.origin.x, v.cell_x, v.cells_x(), c0, c1) ||
      !detail::footprint(s.c[2], s.h[2], s.d[2], limit, v.origin.z, v.cell_z, v.cells_z(), r0, r1)) {
    return false;
  }
  // The finest level whose tiles span the footprint: it meets at most 2 x 2 of them.
  const std::uint32_t wide = std::max(c1 - c0, r1 - r0) + 1;
  int level = 0;
  while (level + 1 < v.levels.count && (std::uint64_t(kTileCells) << level) < wide) ++level;

  const SweptBoxTest test(s);
  TerrainItem stack[3 * (kMaxTerrainLevels + 1) + 4];
  int top = 0;
  TerrainItem candidate[4];
  alignas(16) float box[6][4];  // min x, y, z, max x, y, z of each candidate (aligned: SSE loads)
  unsigned used = 0;
  int count = 0;
  // A tile of `level` (>= 0) as candidate k.
  auto tile = [&](int at, std::uint32_t tx, std::uint32_t tz) {
    if (tx >= v.levels.tiles_x[at] || tz >= v.levels.tiles_z[at]) return;
    const HeightRange& r = v.range(at, tx, tz);
    if (r.empty()) return;
    CAPSWEEP_ASSERT(count < 4, "four candidates at most");
    const std::uint64_t span = std::uint64_t(kTileCells) << at;
    const std::uint32_t x0 = std::uint32_t(tx * span), z0 = std::uint32_t(tz * span);
    const std::uint32_t x1 = std::uint32_t(std::min<std::uint64_t>(tx * span + span, v.cells_x()));
    const std::uint32_t z1 = std::uint32_t(std::min<std::uint64_t>(tz * span + span, v.cells_z()));
    box[0][count] = v.x_at(x0), box[1][count] = r.min, box[2][count] = v.z_at(z0);
    box[3][count] = v.x_at(x1), box[4][count] = r.max, box[5][count] = v.z_at(z1);
    candidate[count] = {tx, tz, at, 0.f};
    used |= 1u << count;
    ++count;
  };
  auto block = [&](std::uint32_t bx, std::uint32_t bz) {
    if (std::uint64_t(bx) * 2 >= v.cells_x() || std::uint64_t(bz) * 2 >= v.cells_z()) return;
    const HeightRange r = terrain_block_range(v, bx, bz);
    if (r.empty()) return;
    CAPSWEEP_ASSERT(count < 4, "four candidates at most");
    box[0][count] = v.x_at(2 * bx), box[1][count] = r.min, box[2][count] = v.z_at(2 * bz);
    box[3][count] = v.x_at(std::min(2 * bx + 2, v.cells_x())), box[4][count] = r.max;
    box[5][count] = v.z_at(std::min(2 * bz + 2, v.cells_z()));
    candidate[count] = {bx, bz, -1, 0.f};
    used |= 1u << count;
    ++count;
  };
  auto flush = [&] {
    for (int k = count; k < 4; ++k) {  // defined values in the unused slots
      for (auto& b : box) b[k] = 0.f;
    }
    detail::push_entered(test, stack, top, candidate, used, box, limit);
    used = 0;
    count = 0;
  };

  const std::uint64_t span = std::uint64_t(kTileCells) << level;
  for (std::uint64_t tz = r0 / span; tz <= r1 / span; ++tz) {
    for (std::uint64_t tx = c0 / span; tx <= c1 / span; ++tx) tile(level, std::uint32_t(tx), std::uint32_t(tz));
  }
  flush();
  TriangleBlock leaf_block;
  while (top > 0) {
    const TerrainItem item = stack[--top];
    if (item.t > limit) continue;
    if (item.level < 0) {
      // Only the block's cells the swept box enters make triangles (a walking step touches one
      // or two of the four): fewer lanes to reject.
      alignas(16) float cell_box[6][4];
      alignas(16) float near[4];
      const unsigned cells = terrain_cell_boxes(v, item.x, item.z, cell_box) &
                             test.enter(cell_box[0], cell_box[1], cell_box[2], cell_box[3], cell_box[4], cell_box[5], limit, near);
      if (cells == 0) continue;
      ++stats.leaves;
      if (terrain_block(v, item.x, item.z, leaf_block, cells) > 0 && leaf(static_cast<const TriangleBlock&>(leaf_block))) {
        return true;
      }
      continue;
    }
    ++stats.nodes;
    for (std::uint32_t j = 0; j < 2; ++j) {
      for (std::uint32_t i = 0; i < 2; ++i) {
        if (item.level > 0) {
          tile(item.level - 1, 2 * item.x + i, 2 * item.z + j);
        } else {
          // A level-0 tile of 4 x 4 cells holds the blocks of 2 x 2 cells below it.
          block(2 * item.x + i, 2 * item.z + j);
        }
      }
    }
    CAPSWEEP_ASSERT(top + 4 <= int(std::size(stack)), "the terrain walk's stack holds 3 entries per level");
    flush();
  }
  return false;
}

}  // namespace capsweep
