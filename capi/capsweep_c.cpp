// The C API of libcapsweep_c.so over World and snapshots: worlds from memory and from CWSW
// files, and the batches. Mesh files and heightmaps are capsweep_c_io.cpp's (libcapsweep_c_io.so).
#include <capsweep/capsweep_c.h>

#include <fstream>
#include <string>
#include <vector>

#include <capsweep/files.h>
#include <capsweep/version.h>
#include <capsweep/tiles.h>
#include <capsweep/world.h>

#include "world/sweep_batch.h"
#include "capi/guarded.h"
#include "capi/records.h"
#include "capi/world_handle.h"

namespace {

using namespace capsweep;
using namespace capsweep::capi;

// Pinned sizes (the structs with pointers: on 64-bit targets).
static_assert(sizeof(void*) != 8 ||
              (sizeof(cs_heightfield) == 64 && sizeof(cs_heightmap_options) == 48 && sizeof(cs_world_desc) == 48 &&
               sizeof(cs_load_options) == 72 && sizeof(cs_sweep_args) == 56 && sizeof(cs_move_args) == 40 &&
               sizeof(cs_validate_args) == 40 && sizeof(cs_overlap_args) == 40));
static_assert(CS_MAX_THREADS == kMaxThreads);

// A batch's options: its layers (0 names none: refused as a query file refuses it) and workers.
// The thread count is checked where the batch runs (World's entry points), as for C++.
SweepOptions batch_options(std::uint32_t layer_mask, int threads, SweepPath path = SweepPath::simd) {
  require(layer_mask != 0, "layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  SweepOptions options = on_path(path, threads);
  options.layers = layer_mask;
  return options;
}

// The batch shape every call shares: a world, `count` inputs and outputs (NULL only when count
// is 0).
void check_batch(const cs_world* world, const void* args, const void* in, const void* out, std::size_t count) {
  require(world != nullptr, "world is NULL");
  require(args != nullptr, "args is NULL");
  require(count == 0 || (in != nullptr && out != nullptr), "inputs or outputs are NULL");
}

// Capsule sweeps: records are read and written in place, one at a time, with no copy of the batch.
template <class Record>
void sweep_capsules(const cs_world* world, const cs_sweep_args& a, const SweepOptions& options) {
  const auto* queries = static_cast<const Record*>(a.queries);
  sweep_batch(
      world->world, a.count, [&](std::size_t i) { return records::query(queries[i]); },
      [&](std::size_t i, const SweepHit& hit, Status s) {
        a.hits[i] = records::record(hit);
        if (a.status) a.status[i] = std::uint8_t(s);
      },
      options);
}

template <class Record>
void sweep_ellipsoids(const cs_world* world, const cs_sweep_args& a, const SweepOptions& options) {
  const auto* queries = static_cast<const Record*>(a.queries);
  std::vector<SweepEllipsoidQuery> in(a.count);
  for (std::size_t i = 0; i < a.count; ++i) in[i] = records::query(queries[i]);
  std::vector<SweepHit> out(a.count);
  std::vector<Status> why(a.count);
  world->world.sweep_ellipsoid(in, out, options, why);
  for (std::size_t i = 0; i < a.count; ++i) {
    a.hits[i] = records::record(out[i]);
    if (a.status) a.status[i] = std::uint8_t(why[i]);
  }
}

std::vector<Triangle> triangles_of(const cs_world_desc& d) {
  require(d.triangle_count == 0 || (d.vertices != nullptr && d.indices != nullptr), "vertices or indices are NULL");
  std::vector<Triangle> triangles(d.triangle_count);
  for (std::size_t t = 0; t < d.triangle_count; ++t) {
    for (int k = 0; k < 3; ++k) {
      const std::uint32_t v = d.indices[3 * t + k];
      require(v < d.vertex_count, "triangle " + std::to_string(t) + " names vertex " + std::to_string(v) + " of " +
                                      std::to_string(d.vertex_count));
      triangles[t].v[k] = {d.vertices[3 * v], d.vertices[3 * v + 1], d.vertices[3 * v + 2]};
    }
  }
  return triangles;
}

Heightfield heightfield_of(const cs_heightfield& c) {
  require(c.reserved == 0, "cs_heightfield.reserved must be 0");
  require((c.heights != nullptr) != (c.samples != nullptr),
          "give the heights either as floats or as 16-bit samples (exactly one of the two)");
  Heightfield t;
  t.columns = c.columns;
  t.rows = c.rows;
  t.cell_x = c.cell_x;
  t.cell_z = c.cell_z;
  t.origin = records::vec(c.origin);
  t.height_scale = c.height_scale;
  t.layers = c.layers;
  require(t.columns >= 2 && t.rows >= 2, "heightfield: needs at least 2 x 2 samples, got " +
                                              std::to_string(t.columns) + " x " + std::to_string(t.rows));
  const std::size_t n = std::size_t(t.columns) * t.rows;
  if (c.heights) t.heights.assign(c.heights, c.heights + n);
  if (c.samples) t.samples.assign(c.samples, c.samples + n);
  if (c.holes) t.holes.assign(c.holes, c.holes + heightfield_cells(t));
  return t;
}

}  // namespace

extern "C" {

const char* cs_version(void) { return CAPSWEEP_VERSION_STRING; }

const char* cs_last_error(void) { return last_error.c_str(); }

void cs_load_options_default(cs_load_options* options) {
  if (!options) return;
  const HeightmapOptions h;
  *options = {};
  options->kind = CS_FILE_SCENE;
  options->scale = SceneOptions{}.scale;
  options->heightmap.cell_x = h.cell_x;
  options->heightmap.cell_z = h.cell_z;
  options->heightmap.height_scale = h.height_scale;
  records::put(options->heightmap.origin, h.origin);
  options->heightmap.layers = h.layers;
}

int cs_world_create(const cs_world_desc* desc, cs_world** out) {
  return guarded("cs_world_create", [&] {
    clear_out(out);
    require(desc != nullptr, "desc is NULL");
    require(desc->triangle_count > 0 || desc->terrain != nullptr, "no triangles");
    std::vector<Triangle> triangles = triangles_of(*desc);
    std::vector<std::uint32_t> masks;
    if (desc->layers) masks.assign(desc->layers, desc->layers + desc->triangle_count);
    if (desc->terrain) {
      *out = new cs_world{World(heightfield_of(*desc->terrain), std::move(triangles), std::move(masks))};
    } else {
      *out = new cs_world{World(std::move(triangles), std::move(masks))};
    }
  });
}

int cs_world_load(const char* path, const cs_load_options* options, cs_world** out) {
  return guarded("cs_world_load", [&] {
    clear_out(out);
    const cs_load_options o = load_options(path, options);
    // A file that does not open is load_snapshot's to name; one that opens and is not a snapshot
    // is another library's (this one links no mesh or image reader).
    if (o.kind == CS_FILE_HEIGHTMAP || (!looks_like_snapshot(path) && std::ifstream(path))) {
      throw SnapshotError(std::string(path) +
                          ": not a CWSW snapshot; mesh files and heightmaps are read by cs_world_import "
                          "(<capsweep/capsweep_c_io.h>, libcapsweep_c_io)");
    }
    require(scene_defaults(o), std::string(path) + ": scene options do not apply to a snapshot");
    *out = new cs_world{load_snapshot(path).world};
  });
}

namespace {

Pose pose_of(const cs_pose& p) {
  return Pose{Vec3d(p.position[0], p.position[1], p.position[2]), Quat{p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]}};
}

}  // namespace

int cs_world_create_instanced(const cs_world* static_part, const cs_world* const* prototypes, size_t prototype_count,
                              const cs_instance* instances, size_t instance_count, cs_world** out) {
  return guarded("cs_world_create_instanced", [&] {
    clear_out(out);
    require(static_part != nullptr, "static_part is NULL");
    require(prototype_count == 0 || prototypes != nullptr, "prototypes is NULL");
    require(instance_count == 0 || instances != nullptr, "instances is NULL");
    std::vector<World> protos;
    for (std::size_t k = 0; k < prototype_count; ++k) {
      require(prototypes[k] != nullptr, "prototype " + std::to_string(k) + " is NULL");
      protos.push_back(prototypes[k]->world);
    }
    std::vector<Instance> placed(instance_count);
    for (std::size_t k = 0; k < instance_count; ++k) {
      const cs_instance& in = instances[k];
      require(in.reserved == 0, "instance " + std::to_string(k) + ": reserved must be 0");
      placed[k] = Instance{in.id, in.prototype, pose_of(in.pose), in.layers};
    }
    *out = new cs_world{World(static_part->world, std::move(protos), std::move(placed))};
  });
}

int cs_world_posed(const cs_world* world, const cs_instance_pose* poses, size_t count, cs_world** out) {
  return guarded("cs_world_posed", [&] {
    clear_out(out);
    require(world != nullptr, "world is NULL");
    require(count == 0 || poses != nullptr, "poses is NULL");
    std::vector<InstancePose> next(count);
    for (std::size_t k = 0; k < count; ++k) {
      require(poses[k].reserved == 0, "pose " + std::to_string(k) + ": reserved must be 0");
      next[k] = InstancePose{poses[k].id, pose_of(poses[k].pose)};
    }
    try {
      *out = new cs_world{world->world.posed(next)};
    } catch (const WorldError& e) {
      throw std::invalid_argument(e.what());  // a pose is an argument, not a mesh
    }
  });
}

int cs_world_instance_of(const cs_world* world, uint32_t triangle, uint32_t* id) {
  const Instance* in = world ? world->world.instance_of(triangle) : nullptr;
  if (in && id) *id = in->id;
  return in != nullptr;
}

int cs_world_streamed(const cs_world* world, const cs_tile* added, size_t added_count, const uint32_t* removed,
                      size_t removed_count, cs_world** out) {
  return guarded("cs_world_streamed", [&] {
    clear_out(out);
    require(world != nullptr, "world is NULL");
    require(added_count == 0 || added != nullptr, "added is NULL");
    require(removed_count == 0 || removed != nullptr, "removed is NULL");
    std::vector<Tile> tiles;
    tiles.reserve(added_count);
    for (std::size_t k = 0; k < added_count; ++k) {
      require(added[k].mesh != nullptr, "added tile " + std::to_string(added[k].id) + " (row " + std::to_string(k) + "): mesh is NULL");
      tiles.push_back(Tile{added[k].id, Vec3d(added[k].origin[0], added[k].origin[1], added[k].origin[2]), added[k].layers,
                           added[k].mesh->world});
    }
    try {
      *out = new cs_world{world->world.streamed(tiles, std::span(removed, removed_count))};
    } catch (const WorldError& e) {
      throw std::invalid_argument(e.what());  // a tile is an argument, as a pose is
    }
  });
}

int cs_world_tile_of(const cs_world* world, uint32_t triangle, uint32_t* id) {
  const Tile* t = world ? world->world.tile_of(triangle) : nullptr;
  if (t && id) *id = t->id;
  return t != nullptr;
}

void cs_world_free(cs_world* world) { delete world; }

size_t cs_world_triangle_count(const cs_world* world) { return world ? world->world.triangle_count() : 0; }

void cs_sweep_args_default(cs_sweep_args* args) {
  if (args) *args = {nullptr, 0, nullptr, nullptr, CS_SHAPE_CAPSULE, 0, CS_PATH_SIMD, CS_ALL_LAYERS, 0, 0};
}

int cs_sweep(const cs_world* world, const cs_sweep_args* args) {
  return guarded("cs_sweep", [&] {
    check_batch(world, args, args ? args->queries : nullptr, args ? args->hits : nullptr, args ? args->count : 0);
    const cs_sweep_args& a = *args;
    require(a.shape <= CS_SHAPE_ELLIPSOID, "shape must be 0 (capsules) or 1 (ellipsoids), got " + std::to_string(a.shape));
    require(a.masked <= 1, "masked must be 0 or 1, got " + std::to_string(a.masked));
    require(a.path <= CS_PATH_BRUTE, "unknown path " + std::to_string(a.path));
    require(a.reserved == 0, "cs_sweep_args.reserved must be 0");
    const SweepOptions options = batch_options(a.layer_mask, a.threads, SweepPath(a.path));
    if (a.shape == CS_SHAPE_CAPSULE) {
      if (a.masked) sweep_capsules<cs_masked_sweep_query>(world, a, options);
      else sweep_capsules<cs_sweep_query>(world, a, options);
    } else {
      if (a.masked) sweep_ellipsoids<cs_masked_ellipsoid_query>(world, a, options);
      else sweep_ellipsoids<cs_ellipsoid_query>(world, a, options);
    }
  });
}

void cs_move_settings_default(cs_move_settings* settings) {
  if (settings) *settings = records::record(MoveSettings{});
}

void cs_validate_settings_default(cs_validate_settings* settings) {
  if (settings) *settings = records::record(ValidateSettings{});
}

void cs_move_args_default(cs_move_args* args) {
  if (args) *args = {nullptr, 0, nullptr, nullptr, CS_ALL_LAYERS, 0};
}

struct cs_move_cache {
  capsweep::MoveCache cache;
};

namespace {

// cs_move and cs_move_kept: `cache` null for cs_move.
void move_batch(const cs_world* world, const cs_move_args* args, cs_move_cache* cache) {
  check_batch(world, args, args ? args->agents : nullptr, args ? args->results : nullptr, args ? args->count : 0);
  const cs_move_args& a = *args;
  const SweepOptions options = batch_options(a.layer_mask, a.threads);
  std::vector<Agent> in(a.count);
  for (std::size_t i = 0; i < a.count; ++i) {
    const cs_agent& agent = a.agents[i];
    require(agent.shape <= CS_SHAPE_ELLIPSOID,
            "agent " + std::to_string(i) + ": shape must be 0 (a capsule) or 1 (an ellipsoid)");
    require(agent.grounded <= 1, "agent " + std::to_string(i) + ": grounded must be 0 or 1");
    require(agent.reserved[0] == 0 && agent.reserved[1] == 0, "agent " + std::to_string(i) + ": reserved bytes must be 0");
    in[i] = records::agent(agent);
  }
  std::vector<MoveResult> out(a.count);
  std::vector<Status> status(a.count);
  const MoveSettings settings = a.settings ? records::settings(*a.settings) : MoveSettings{};
  if (cache) {
    world->world.move(in, settings, out, cache->cache, options, {}, status);
  } else {
    world->world.move(in, settings, out, options, {}, status);
  }
  for (std::size_t i = 0; i < a.count; ++i) a.results[i] = records::record(out[i], status[i]);
}

}  // namespace

int cs_move(const cs_world* world, const cs_move_args* args) {
  return guarded("cs_move", [&] { move_batch(world, args, nullptr); });
}

int cs_move_cache_create(cs_move_cache** out) {
  return guarded("cs_move_cache_create", [&] {
    if (out) *out = nullptr;
    require(out != nullptr, "out is NULL");
    *out = new cs_move_cache{};
  });
}

void cs_move_cache_free(cs_move_cache* cache) { delete cache; }

int cs_move_kept(const cs_world* world, const cs_move_args* args, cs_move_cache* cache) {
  return guarded("cs_move_kept", [&] {
    require(cache != nullptr, "cache is NULL (cs_move_cache_create makes one)");
    move_batch(world, args, cache);
  });
}

void cs_validate_args_default(cs_validate_args* args) {
  if (args) *args = {nullptr, 0, nullptr, nullptr, CS_ALL_LAYERS, 0};
}

int cs_validate(const cs_world* world, const cs_validate_args* args) {
  return guarded("cs_validate", [&] {
    check_batch(world, args, args ? args->moves : nullptr, args ? args->verdicts : nullptr, args ? args->count : 0);
    const cs_validate_args& a = *args;
    const SweepOptions options = batch_options(a.layer_mask, a.threads);
    std::vector<ClaimedMove> in(a.count);
    for (std::size_t i = 0; i < a.count; ++i) {
      // The record is a CWSQ version 8 record: refused here as the file reader refuses it (a
      // mask of 0 as World refuses it: the move's status).
      const cs_claimed_move& m = a.moves[i];
      require(m.grounded <= 1, "move " + std::to_string(i) + ": grounded must be 0 or 1");
      require(m.shape <= CS_SHAPE_ELLIPSOID, "move " + std::to_string(i) + ": shape must be 0 (a capsule) or 1 (an ellipsoid)");
      require(m.reserved[0] == 0 && m.reserved[1] == 0, "move " + std::to_string(i) + ": reserved bytes must be 0");
      in[i] = records::claimed_move(m);
    }
    require(!a.settings || a.settings->rule <= CS_RULE_STRAIGHT_SEGMENT,
            "settings: rule must be 0 (CS_RULE_TICK_END) or 1 (CS_RULE_STRAIGHT_SEGMENT)");
    std::vector<Verdict> out(a.count);
    world->world.validate(in, a.settings ? records::settings(*a.settings) : ValidateSettings{}, out, options);
    for (std::size_t i = 0; i < a.count; ++i) a.verdicts[i] = records::record(out[i]);
  });
}

void cs_overlap_args_default(cs_overlap_args* args) {
  if (args) *args = {nullptr, 0, nullptr, 0.f, CS_ALL_LAYERS, 0, 0};
}

int cs_overlap(const cs_world* world, const cs_overlap_args* args) {
  return guarded("cs_overlap", [&] {
    check_batch(world, args, args ? args->capsules : nullptr, args ? args->results : nullptr, args ? args->count : 0);
    const cs_overlap_args& a = *args;
    require(a.reserved == 0, "cs_overlap_args.reserved must be 0");
    const SweepOptions options = batch_options(a.layer_mask, a.threads);
    std::vector<Capsule> in(a.count);
    for (std::size_t i = 0; i < a.count; ++i) in[i] = records::capsule(a.capsules[i]);
    std::vector<OverlapResult> out(a.count);
    std::vector<Status> status(a.count);
    world->world.overlap(in, a.clearance, out, options, status);
    for (std::size_t i = 0; i < a.count; ++i) a.results[i] = records::record(out[i], status[i]);
  });
}

}  // extern "C"
