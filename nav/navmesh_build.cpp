// Building a tiled Recast navmesh from a World's triangles, tiles in parallel. The pipeline per
// tile is Recast's own (Mononen, recastnavigation's Sample_TileMesh): rasterize, filter what a
// body cannot stand on, erode by its radius, regions (watershed), contours, polygons, detail.
// Each tile is built alone from the triangles that reach it, so tiles may be built on any
// worker in any order; they are added to the mesh in tile order, which makes the bytes the same
// for any thread count.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <recastnavigation/DetourNavMeshBuilder.h>
#include <recastnavigation/Recast.h>

#include "nav/navmesh_data.h"
#include "parallel/executor.h"

namespace capsweep {

NavMeshSettings navmesh_settings(const MoveSettings& move, const Capsule& body, std::uint32_t layers) {
  NavMeshSettings s;
  const float height = std::fabs(body.b.y - body.a.y) + 2 * body.radius;
  // The solver keeps the skin between the body and every wall: polygons keep the body's radius
  // and the skin from them, so an agent centred on a polygon edge is a skin clear of the wall.
  s.agent_radius = body.radius + move.skin;
  s.agent_height = height + move.skin;
  s.climb = move.step_height;
  s.max_slope_degrees = move.max_slope_degrees;
  // Recast's advice: a cell of a third to a half of the radius. A third keeps a doorway one body
  // wide open (erosion rounds the radius up to whole cells).
  s.cell_size = s.agent_radius / 3;
  // Half the cell size, and no coarser than a seventh of the climb, so that rounding the climb
  // down to whole cells loses at most 15 % of it.
  s.cell_height = std::min(s.cell_size / 2, move.step_height > 0 ? move.step_height / 7 : s.cell_size / 2);
  s.layers = layers;
  return s;
}

std::string check_navmesh_settings(const NavMeshSettings& s) {
  auto within = [](const char* name, float v, float lo, float hi) -> std::string {
    if (v >= lo && v <= hi) return "";
    char text[160];
    std::snprintf(text, sizeof text, "navmesh settings: %s must be within [%g, %g], got %g", name, double(lo),
                  double(hi), double(v));
    return text;
  };
  for (const std::string& e : {within("agent_radius", s.agent_radius, 1e-3f, 100.f),
                               within("agent_height", s.agent_height, 1e-3f, 1000.f),
                               within("climb", s.climb, 0.f, 100.f),
                               within("max_slope_degrees", s.max_slope_degrees, 0.f, 90.f),
                               within("cell_size", s.cell_size, 1e-3f, 100.f),
                               within("cell_height", s.cell_height, 1e-3f, 100.f),
                               within("tile_cells", float(s.tile_cells), 16.f, 1024.f),
                               within("max_edge_length", s.max_edge_length, 0.f, 1e4f),
                               within("max_edge_error", s.max_edge_error, 0.1f, 100.f),
                               within("min_region_area", s.min_region_area, 0.f, 1e6f),
                               within("merge_region_area", s.merge_region_area, 0.f, 1e6f),
                               within("detail_sample_distance", s.detail_sample_distance, 0.f, 1e3f),
                               within("detail_max_error", s.detail_max_error, 0.f, 1e3f)}) {
    if (!e.empty()) return e;
  }
  if (s.layers == 0) return "navmesh settings: layers must name at least one layer";
  // Recast counts heights in cells of 8 bits (spans) and radii in whole cells.
  if (s.agent_height / s.cell_height > 250.f || s.climb / s.cell_height > 250.f) {
    return "navmesh settings: agent_height and climb must be under 250 cell heights";
  }
  return "";
}

namespace {

// The world's triangles Recast sees, as flat arrays, and which tiles each one reaches.
struct Soup {
  std::vector<float> vertices;            // 9 per triangle
  std::vector<unsigned char> walkable;    // RC_WALKABLE_AREA or RC_NULL_AREA, per triangle
  std::vector<std::vector<int>> in_tile;  // triangle indices, per tile (row-major, x fastest)
};

struct TileGrid {
  float origin[3];
  float tile_size;  // metres
  int columns, rows;
  float min_y, max_y;
};

// Triangles on the layers, walkable where their slope (either side: capsweep's triangles are
// two-sided, as the solver's ground is) is within the limit.
Soup gather(const World& world, const NavMeshSettings& s, TileGrid& grid, float border) {
  Soup soup;
  Aabb box;
  const float walkable_cos = std::cos(s.max_slope_degrees * 3.14159265358979f / 180.f);
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    if ((world.layers_of(i) & s.layers) == 0) continue;  // not seen, or a terrain hole
    const Triangle t = world.triangle(i);
    const Vec3 n = cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
    const float len = length(n);
    soup.walkable.push_back(len > 0 && std::fabs(n.y) >= walkable_cos * len ? RC_WALKABLE_AREA : RC_NULL_AREA);
    for (const Vec3& v : t.v) {
      soup.vertices.insert(soup.vertices.end(), {v.x, v.y, v.z});
      box.grow(v);
    }
  }
  if (soup.walkable.empty()) throw std::invalid_argument("navmesh: the world has no triangle on the navmesh's layers");
  grid.tile_size = float(s.tile_cells) * s.cell_size;
  grid.origin[0] = box.min.x;
  grid.origin[1] = box.min.y;
  grid.origin[2] = box.min.z;
  grid.columns = std::max(1, int(std::ceil((box.max.x - box.min.x) / grid.tile_size)));
  grid.rows = std::max(1, int(std::ceil((box.max.z - box.min.z) / grid.tile_size)));
  grid.min_y = box.min.y;
  grid.max_y = box.max.y + s.agent_height;
  soup.in_tile.resize(std::size_t(grid.columns) * std::size_t(grid.rows));
  for (std::size_t k = 0; k < soup.walkable.size(); ++k) {
    const float* v = &soup.vertices[9 * k];
    const float lo_x = std::min({v[0], v[3], v[6]}) - border, hi_x = std::max({v[0], v[3], v[6]}) + border;
    const float lo_z = std::min({v[2], v[5], v[8]}) - border, hi_z = std::max({v[2], v[5], v[8]}) + border;
    const int x0 = std::clamp(int(std::floor((lo_x - grid.origin[0]) / grid.tile_size)), 0, grid.columns - 1);
    const int x1 = std::clamp(int(std::floor((hi_x - grid.origin[0]) / grid.tile_size)), 0, grid.columns - 1);
    const int z0 = std::clamp(int(std::floor((lo_z - grid.origin[2]) / grid.tile_size)), 0, grid.rows - 1);
    const int z1 = std::clamp(int(std::floor((hi_z - grid.origin[2]) / grid.tile_size)), 0, grid.rows - 1);
    for (int z = z0; z <= z1; ++z) {
      for (int x = x0; x <= x1; ++x) soup.in_tile[std::size_t(z) * std::size_t(grid.columns) + std::size_t(x)].push_back(int(k));
    }
  }
  return soup;
}

// Recast's intermediate results of one tile, freed however the build ends.
struct TileWork {
  rcHeightfield* solid = nullptr;
  rcCompactHeightfield* compact = nullptr;
  rcContourSet* contours = nullptr;
  rcPolyMesh* polys = nullptr;
  rcPolyMeshDetail* detail = nullptr;
  ~TileWork() {
    rcFreeHeightField(solid);
    rcFreeCompactHeightfield(compact);
    rcFreeContourSet(contours);
    rcFreePolyMesh(polys);
    rcFreePolyMeshDetail(detail);
  }
};

struct TileData {
  unsigned char* bytes = nullptr;  // dtAlloc'd, handed to the mesh
  int size = 0;
};

// The Detour data of tile (tx, tz), or none when it holds no polygon.
TileData build_tile(const Soup& soup, const TileGrid& grid, const NavMeshSettings& s, int tx, int tz) {
  const std::vector<int>& triangles = soup.in_tile[std::size_t(tz) * std::size_t(grid.columns) + std::size_t(tx)];
  if (triangles.empty()) return {};
  rcConfig cfg{};
  cfg.cs = s.cell_size;
  cfg.ch = s.cell_height;
  cfg.walkableSlopeAngle = s.max_slope_degrees;
  cfg.walkableHeight = int(std::ceil(s.agent_height / s.cell_height));
  cfg.walkableClimb = int(std::floor(s.climb / s.cell_height));
  cfg.walkableRadius = int(std::ceil(s.agent_radius / s.cell_size));
  cfg.maxEdgeLen = int(s.max_edge_length / s.cell_size);
  cfg.maxSimplificationError = s.max_edge_error;
  cfg.minRegionArea = int(s.min_region_area / (s.cell_size * s.cell_size));
  cfg.mergeRegionArea = int(s.merge_region_area / (s.cell_size * s.cell_size));
  cfg.maxVertsPerPoly = 6;
  cfg.tileSize = s.tile_cells;
  cfg.borderSize = cfg.walkableRadius + 3;
  cfg.width = cfg.tileSize + 2 * cfg.borderSize;
  cfg.height = cfg.tileSize + 2 * cfg.borderSize;
  cfg.detailSampleDist = s.detail_sample_distance < 0.9f ? 0 : s.cell_size * s.detail_sample_distance;
  cfg.detailSampleMaxError = s.cell_height * s.detail_max_error;
  cfg.bmin[0] = grid.origin[0] + float(tx) * grid.tile_size - float(cfg.borderSize) * cfg.cs;
  cfg.bmin[1] = grid.min_y;
  cfg.bmin[2] = grid.origin[2] + float(tz) * grid.tile_size - float(cfg.borderSize) * cfg.cs;
  cfg.bmax[0] = grid.origin[0] + float(tx + 1) * grid.tile_size + float(cfg.borderSize) * cfg.cs;
  cfg.bmax[1] = grid.max_y;
  cfg.bmax[2] = grid.origin[2] + float(tz + 1) * grid.tile_size + float(cfg.borderSize) * cfg.cs;

  rcContext ctx(false);
  TileWork w;
  w.solid = rcAllocHeightfield();
  if (!w.solid || !rcCreateHeightfield(&ctx, *w.solid, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch)) {
    throw std::runtime_error("navmesh: out of memory for a tile's heightfield");
  }
  // One triangle at a time from the soup's own arrays: no copy of the tile's triangles.
  static const int kTriangle[3] = {0, 1, 2};
  for (int k : triangles) {
    if (!rcRasterizeTriangles(&ctx, &soup.vertices[9 * std::size_t(k)], 3, kTriangle, &soup.walkable[std::size_t(k)], 1,
                              *w.solid, cfg.walkableClimb)) {
      throw std::runtime_error("navmesh: rasterizing a tile failed");
    }
  }
  rcFilterLowHangingWalkableObstacles(&ctx, cfg.walkableClimb, *w.solid);
  rcFilterLedgeSpans(&ctx, cfg.walkableHeight, cfg.walkableClimb, *w.solid);
  rcFilterWalkableLowHeightSpans(&ctx, cfg.walkableHeight, *w.solid);
  w.compact = rcAllocCompactHeightfield();
  w.contours = rcAllocContourSet();
  w.polys = rcAllocPolyMesh();
  w.detail = rcAllocPolyMeshDetail();
  if (!w.compact || !w.contours || !w.polys || !w.detail ||
      !rcBuildCompactHeightfield(&ctx, cfg.walkableHeight, cfg.walkableClimb, *w.solid, *w.compact) ||
      !rcErodeWalkableArea(&ctx, cfg.walkableRadius, *w.compact) || !rcBuildDistanceField(&ctx, *w.compact) ||
      !rcBuildRegions(&ctx, *w.compact, cfg.borderSize, cfg.minRegionArea, cfg.mergeRegionArea) ||
      !rcBuildContours(&ctx, *w.compact, cfg.maxSimplificationError, cfg.maxEdgeLen, *w.contours) ||
      !rcBuildPolyMesh(&ctx, *w.contours, cfg.maxVertsPerPoly, *w.polys) ||
      !rcBuildPolyMeshDetail(&ctx, *w.polys, *w.compact, cfg.detailSampleDist, cfg.detailSampleMaxError, *w.detail)) {
    throw std::runtime_error("navmesh: Recast could not build tile (" + std::to_string(tx) + ", " + std::to_string(tz) +
                             ")");
  }
  if (w.polys->npolys == 0) return {};
  for (int p = 0; p < w.polys->npolys; ++p) w.polys->flags[p] = w.polys->areas[p] == RC_WALKABLE_AREA ? kWalkablePolygon : 0;

  dtNavMeshCreateParams params{};
  params.verts = w.polys->verts;
  params.vertCount = w.polys->nverts;
  params.polys = w.polys->polys;
  params.polyAreas = w.polys->areas;
  params.polyFlags = w.polys->flags;
  params.polyCount = w.polys->npolys;
  params.nvp = w.polys->nvp;
  params.detailMeshes = w.detail->meshes;
  params.detailVerts = w.detail->verts;
  params.detailVertsCount = w.detail->nverts;
  params.detailTris = w.detail->tris;
  params.detailTriCount = w.detail->ntris;
  params.walkableHeight = s.agent_height;
  params.walkableRadius = s.agent_radius;
  params.walkableClimb = s.climb;
  params.tileX = tx;
  params.tileY = tz;
  params.tileLayer = 0;
  rcVcopy(params.bmin, w.polys->bmin);
  rcVcopy(params.bmax, w.polys->bmax);
  params.cs = cfg.cs;
  params.ch = cfg.ch;
  params.buildBvTree = true;
  TileData out;
  if (!dtCreateNavMeshData(&params, &out.bytes, &out.size)) {
    throw std::runtime_error("navmesh: Detour could not make tile (" + std::to_string(tx) + ", " + std::to_string(tz) +
                             ") (too many vertices in one tile? lower tile_cells)");
  }
  return out;
}

int bits_for(std::size_t n) {
  int bits = 0;
  while ((std::size_t(1) << bits) < n) ++bits;
  return bits;
}

}  // namespace

