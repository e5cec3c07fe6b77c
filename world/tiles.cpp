// Streamed tiles (World::streamed): static meshes placed at their origins, after the instances,
// in the order of their ids, so a frame's triangles depend on which tiles it holds, never on the
// order they came in.
#include <algorithm>
#include <optional>
#include <string>

#include "parallel/executor.h"
#include "world/instances.h"
#include "world/world_arrays.h"

namespace capsweep {

namespace {

std::string tile_named(std::uint32_t id, std::size_t row, const char* verb) {
  return std::string(verb) + " tile " + std::to_string(id) + " (row " + std::to_string(row) + ")";
}

const Tile* find_tile(const std::vector<Tile>& tiles, std::uint32_t id) {
  const auto at = std::lower_bound(tiles.begin(), tiles.end(), id, [](const Tile& t, std::uint32_t i) { return t.id < i; });
  return at != tiles.end() && at->id == id ? &*at : nullptr;
}

// Why `tile` cannot be added ("" when it can): its mesh, layers and origin.
std::string tile_problem(const Tile& tile) {
  const WorldArrays& a = tile.mesh.arrays();
  if (a.instances) return "its mesh is a world with instances or tiles (a tile is a mesh alone)";
  if (a.terrain.present()) return "its mesh has a heightfield (heightfield_tile makes a tile of one)";
  if (tile.layers == 0) return "its layer mask is 0 (on no layer)";
  if (!is_finite(tile.origin)) return "its origin is not finite";
  if (max_abs_component(tile.origin) > double(kMaxCoordinate)) return "its origin is beyond 1e6 m of the world's origin";
  return "";
}

}  // namespace

std::shared_ptr<InstanceSet> restream(const InstanceSet& previous, std::span<const Tile> added,
                                      std::span<const std::uint32_t> removed) {
  // Every row checked before anything is built: a refusal leaves nothing half-applied.
  std::vector<std::pair<std::uint32_t, std::size_t>> gone;  // (id, row)
  for (std::size_t row = 0; row < removed.size(); ++row) {
    if (!find_tile(previous.tiles, removed[row])) {
      throw WorldError(tile_named(removed[row], row, "removed") + ": the world has no tile of that id");
    }
    gone.push_back({removed[row], row});
  }
  std::sort(gone.begin(), gone.end());
  for (std::size_t k = 1; k < gone.size(); ++k) {
    if (gone[k].first == gone[k - 1].first) {
      throw WorldError(tile_named(gone[k].first, gone[k].second, "removed") + ": removed twice, first in row " +
                       std::to_string(gone[k - 1].second));
    }
  }
  auto is_gone = [&](std::uint32_t id) {
    return std::binary_search(gone.begin(), gone.end(), std::pair<std::uint32_t, std::size_t>(id, 0),
                              [](const auto& a, const auto& b) { return a.first < b.first; });
  };
  std::vector<Tile> tiles;
  tiles.reserve(previous.tiles.size() - gone.size() + added.size());
  for (const Tile& t : previous.tiles) {
    if (!is_gone(t.id)) tiles.push_back(t);
  }
  const std::size_t kept = tiles.size();
  for (std::size_t row = 0; row < added.size(); ++row) {
    const Tile& t = added[row];
    if (const std::string why = tile_problem(t); !why.empty()) throw WorldError(tile_named(t.id, row, "added") + ": " + why);
    if (find_tile(previous.tiles, t.id) && !is_gone(t.id)) {
      throw WorldError(tile_named(t.id, row, "added") + ": the id is in use (remove that tile in the same call to replace it)");
    }
    for (std::size_t before = 0; before < row; ++before) {
      if (added[before].id == t.id) {
        throw WorldError(tile_named(t.id, row, "added") + ": added twice, first in row " + std::to_string(before));
      }
    }
    tiles.push_back(t);
  }
  std::sort(tiles.begin() + std::ptrdiff_t(kept), tiles.end(), [](const Tile& a, const Tile& b) { return a.id < b.id; });
  std::inplace_merge(tiles.begin(), tiles.begin() + std::ptrdiff_t(kept), tiles.end(),
                     [](const Tile& a, const Tile& b) { return a.id < b.id; });

  auto set = std::make_shared<InstanceSet>();
  set->static_part = previous.static_part;
  set->prototypes = previous.prototypes;
  const std::size_t prototypes = previous.prototypes->size(), instances = previous.given.size();
  set->prototype_arrays.assign(previous.prototype_arrays.begin(), previous.prototype_arrays.begin() + std::ptrdiff_t(prototypes));
  set->prototype_bvhs.assign(previous.prototype_bvhs.begin(), previous.prototype_bvhs.begin() + std::ptrdiff_t(prototypes));
  set->given = previous.given;
  set->placed.assign(previous.placed.begin(), previous.placed.begin() + std::ptrdiff_t(instances));
  set->by_id = previous.by_id;
  set->first = previous.first;
  for (const Instance& in : set->given) set->layers_present |= in.layers;
  std::uint64_t next = instances == 0 ? previous.first : std::uint64_t(set->placed.back().first) + set->placed.back().count;
  for (std::size_t k = 0; k < tiles.size(); ++k) {
    const Tile& t = tiles[k];
    const WorldArrays& mesh = t.mesh.arrays();
    set->prototype_arrays.push_back(&mesh);
    set->prototype_bvhs.push_back(mesh.bvh);
    PlacedInstance p;
    p.placement = placement_of(Pose{t.origin, Quat{}});
    p.box = placed_box(p.placement, mesh.bounds);
    if (max_abs_component(p.box.min) > kMaxCoordinate || max_abs_component(p.box.max) > kMaxCoordinate) {
      throw WorldError("tile " + std::to_string(t.id) + ": placed, its triangles reach beyond 1e6 m of the origin");
    }
    p.first = std::uint32_t(next);
    p.count = std::uint32_t(mesh.mesh_count());
    p.prototype = std::uint32_t(prototypes + k);
    p.layers = t.layers;
    next += p.count;
    if (next >= kNoTriangle) throw WorldError("tile " + std::to_string(t.id) + ": the world's triangles pass 2^32 - 2");
    set->placed.push_back(p);
    set->layers_present |= t.layers;
  }
  set->triangles = next - set->first;
  set->tiles = std::move(tiles);
  make_top(*set, nullptr);  // a new set of boxes: nothing to refit
  return set;
}

Tile build_tile(std::uint32_t id, const Vec3d& origin, std::vector<Triangle> local, std::uint32_t layers, int threads) {
  std::optional<World> mesh;
  parallel::in_arena(threads, [&] { mesh.emplace(std::move(local)); });  // the BVH's build runs in the caller's arena
  return Tile{id, origin, layers, std::move(*mesh)};
}

Tile heightfield_tile(std::uint32_t id, const Vec3d& origin, Heightfield terrain, std::uint32_t layers, int threads) {
  // The heightfield's own checks and triangles: its cells split and numbered as a terrain's (built
  // on the tile's workers too).
  std::optional<World> built;
  parallel::in_arena(threads, [&] { built.emplace(std::move(terrain)); });
  const World& grid = *built;
  std::vector<Triangle> mesh;
  mesh.reserve(grid.triangle_count());
  for (std::uint32_t i = 0; i < grid.triangle_count(); ++i) {
    if (grid.layers_of(i) != 0) mesh.push_back(grid.triangle(i));  // a hole's two are on no layer
  }
  if (mesh.empty()) throw WorldError("heightfield: every cell is a hole (a tile of nothing)");
  return build_tile(id, origin, std::move(mesh), layers, threads);
}

}  // namespace capsweep
