#include "broadphase/terrain.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "parallel/executor.h"


#include "core/assert.h"
#include "simd/block_sweep.h"

namespace capsweep {

TerrainLevels terrain_levels(std::uint32_t cells_x, std::uint32_t cells_z) {
  TerrainLevels l;
  std::uint64_t x = (std::uint64_t(cells_x) + kTileCells - 1) / kTileCells;
  std::uint64_t z = (std::uint64_t(cells_z) + kTileCells - 1) / kTileCells;
  for (;;) {
    CAPSWEEP_ASSERT(l.count < kMaxTerrainLevels, "2^32 cells need fewer than 32 levels");
    l.tiles_x[l.count] = std::uint32_t(x);
    l.tiles_z[l.count] = std::uint32_t(z);
    l.offset[l.count] = l.total;
    l.total += x * z;
    ++l.count;
    if (x == 1 && z == 1) break;
    x = (x + 1) / 2;
    z = (z + 1) / 2;
  }
  return l;
}

namespace {

// The range of the vertices of cells [r0, r1) x [c0, c1) that are not holes, from the samples
// (y is monotonic in the height, so the extremes of the heights give those of y).
HeightRange cells_range(const TerrainView& v, std::uint32_t r0, std::uint32_t r1, std::uint32_t c0, std::uint32_t c1) {
  double lo = INFINITY, hi = -INFINITY;
  auto take = [&](std::uint32_t row, std::uint32_t column) {
    const double h = v.height(row, column);
    lo = std::min(lo, h);
    hi = std::max(hi, h);
  };
  bool any_hole = false;
  if (!v.holes.empty()) {
    for (std::uint32_t r = r0; r < r1 && !any_hole; ++r) {
      for (std::uint32_t c = c0; c < c1 && !any_hole; ++c) any_hole = v.hole(r, c);
    }
  }
  if (!any_hole) {
    for (std::uint32_t r = r0; r <= r1; ++r) {
      for (std::uint32_t c = c0; c <= c1; ++c) take(r, c);
    }
  } else {
    for (std::uint32_t r = r0; r < r1; ++r) {
      for (std::uint32_t c = c0; c < c1; ++c) {
        if (v.hole(r, c)) continue;
        take(r, c), take(r + 1, c), take(r, c + 1), take(r + 1, c + 1);
      }
    }
  }
  if (lo > hi) return {INFINITY, -INFINITY};
  return {float(double(v.origin.y) + lo), float(double(v.origin.y) + hi)};
}

}  // namespace

namespace {

// Level 0 over tiles with no hole, straight from the samples: the extremes down each column of
// a tile row's 5 sample rows (element by element: the loops vectorise, in the samples' own
// type), then across each tile's 5 columns (tiles share their border samples); converted to
// heights once per tile.
template <class S>
void tile_row_ranges(const TerrainView& v, const S* samples, std::uint32_t tz, std::uint32_t tiles_x, HeightRange* out,
                     std::vector<S>& lo, std::vector<S>& hi) {
  const std::uint32_t r0 = tz * kTileCells, r1 = std::min(r0 + kTileCells, v.cells_z());
  const std::size_t n = v.columns;
  lo.assign(samples + std::size_t(r0) * n, samples + std::size_t(r0 + 1) * n);
  hi = lo;
  S* __restrict a = lo.data();
  S* __restrict b = hi.data();
  for (std::uint32_t r = r0 + 1; r <= r1; ++r) {
    const S* __restrict row = samples + std::size_t(r) * n;
    for (std::size_t c = 0; c < n; ++c) {
      a[c] = row[c] < a[c] ? row[c] : a[c];
      b[c] = row[c] > b[c] ? row[c] : b[c];
    }
  }
  const double scale = v.samples.empty() ? 1.0 : double(v.height_scale);
  for (std::uint32_t tx = 0; tx < tiles_x; ++tx) {
    const std::uint32_t c0 = tx * kTileCells, c1 = std::min(c0 + kTileCells, v.cells_x());
    S x = a[c0], y = b[c0];
    for (std::uint32_t c = c0 + 1; c <= c1; ++c) x = std::min(x, a[c]), y = std::max(y, b[c]);
    out[tx] = {float(double(v.origin.y) + scale * double(x)), float(double(v.origin.y) + scale * double(y))};
  }
}

bool tile_has_hole(const TerrainView& v, std::uint32_t tx, std::uint32_t tz) {
  if (v.holes.empty()) return false;
  const std::uint32_t r0 = tz * kTileCells, r1 = std::min(r0 + kTileCells, v.cells_z());
  const std::uint32_t c0 = tx * kTileCells, c1 = std::min(c0 + kTileCells, v.cells_x());
  for (std::uint32_t r = r0; r < r1; ++r) {
    for (std::uint32_t c = c0; c < c1; ++c) {
      if (v.hole(r, c)) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<HeightRange> terrain_pyramid(const TerrainView& v) {
  const TerrainLevels& l = v.levels;
  std::vector<HeightRange> out(l.total);
  parallel::for_ranges<std::uint32_t>(0, l.tiles_z[0], [&](const auto& range) {
    std::vector<float> lo_f, hi_f;
    std::vector<std::uint16_t> lo_s, hi_s;
    for (std::uint32_t tz = range.begin(); tz != range.end(); ++tz) {
      HeightRange* row = out.data() + std::uint64_t(tz) * l.tiles_x[0];
      if (v.samples.empty()) {
        tile_row_ranges(v, v.heights.data(), tz, l.tiles_x[0], row, lo_f, hi_f);
      } else {
        tile_row_ranges(v, v.samples.data(), tz, l.tiles_x[0], row, lo_s, hi_s);
      }
      const std::uint32_t r0 = tz * kTileCells, r1 = std::min(r0 + kTileCells, v.cells_z());
      for (std::uint32_t tx = 0; tx < l.tiles_x[0] && !v.holes.empty(); ++tx) {
        if (!tile_has_hole(v, tx, tz)) continue;
        const std::uint32_t c0 = tx * kTileCells, c1 = std::min(c0 + kTileCells, v.cells_x());
        row[tx] = cells_range(v, r0, r1, c0, c1);
      }
    }
  });
  for (int level = 1; level < l.count; ++level) {
    const HeightRange* below = out.data() + l.offset[level - 1];
    HeightRange* here = out.data() + l.offset[level];
    const std::uint32_t below_x = l.tiles_x[level - 1], below_z = l.tiles_z[level - 1];
    for (std::uint32_t tz = 0; tz < l.tiles_z[level]; ++tz) {
      for (std::uint32_t tx = 0; tx < l.tiles_x[level]; ++tx) {
        HeightRange r{INFINITY, -INFINITY};
        for (std::uint32_t j = 0; j < 2; ++j) {
          for (std::uint32_t i = 0; i < 2; ++i) {
            const std::uint32_t x = 2 * tx + i, z = 2 * tz + j;
            if (x >= below_x || z >= below_z) continue;
            const HeightRange& c = below[std::uint64_t(z) * below_x + x];
            r.min = std::min(r.min, c.min);
            r.max = std::max(r.max, c.max);
          }
        }
        here[std::uint64_t(tz) * l.tiles_x[level] + tx] = r;
      }
    }
  }
  return out;
}

Aabb terrain_bounds(const TerrainView& v) {
  Aabb b;
  const HeightRange& top = v.pyramid.empty() ? HeightRange{INFINITY, -INFINITY} : v.range(v.levels.count - 1, 0, 0);
  if (top.empty()) return b;
  b.grow(Vec3{v.x_at(0), top.min, v.z_at(0)});
  b.grow(Vec3{v.x_at(v.columns - 1), top.max, v.z_at(v.rows - 1)});
  return b;
}

void build_terrain(Heightfield terrain, std::uint32_t first_triangle, TerrainArrays& arrays, TerrainView& view) {
  CAPSWEEP_ASSERT(check_heightfield(terrain).empty(), "World's constructor checks the heightfield");
  CAPSWEEP_ASSERT(std::uint64_t(first_triangle) + 2 * heightfield_cells(terrain) < kNoTriangle,
                  "World's constructor checks the triangle count");
  arrays.heights = std::move(terrain.heights);
  arrays.samples = std::move(terrain.samples);
  const std::uint64_t cells = heightfield_cells(terrain);
  arrays.holes.clear();
  if (std::any_of(terrain.holes.begin(), terrain.holes.end(), [](std::uint8_t h) { return h != 0; })) {
    arrays.holes.assign((cells + 63) / 64, 0);
    for (std::uint64_t i = 0; i < cells; ++i) {
      if (terrain.holes[i] != 0) arrays.holes[i >> 6] |= std::uint64_t(1) << (i & 63);
    }
  }
  view = TerrainView{};
  view.columns = terrain.columns;
  view.rows = terrain.rows;
  view.cell_x = terrain.cell_x;
  view.cell_z = terrain.cell_z;
  view.origin = terrain.origin;
  view.height_scale = terrain.height_scale;
  view.heights = arrays.heights;
  view.samples = arrays.samples;
  view.holes = arrays.holes;
  view.layers = terrain.layers;
  view.first_triangle = first_triangle;
  view.levels = terrain_levels(view.cells_x(), view.cells_z());
  arrays.pyramid = terrain_pyramid(view);
  view.pyramid = arrays.pyramid;
  view.bounds = terrain_bounds(view);
}

namespace {

struct CellHalf {
  std::uint32_t row, column;
  int half;
};

CellHalf cell_half(const TerrainView& v, std::uint64_t i) {
  const std::uint64_t cell = i / 2;
  return {std::uint32_t(cell / v.cells_x()), std::uint32_t(cell % v.cells_x()), int(i % 2)};
}

// The grid samples of each half's vertices, in winding order (see Heightfield).
constexpr int kCorner[2][3][2] = {{{0, 0}, {1, 0}, {0, 1}}, {{0, 1}, {1, 0}, {1, 1}}};  // {row, column} offsets

Triangle make_triangle(const TerrainView& v, std::uint32_t row, std::uint32_t column, int half) {
  Triangle t;
  for (int k = 0; k < 3; ++k) t.v[k] = v.vertex(row + kCorner[half][k][0], column + kCorner[half][k][1]);
  return t;
}

}  // namespace

Triangle terrain_triangle(const TerrainView& v, std::uint64_t i) {
  CAPSWEEP_ASSERT(i < v.triangle_count(), "a terrain triangle index is in range");
  const CellHalf c = cell_half(v, i);
  return make_triangle(v, c.row, c.column, c.half);
}

bool terrain_triangle_is_hole(const TerrainView& v, std::uint64_t i) {
  const CellHalf c = cell_half(v, i);
  return v.hole(c.row, c.column);
}

namespace {

// One triangle of the terrain during an adjacency question.
struct Face {
  bool exists = false;
  std::uint64_t index = 0;  // terrain index
  Triangle triangle;
  Vec3d normal;
};

Face face(const TerrainView& v, std::int64_t row, std::int64_t column, int half) {
  Face f;
  if (row < 0 || column < 0 || row >= std::int64_t(v.cells_z()) || column >= std::int64_t(v.cells_x())) return f;
  if (v.hole(std::uint32_t(row), std::uint32_t(column))) return f;
  f.exists = true;
  f.index = 2 * (std::uint64_t(row) * v.cells_x() + std::uint64_t(column)) + std::uint64_t(half);
  f.triangle = make_triangle(v, std::uint32_t(row), std::uint32_t(column), half);
  f.normal = face_normal_exact(f.triangle);
  return f;
}

// The triangle across side `side` of (row, column, half), and the side it meets it by.
struct Across {
  std::int64_t row, column;
  int half, side;
};
Across across_side(std::int64_t row, std::int64_t column, int half, int side) {
  if (half == 0) {
    switch (side) {
      case 0: return {row, column - 1, 1, 2};  // the west edge, x = column
      case 1: return {row, column, 1, 0};      // the diagonal
      default: return {row - 1, column, 1, 1};  // the north edge, z = row
    }
  }
  switch (side) {
    case 0: return {row, column, 0, 1};       // the diagonal
    case 1: return {row + 1, column, 0, 2};   // the south edge, z = row + 1
    default: return {row, column + 1, 0, 0};  // the east edge, x = column + 1
  }
}

// Whether side `side` of face a is a seam with the face across it, judged as link_triangles
// judges it: with the lower index of the two first.
bool seam(const TerrainView& v, const Face& a, std::int64_t row, std::int64_t column, int half, int side) {
  const Across o = across_side(row, column, half, side);
  const Face b = face(v, o.row, o.column, o.half);
  if (!a.exists || !b.exists) return false;
  return a.index < b.index ? is_seam(a.triangle, a.normal, side, b.triangle, b.normal, o.side)
                           : is_seam(b.triangle, b.normal, o.side, a.triangle, a.normal, side);
}

// Whether grid vertex (row, column) is inside a flat surface for face t: the six faces around it
// exist, every edge between them is a seam, and every one is coplanar with t (link_triangles'
// fan walk, which crosses each of those edges once).
bool flat_vertex(const TerrainView& v, const Face& t, std::int64_t row, std::int64_t column) {
  static const double cos_seam = std::cos(double(kSeamDegrees) * std::numbers::pi / 180.0);
  // The faces around the vertex, and for each fan edge one of its two faces and its side.
  struct Around {
    std::int64_t dr, dc;
    int half;
  };
  static constexpr Around kFaces[6] = {{0, 0, 0}, {-1, 0, 0}, {-1, 0, 1}, {0, -1, 0}, {0, -1, 1}, {-1, -1, 1}};
  struct FanEdge {
    std::int64_t dr, dc;
    int half, side;
  };
  static constexpr FanEdge kEdges[6] = {{0, 0, 0, 0},   {0, 0, 0, 2},   {-1, 0, 0, 1},
                                        {-1, 0, 0, 0},  {-1, -1, 1, 1}, {0, -1, 0, 1}};
  for (const Around& a : kFaces) {
    const Face f = face(v, row + a.dr, column + a.dc, a.half);
    if (!f.exists || std::fabs(dot(f.normal, t.normal)) < cos_seam) return false;
  }
  for (const FanEdge& e : kEdges) {
    const Face f = face(v, row + e.dr, column + e.dc, e.half);
    if (!seam(v, f, row + e.dr, column + e.dc, e.half, e.side)) return false;
  }
  return true;
}

}  // namespace

TriangleLinks terrain_links(const TerrainView& v, std::uint64_t i) {
  TriangleLinks links;
  const CellHalf c = cell_half(v, i);
  const Face t = face(v, c.row, c.column, c.half);
  if (!t.exists) return links;
  for (int side = 0; side < 3; ++side) {
    const Across o = across_side(c.row, c.column, c.half, side);
    const Face b = face(v, o.row, o.column, o.half);
    if (!b.exists) continue;
    links.across[side] = std::uint32_t(v.first_triangle + b.index);
    if (seam(v, t, c.row, c.column, c.half, side)) links.seam_edges |= std::uint8_t(1u << side);
  }
  for (int k = 0; k < 3; ++k) {
    if (flat_vertex(v, t, std::int64_t(c.row) + kCorner[c.half][k][0], std::int64_t(c.column) + kCorner[c.half][k][1])) {
      links.flat_vertices |= std::uint8_t(1u << k);
    }
  }
  return links;
}

HeightRange terrain_block_range(const TerrainView& v, std::uint32_t block_x, std::uint32_t block_z) {
  const std::uint32_t r0 = 2 * block_z, c0 = 2 * block_x;
  return cells_range(v, r0, std::min(r0 + 2, v.cells_z()), c0, std::min(c0 + 2, v.cells_x()));
}

unsigned terrain_cell_boxes(const TerrainView& v, std::uint32_t block_x, std::uint32_t block_z, float (&box)[6][4]) {
  const std::uint32_t r0 = 2 * block_z, c0 = 2 * block_x;
  const std::uint32_t rows = std::min<std::uint32_t>(2, v.cells_z() - r0), columns = std::min<std::uint32_t>(2, v.cells_x() - c0);
  float x[3], z[3], y[3][3];
  for (std::uint32_t c = 0; c <= columns; ++c) x[c] = v.x_at(c0 + c);
  for (std::uint32_t r = 0; r <= rows; ++r) {
    z[r] = v.z_at(r0 + r);
    for (std::uint32_t c = 0; c <= columns; ++c) y[r][c] = v.y_at(r0 + r, c0 + c);
  }
  unsigned ground = 0;
  for (std::uint32_t j = 0; j < 2; ++j) {
    for (std::uint32_t i = 0; i < 2; ++i) {
      const unsigned k = j * 2 + i;
      if (j >= rows || i >= columns || v.hole(r0 + j, c0 + i)) {
        for (auto& b : box) b[k] = 0.f;
        continue;
      }
      ground |= 1u << k;
      box[0][k] = x[i], box[3][k] = x[i + 1];
      box[2][k] = z[j], box[5][k] = z[j + 1];
      box[1][k] = std::min(std::min(y[j][i], y[j][i + 1]), std::min(y[j + 1][i], y[j + 1][i + 1]));
      box[4][k] = std::max(std::max(y[j][i], y[j][i + 1]), std::max(y[j + 1][i], y[j + 1][i + 1]));
    }
  }
  return ground;
}

int terrain_block(const TerrainView& v, std::uint32_t block_x, std::uint32_t block_z, TriangleBlock& out,
                  unsigned cells) {
  const std::uint32_t r0 = 2 * block_z, c0 = 2 * block_x;
  const std::uint32_t rows = std::min<std::uint32_t>(2, v.cells_z() - r0), columns = std::min<std::uint32_t>(2, v.cells_x() - c0);
  // The 3 x 3 samples once, then the triangles of each cell from them.
  Vec3 p[3][3];
  float x[3];
  for (std::uint32_t c = 0; c <= columns; ++c) x[c] = v.x_at(c0 + c);
  for (std::uint32_t r = 0; r <= rows; ++r) {
    const float z = v.z_at(r0 + r);
    for (std::uint32_t c = 0; c <= columns; ++c) p[r][c] = {x[c], v.y_at(r0 + r, c0 + c), z};
  }
  int used = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    for (std::uint32_t c = 0; c < columns; ++c) {
      if (!((cells >> (r * 2 + c)) & 1u) || v.hole(r0 + r, c0 + c)) continue;
      const std::uint64_t cell = std::uint64_t(r0 + r) * v.cells_x() + (c0 + c);
      for (int half = 0; half < 2; ++half, ++used) {
        const Vec3& a = p[r + kCorner[half][0][0]][c + kCorner[half][0][1]];
        const Vec3& b = p[r + kCorner[half][1][0]][c + kCorner[half][1][1]];
        const Vec3& d = p[r + kCorner[half][2][0]][c + kCorner[half][2][1]];
        out.x0[used] = a.x, out.y0[used] = a.y, out.z0[used] = a.z;
        out.x1[used] = b.x, out.y1[used] = b.y, out.z1[used] = b.z;
        out.x2[used] = d.x, out.y2[used] = d.y, out.z2[used] = d.z;
        out.triangle[used] = std::uint32_t(v.first_triangle + 2 * cell + std::uint64_t(half));
      }
    }
  }
  if (used == 0) return 0;
  // Unused lanes are copies of lane 0, as make_block leaves them.
  for (int lane = used; lane < kBlockLanes; ++lane) {
    out.x0[lane] = out.x0[0], out.y0[lane] = out.y0[0], out.z0[lane] = out.z0[0];
    out.x1[lane] = out.x1[0], out.y1[lane] = out.y1[0], out.z1[lane] = out.z1[0];
    out.x2[lane] = out.x2[0], out.y2[lane] = out.y2[0], out.z2[lane] = out.z2[0];
    out.triangle[lane] = kNoTriangle;
  }
  return used;
}

}  // namespace capsweep