NavMesh NavMesh::build(const World& world, const NavMeshSettings& settings, int threads) {
  if (const std::string problem = check_navmesh_settings(settings); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  parallel::check_threads(threads);
  // A polygon reference has 22 bits for the tile and the polygon within it (32-bit dtPolyRef):
  // at most 4,096 tiles leave 1,024 polygons to each. A world too large for that at tile_cells
  // gets tiles twice, four times, ... as wide (up to 1,024 cells), and settings() says so.
  NavMeshSettings used = settings;
  const Aabb box = world.bounds();
  for (;;) {
    const float size = float(used.tile_cells) * used.cell_size;
    const double tiles = std::ceil(double(box.max.x - box.min.x) / size) * std::ceil(double(box.max.z - box.min.z) / size);
    if (tiles <= 4096 || used.tile_cells * 2 > 1024) break;
    used.tile_cells *= 2;
  }
  TileGrid grid{};
  const float border = (std::ceil(used.agent_radius / used.cell_size) + 3) * used.cell_size;
  const Soup soup = gather(world, used, grid, border);
  // Every tile's heightfield spans the world's whole height, and Recast's spans keep heights in
  // 13 bits (RC_SPAN_MAX_HEIGHT cells from the floor): anything higher would be clamped flat.
  if (const double cells = std::ceil(double(grid.max_y - grid.min_y) / double(used.cell_height));
      cells > RC_SPAN_MAX_HEIGHT) {
    throw std::invalid_argument("navmesh: the world is " + std::to_string(grid.max_y - grid.min_y) +
                                " m tall with room for an agent, " + std::to_string(std::int64_t(cells)) +
                                " cells of cell_height, more than Recast's " + std::to_string(RC_SPAN_MAX_HEIGHT) +
                                ": raise cell_height or split the world");
  }
  const std::size_t tiles = std::size_t(grid.columns) * std::size_t(grid.rows);
  const int tile_bits = bits_for(tiles);
  if (tile_bits > 12) {
    throw std::invalid_argument("navmesh: " + std::to_string(tiles) +
                                " tiles are more than a navmesh holds (4096), even of 1024 cells: raise cell_size");
  }

  std::vector<TileData> built(tiles);
  std::exception_ptr failure;
  std::mutex failure_lock;
  parallel::in_arena(threads, [&] {
    parallel::for_ranges(std::size_t(0), tiles, [&](parallel::Range<std::size_t> r) {
      for (std::size_t k = r.begin(); k < r.end(); ++k) {
        try {
          built[k] = build_tile(soup, grid, used, int(k % std::size_t(grid.columns)),
                                int(k / std::size_t(grid.columns)));
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_lock);
          if (!failure) failure = std::current_exception();
        }
      }
    });
  });
  auto data = std::make_shared<Data>();
  data->settings = used;
  data->mesh.reset(dtAllocNavMesh());
  dtNavMeshParams params{};
  rcVcopy(params.orig, grid.origin);
  params.tileWidth = grid.tile_size;
  params.tileHeight = grid.tile_size;
  params.maxTiles = int(tiles);
  params.maxPolys = 1 << (22 - tile_bits);
  const bool ready = data->mesh && dtStatusSucceed(data->mesh->init(&params));
  for (std::size_t k = 0; k < tiles; ++k) {  // in tile order, whatever order they were built in
    TileData& t = built[k];
    if (!t.bytes) continue;
    const auto* header = reinterpret_cast<const dtMeshHeader*>(t.bytes);
    if (!failure && header->polyCount > params.maxPolys) {
      failure = std::make_exception_ptr(std::runtime_error(
          "navmesh: tile (" + std::to_string(header->x) + ", " + std::to_string(header->y) + ") holds " +
          std::to_string(header->polyCount) + " polygons, more than " + std::to_string(params.maxPolys) +
          " a tile may hold here: lower tile_cells"));
    }
    if (failure || !ready || !dtStatusSucceed(data->mesh->addTile(t.bytes, t.size, DT_TILE_FREE_DATA, 0, nullptr))) {
      dtFree(t.bytes);
      if (!failure && ready) failure = std::make_exception_ptr(std::runtime_error("navmesh: Detour refused a tile"));
    }
  }
  if (failure) std::rethrow_exception(failure);
  if (!ready) throw std::runtime_error("navmesh: out of memory");
  return NavMesh(std::move(data));
}

}  // namespace capsweep
