// The C API's calls as its tests make them: a handle freed at the end of its scope, and each
// batch's arguments from its *_default call with the records and answers given.
#pragma once

#include <capsweep/capsweep_c_io.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace capi_test {

inline const std::string kDungeon = std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj";

struct WorldHandle {
  cs_world* w = nullptr;
  ~WorldHandle() { cs_world_free(w); }
};

inline std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "capi_" + std::to_string(::getpid()) + "_" + name;
}

// The arguments of each batch, from its *_default call, with the records and answers given.
inline cs_sweep_args sweep_args(const void* queries, std::size_t count, cs_sweep_hit* hits,
                                std::uint32_t path = CS_PATH_SIMD, int threads = 0, std::uint8_t* status = nullptr) {
  cs_sweep_args a;
  cs_sweep_args_default(&a);
  a.queries = queries, a.count = count, a.hits = hits, a.path = path, a.threads = threads, a.status = status;
  return a;
}
inline cs_sweep_args ellipsoid_args(const void* queries, std::size_t count, cs_sweep_hit* hits,
                                    std::uint32_t path = CS_PATH_SIMD, int threads = 0,
                                    std::uint8_t* status = nullptr) {
  cs_sweep_args a = sweep_args(queries, count, hits, path, threads, status);
  a.shape = CS_SHAPE_ELLIPSOID;
  return a;
}
inline cs_move_args move_args(const cs_agent* agents, std::size_t count, cs_move_result* results, int threads = 0) {
  cs_move_args a;
  cs_move_args_default(&a);
  a.agents = agents, a.count = count, a.results = results, a.threads = threads;
  return a;
}
inline cs_validate_args validate_args(const cs_claimed_move* moves, std::size_t count,
                                      const cs_validate_settings* settings, cs_verdict* verdicts, int threads = 0) {
  cs_validate_args a;
  cs_validate_args_default(&a);
  a.moves = moves, a.count = count, a.settings = settings, a.verdicts = verdicts, a.threads = threads;
  return a;
}
inline cs_overlap_args overlap_args(const cs_capsule* capsules, std::size_t count, float clearance,
                                    cs_overlap_result* results, int threads = 0) {
  cs_overlap_args a;
  cs_overlap_args_default(&a);
  a.capsules = capsules, a.count = count, a.clearance = clearance, a.results = results, a.threads = threads;
  return a;
}
inline int create(const float* vertices, std::size_t vertex_count, const uint32_t* indices, std::size_t triangle_count,
                  cs_world** out, const uint32_t* layers = nullptr, const cs_heightfield* terrain = nullptr) {
  const cs_world_desc desc{vertices, vertex_count, indices, triangle_count, layers, terrain};
  return cs_world_create(&desc, out);
}
inline cs_load_options scene_options(float scale, const char* layer_table) {
  cs_load_options o;
  cs_load_options_default(&o);
  o.scale = scale;
  o.layer_table = layer_table;
  return o;
}

}  // namespace capi_test
