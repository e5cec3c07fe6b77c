// The C API over World and io: every entry point catches everything, so no C++ exception
// crosses the boundary; the message of a failure is kept per thread for cs_last_error().
#include <capsweep/capsweep_c.h>

#include <cmath>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/heightmap.h>
#include <capsweep/scene.h>
#include <capsweep/snapshot.h>
#include <capsweep/version.h>
#include <capsweep/world.h>
#include <capsweep/world_file.h>

#include "world/sweep_batch.h"
#include "capi/records.h"
#include "capi/world_handle.h"

namespace {

using namespace capsweep;

// Pinned sizes (the structs with pointers: on 64-bit targets).
static_assert(sizeof(void*) != 8 || (sizeof(cs_heightfield) == 64 && sizeof(cs_heightmap_options) == 48));
static_assert(CS_MAX_THREADS == kMaxThreads);

thread_local std::string last_error;

int fail(int code, std::string message) {
  last_error = std::move(message);
  return code;
}

// Runs `body`, turning every exception into an error code and a message.
template <class Body>
int guarded(const char* function, Body&& body) {
  try {
    last_error.clear();
    body();
    return CS_OK;
  } catch (const std::bad_alloc&) {
    return fail(CS_ERROR_MEMORY, std::string(function) + ": out of memory");
  } catch (const SceneError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const SnapshotError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const HeightmapError& e) {
    return fail(CS_ERROR_FILE, e.what());
  } catch (const WorldError& e) {
    return fail(CS_ERROR_MESH, std::string(function) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    return fail(CS_ERROR_ARGUMENT, std::string(function) + ": " + e.what());
  } catch (const std::exception& e) {
    return fail(CS_ERROR_INTERNAL, std::string(function) + ": " + e.what());
  } catch (...) {
    return fail(CS_ERROR_INTERNAL, std::string(function) + ": unknown error");
  }
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

// Where every call that makes a world starts: *out stays NULL unless the world is made.
void clear_out(cs_world** out) {
  require(out != nullptr, "out is NULL");
  *out = nullptr;
}

// A batch's options on a handle: what cs_world_with_layers set it to see.
SweepOptions layered(SweepOptions options, const cs_world* world) {
  options.layers = world->layers;
  return options;
}

// The batch shape every call shares: a world, `count` inputs and outputs (NULL only when count
// is 0). The thread count is checked where the batch runs (World's entry points), as for C++.
void check_batch(const cs_world* world, const void* in, const void* out, std::size_t count) {
  require(world != nullptr, "world is NULL");
  require(count == 0 || (in != nullptr && out != nullptr), "inputs or outputs are NULL");
}

// cs_sweep_ex and cs_sweep_masked: records are read and written in place, one at a time, with
// no copy of the batch.
template <class Record>
int sweep_records(const char* function, const cs_world* world, const Record* queries, std::size_t count,
                  cs_sweep_hit* hits, int path, int threads, uint8_t* status) {
  return guarded(function, [&] {
    check_batch(world, queries, hits, count);
    require(path >= CS_PATH_SIMD && path <= CS_PATH_BRUTE, "unknown path " + std::to_string(path));
    sweep_batch(
        world->world, count, [&](std::size_t i) { return records::query(queries[i]); },
        [&](std::size_t i, const SweepHit& hit, Status s) {
          hits[i] = records::record(hit);
          if (status) status[i] = std::uint8_t(s);
        },
        layered(on_path(SweepPath(path), threads), world));
  });
}

template <class Record>
int sweep_ellipsoid_records(const char* function, const cs_world* world, const Record* queries, std::size_t count,
                            cs_sweep_hit* hits, int path, int threads, uint8_t* status) {
  return guarded(function, [&] {
    check_batch(world, queries, hits, count);
    require(path >= CS_PATH_SIMD && path <= CS_PATH_BRUTE, "unknown path " + std::to_string(path));
    std::vector<SweepEllipsoidQuery> in(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = records::query(queries[i]);
    std::vector<SweepHit> out(count);
    std::vector<Status> why(count);
    world->world.sweep_ellipsoid(in, out, layered(on_path(SweepPath(path), threads), world), why);
    for (std::size_t i = 0; i < count; ++i) {
      hits[i] = records::record(out[i]);
      if (status) status[i] = std::uint8_t(why[i]);
    }
  });
}

}  // namespace

extern "C" {

const char* cs_version(void) { return CAPSWEEP_VERSION_STRING; }

const char* cs_last_error(void) { return last_error.c_str(); }

int cs_world_load(const char* path, cs_world** out) { return cs_world_load_scene(path, 1.f, 0, out); }

int cs_world_load_scene(const char* path, float scale, int z_up, cs_world** out) {
  return cs_world_load_layered(path, scale, z_up, nullptr, out);
}

int cs_world_load_layered(const char* path, float scale, int z_up, const char* layer_table, cs_world** out) {
  return guarded("cs_world_load", [&] {
    clear_out(out);
    require(path != nullptr, "path is NULL");
    const SceneOptions options{scale, z_up != 0, layer_table ? layer_table : ""};
    if (looks_like_snapshot(path)) {
      require(scale == 1.f && z_up == 0 && options.layers.empty(),
              std::string(path) + ": scene options do not apply to a snapshot");
    }
    *out = new cs_world{open_world(path, options).world};
  });
}

int cs_world_with_layers(const cs_world* world, uint32_t layers, cs_world** out) {
  return guarded("cs_world_with_layers", [&] {
    clear_out(out);
    require(world != nullptr, "world is NULL");
    require(layers != 0, "a mask of no layer sees nothing: name at least one layer");
    *out = new cs_world{world->world, layers};
  });
}

int cs_world_from_triangles(const float* vertices, size_t vertex_count, const uint32_t* indices,
                            size_t triangle_count, cs_world** out) {
  return cs_world_from_layered_triangles(vertices, vertex_count, indices, triangle_count, nullptr, out);
}

int cs_world_from_layered_triangles(const float* vertices, size_t vertex_count, const uint32_t* indices,
                                    size_t triangle_count, const uint32_t* layers, cs_world** out) {
  return guarded("cs_world_from_triangles", [&] {
    clear_out(out);
    require(triangle_count > 0, "no triangles");
    require(vertices != nullptr && indices != nullptr, "vertices or indices are NULL");
    std::vector<Triangle> triangles(triangle_count);
    for (std::size_t t = 0; t < triangle_count; ++t) {
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t v = indices[3 * t + k];
        require(v < vertex_count, "triangle " + std::to_string(t) + " names vertex " + std::to_string(v) + " of " +
                                      std::to_string(vertex_count));
        triangles[t].v[k] = {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
      }
    }
    std::vector<std::uint32_t> masks;
    if (layers) masks.assign(layers, layers + triangle_count);
    *out = new cs_world{World(std::move(triangles), std::move(masks))};
  });
}

int cs_world_from_heightfield(const cs_heightfield* terrain, const float* vertices, size_t vertex_count,
                              const uint32_t* indices, size_t triangle_count, const uint32_t* layers, cs_world** out) {
  return guarded("cs_world_from_heightfield", [&] {
    clear_out(out);
    require(terrain != nullptr, "terrain is NULL");
    require(terrain->reserved == 0, "cs_heightfield.reserved must be 0");
    require(triangle_count == 0 || (vertices != nullptr && indices != nullptr), "vertices or indices are NULL");
    require((terrain->heights != nullptr) != (terrain->samples != nullptr),
            "give the heights either as floats or as 16-bit samples (exactly one of the two)");
    Heightfield t;
    t.columns = terrain->columns;
    t.rows = terrain->rows;
    t.cell_x = terrain->cell_x;
    t.cell_z = terrain->cell_z;
    t.origin = {terrain->origin[0], terrain->origin[1], terrain->origin[2]};
    t.height_scale = terrain->height_scale;
    t.layers = terrain->layers;
    require(t.columns >= 2 && t.rows >= 2, "heightfield: needs at least 2 x 2 samples, got " +
                                                std::to_string(t.columns) + " x " + std::to_string(t.rows));
    const std::size_t n = std::size_t(t.columns) * t.rows;
    if (terrain->heights) t.heights.assign(terrain->heights, terrain->heights + n);
    if (terrain->samples) t.samples.assign(terrain->samples, terrain->samples + n);
    if (terrain->holes) t.holes.assign(terrain->holes, terrain->holes + heightfield_cells(t));
    std::vector<Triangle> triangles(triangle_count);
    for (std::size_t i = 0; i < triangle_count; ++i) {
      for (int k = 0; k < 3; ++k) {
        const std::uint32_t v = indices[3 * i + k];
        require(v < vertex_count, "triangle " + std::to_string(i) + " names vertex " + std::to_string(v) + " of " +
                                      std::to_string(vertex_count));
        triangles[i].v[k] = {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
      }
    }
    std::vector<std::uint32_t> masks;
    if (layers && triangle_count > 0) masks.assign(layers, layers + triangle_count);
    *out = new cs_world{World(std::move(t), std::move(triangles), std::move(masks))};
  });
}

int cs_world_load_heightmap(const char* path, const cs_heightmap_options* options, cs_world** out) {
  return guarded("cs_world_load_heightmap", [&] {
    clear_out(out);
    require(path != nullptr, "path is NULL");
    HeightmapOptions o;
    if (options) {
      require(options->reserved == 0, "cs_heightmap_options.reserved must be 0");
      o.cell_x = options->cell_x;
      o.cell_z = options->cell_z;
      o.height_scale = options->height_scale;
      o.origin = {options->origin[0], options->origin[1], options->origin[2]};
      o.columns = options->columns;
      o.rows = options->rows;
      o.holes = options->holes ? options->holes : "";
      o.layers = options->layers;
    }
    *out = new cs_world{World(load_heightmap(path, o))};
  });
}

void cs_world_free(cs_world* world) { delete world; }

size_t cs_world_triangle_count(const cs_world* world) { return world ? world->world.triangle_count() : 0; }

int cs_sweep(const cs_world* world, const cs_sweep_query* queries, size_t count, cs_sweep_hit* hits, int threads) {
  return cs_sweep_ex(world, queries, count, hits, CS_PATH_SIMD, threads, nullptr);
}

int cs_sweep_ex(const cs_world* world, const cs_sweep_query* queries, size_t count, cs_sweep_hit* hits, int path,
                int threads, uint8_t* status) {
  return sweep_records("cs_sweep", world, queries, count, hits, path, threads, status);
}

int cs_sweep_masked(const cs_world* world, const cs_masked_sweep_query* queries, size_t count, cs_sweep_hit* hits,
                    int path, int threads, uint8_t* status) {
  return sweep_records("cs_sweep_masked", world, queries, count, hits, path, threads, status);
}

int cs_sweep_ellipsoid(const cs_world* world, const cs_ellipsoid_query* queries, size_t count, cs_sweep_hit* hits,
                       int path, int threads, uint8_t* status) {
  return sweep_ellipsoid_records("cs_sweep_ellipsoid", world, queries, count, hits, path, threads, status);
}

int cs_sweep_ellipsoid_masked(const cs_world* world, const cs_masked_ellipsoid_query* queries, size_t count,
                              cs_sweep_hit* hits, int path, int threads, uint8_t* status) {
  return sweep_ellipsoid_records("cs_sweep_ellipsoid_masked", world, queries, count, hits, path, threads, status);
}

void cs_move_settings_default(cs_move_settings* settings) {
  if (settings) *settings = records::record(MoveSettings{});
}

void cs_validate_settings_default(cs_validate_settings* settings) {
  if (settings) *settings = records::record(ValidateSettings{});
}

int cs_move(const cs_world* world, const cs_agent* agents, size_t count, const cs_move_settings* settings,
            cs_move_result* results, int threads) {
  return guarded("cs_move", [&] {
    check_batch(world, agents, results, count);
    std::vector<Agent> in(count);
    for (std::size_t i = 0; i < count; ++i) {
      require(agents[i].shape <= CS_SHAPE_ELLIPSOID,
              "agent " + std::to_string(i) + ": shape must be 0 (a capsule) or 1 (an ellipsoid)");
      require(agents[i].grounded <= 1, "agent " + std::to_string(i) + ": grounded must be 0 or 1");
      require(agents[i].reserved[0] == 0 && agents[i].reserved[1] == 0,
              "agent " + std::to_string(i) + ": reserved bytes must be 0");
      in[i] = records::agent(agents[i]);
    }
    std::vector<MoveResult> out(count);
    std::vector<Status> status(count);
    world->world.move(in, settings ? records::settings(*settings) : MoveSettings{}, out, layered(on_path(SweepPath::simd, threads), world), {},
                      status);
    for (std::size_t i = 0; i < count; ++i) results[i] = records::record(out[i], status[i]);
  });
}

int cs_validate(const cs_world* world, const cs_claimed_move* moves, size_t count, const cs_validate_settings* settings,
                cs_verdict* verdicts, int threads) {
  return guarded("cs_validate", [&] {
    check_batch(world, moves, verdicts, count);
    std::vector<ClaimedMove> in(count);
    for (std::size_t i = 0; i < count; ++i) {
      // The record is a CWSQ version 7 record: refused here as the file reader refuses it (but
      // for a mask of 0, which in C means every layer).
      const cs_claimed_move& m = moves[i];
      require(m.grounded <= 1, "move " + std::to_string(i) + ": grounded must be 0 or 1");
      require(m.shape <= CS_SHAPE_ELLIPSOID, "move " + std::to_string(i) + ": shape must be 0 (a capsule) or 1 (an ellipsoid)");
      require(m.reserved[0] == 0 && m.reserved[1] == 0, "move " + std::to_string(i) + ": reserved bytes must be 0");
      in[i] = records::claimed_move(m);
    }
    std::vector<Verdict> out(count);
    world->world.validate(in, settings ? records::settings(*settings) : ValidateSettings{}, out,
                          layered(on_path(SweepPath::simd, threads), world));
    for (std::size_t i = 0; i < count; ++i) verdicts[i] = records::record(out[i]);
  });
}

int cs_overlap(const cs_world* world, const cs_capsule* capsules, size_t count, float clearance,
               cs_overlap_result* results, int threads) {
  return guarded("cs_overlap", [&] {
    check_batch(world, capsules, results, count);
    std::vector<Capsule> in(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = records::capsule(capsules[i]);
    std::vector<OverlapResult> out(count);
    std::vector<Status> status(count);
    world->world.overlap(in, clearance, out, layered(on_path(SweepPath::simd, threads), world), status);
    for (std::size_t i = 0; i < count; ++i) results[i] = records::record(out[i], status[i]);
  });
}

}  // extern "C"
