// The C API answers exactly what the C++ API answers, record for record, on every kind of
// request, path and world (meshes, layers, heightfields, files).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <capsweep/capsweep_c_io.h>
#include <capsweep/files.h>
#include <capsweep/world.h>

#include "capi/records.h"
#include "tests/capi/calls.h"
#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/support/terrains.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/heightmaps.h"
#include "tools/workloads.h"
#include "io/query_format.h"

namespace {

using namespace capsweep;
using namespace capi_test;

float face_normal_y(const Triangle& t) {
  const Vec3d v0 = to_double(t.v[0]);
  const Vec3d n = cross(to_double(t.v[1]) - v0, to_double(t.v[2]) - v0);
  return length(n) > 0 ? float(n.y / length(n)) : 0.f;
}

// cs_move_kept: a crowd's ticks through one cache give cs_move's records, bit for bit, as the
// agents walk on from their results; a NULL cache or out is refused by name.
TEST(CApi, MovesWithAKeptCacheAsWithout) {
  WorldHandle h;
  ASSERT_EQ(cs_world_import(kDungeon.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  const World world(scenes::load("recast_dungeon.obj"));
  CrowdSettings cs;
  cs.agents = 300;
  cs.seed = 9;
  Crowd crowd(world, cs);
  cs_move_cache* cache = nullptr;
  ASSERT_EQ(cs_move_cache_create(&cache), CS_OK) << cs_last_error();
  ASSERT_NE(cache, nullptr);
  for (int t = 0; t < 30; ++t) {
    crowd.tick();
    std::vector<cs_agent> agents;
    for (const Agent& a : crowd.previous()) agents.push_back(records::record(a));
    std::vector<cs_move_result> kept(agents.size()), plain(agents.size());
    const cs_move_args with = move_args(agents.data(), agents.size(), kept.data());
    const cs_move_args without = move_args(agents.data(), agents.size(), plain.data());
    ASSERT_EQ(cs_move_kept(h.w, &with, cache), CS_OK) << cs_last_error();
    ASSERT_EQ(cs_move(h.w, &without), CS_OK) << cs_last_error();
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ASSERT_EQ(std::memcmp(&kept[i], &plain[i], sizeof kept[i]), 0) << "agent " << i << " at tick " << t;
    }
  }
  std::vector<cs_move_result> none(1);
  const cs_move_args one = move_args(nullptr, 0, none.data());
  EXPECT_EQ(cs_move_kept(h.w, &one, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("cs_move_kept: cache is NULL"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_move_cache_create(nullptr), CS_ERROR_ARGUMENT);
  cs_move_cache_free(cache);
  cs_move_cache_free(nullptr);
}

TEST(CApi, LoadsAFileAndAnswersEveryKindOfRequestAsTheCppApi) {
  WorldHandle h;
  ASSERT_EQ(cs_world_import(kDungeon.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  const World world(scenes::load("recast_dungeon.obj"));
  ASSERT_EQ(cs_world_triangle_count(h.w), world.triangle_count());
  const batches::Batches b = batches::make(world, 3000, 5);

  // Sweeps, on every path: the C records are the C++ answers in CWSR form, with the status.
  std::vector<cs_sweep_query> queries;
  for (const SweepQuery& q : b.sweeps) queries.push_back(records::record(q));
  queries[7].capsule.radius = NAN;  // a refused query among them
  std::vector<SweepQuery> cpp_queries = b.sweeps;
  cpp_queries[7].capsule.radius = NAN;
  for (int path : {CS_PATH_SIMD, CS_PATH_SCALAR, CS_PATH_BRUTE}) {
    std::vector<cs_sweep_hit> hits(queries.size());
    std::vector<std::uint8_t> status(queries.size(), 99);
    const cs_sweep_args args = sweep_args(queries.data(), queries.size(), hits.data(), path, 0, status.data());
    ASSERT_EQ(cs_sweep(h.w, &args), CS_OK);
    std::vector<SweepHit> expected(queries.size());
    std::vector<Status> expected_status(queries.size());
    world.sweep(cpp_queries, expected, on_path(SweepPath(path), 0), expected_status);
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const cs_sweep_hit want = records::record(expected[i]);
      ASSERT_EQ(std::memcmp(&hits[i], &want, sizeof want), 0) << "path " << path << ", query " << i;
      ASSERT_EQ(status[i], std::uint8_t(expected_status[i])) << i;
    }
    EXPECT_EQ(status[7], CS_STATUS_NON_FINITE_CAPSULE);
    EXPECT_EQ(hits[7].hit, CS_MISS);
  }

  // Moves (with a bad agent), validation and overlaps.
  std::vector<cs_agent> agents;
  for (const Agent& a : b.agents) {
    agents.push_back({records::record(a.capsule), {a.displacement.x, a.displacement.y, a.displacement.z},
                      a.vertical_speed, a.id, CS_ALL_LAYERS, 0 /* a capsule */, 0 /* probe */, {0, 0}, {}, 0});
  }
  std::vector<Agent> cpp_agents = b.agents;
  agents[3].displacement[0] = INFINITY;
  cpp_agents[3].displacement.x = INFINITY;
  std::vector<cs_move_result> moved(agents.size());
  const cs_move_args margs = move_args(agents.data(), agents.size(), moved.data());
  ASSERT_EQ(cs_move(h.w, &margs), CS_OK) << cs_last_error();
  std::vector<MoveResult> expected_moves(agents.size());
  std::vector<Status> move_status(agents.size());
  world.move(cpp_agents, MoveSettings{}, expected_moves, {}, {}, move_status);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const cs_move_result want = records::record(expected_moves[i], move_status[i]);
    ASSERT_EQ(std::memcmp(&moved[i], &want, sizeof want), 0) << "agent " << i;
  }
  EXPECT_EQ(moved[3].status, CS_STATUS_NON_FINITE_MOTION);

  std::vector<cs_claimed_move> claims;
  std::vector<ClaimedMove> cpp_claims = b.claims;
  for (std::size_t i = 0; i < cpp_claims.size(); ++i) {  // falling, rising, resting, grounded or not
    cpp_claims[i].vertical_speed = float(int(i % 5) - 2) * 3.f;
    cpp_claims[i].grounded = i % 2 == 0;
  }
  for (const ClaimedMove& m : cpp_claims) claims.push_back(records::record(m));
  cs_validate_settings vs;
  cs_validate_settings_default(&vs);
  vs.max_speed = 7.f;
  vs.jump_speed = 4.f;
  ValidateSettings cpp_vs;
  cpp_vs.max_speed = 7.f;
  cpp_vs.jump_speed = 4.f;
  std::vector<cs_verdict> verdicts(claims.size());
  const cs_validate_args vargs = validate_args(claims.data(), claims.size(), &vs, verdicts.data(), 1);
  ASSERT_EQ(cs_validate(h.w, &vargs), CS_OK) << cs_last_error();
  {  // a grounded flag other than 0 or 1, or a reserved byte set, is refused naming the move
    std::vector<cs_claimed_move> bad = claims;
    const cs_validate_args bad_args = validate_args(bad.data(), bad.size(), &vs, verdicts.data(), 1);
    bad[2].grounded = 2;
    EXPECT_EQ(cs_validate(h.w, &bad_args), CS_ERROR_ARGUMENT);
    EXPECT_STREQ(cs_last_error(), "cs_validate: move 2: grounded must be 0 or 1");
    bad[2].grounded = 0;
    bad[3].reserved[1] = 7;
    EXPECT_EQ(cs_validate(h.w, &bad_args), CS_ERROR_ARGUMENT);
    EXPECT_STREQ(cs_last_error(), "cs_validate: move 3: reserved bytes must be 0");
    ASSERT_EQ(cs_validate(h.w, &vargs), CS_OK) << cs_last_error();
  }
  std::vector<Verdict> expected_verdicts(claims.size());
  world.validate(cpp_claims, cpp_vs, expected_verdicts);
  int kinds[5] = {};
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const cs_verdict want = records::record(expected_verdicts[i]);
    ASSERT_EQ(std::memcmp(&verdicts[i], &want, sizeof want), 0) << "claim " << i;
    ++kinds[verdicts[i].kind];
  }
  EXPECT_GT(kinds[CS_VERDICT_OK], 0);
  EXPECT_GT(kinds[CS_VERDICT_BLOCKED], 0);
  EXPECT_GT(kinds[CS_VERDICT_TOO_FAST], 0);
  {  // the other rule, with ground triangles carried on some claims: the same bytes again
    for (std::size_t i = 0; i < cpp_claims.size(); i += 3) {
      cpp_claims[i].ground_triangle = std::uint32_t(i % world.triangle_count());
      claims[i].ground_triangle = cpp_claims[i].ground_triangle;
    }
    vs.rule = CS_RULE_STRAIGHT_SEGMENT;
    cpp_vs.rule = ClaimRule::straight_segment;
    ASSERT_EQ(cs_validate(h.w, &vargs), CS_OK) << cs_last_error();
    world.validate(cpp_claims, cpp_vs, expected_verdicts);
    int reasons[CS_REASON_BAD_INPUT + 1] = {};
    for (std::size_t i = 0; i < claims.size(); ++i) {
      const cs_verdict want = records::record(expected_verdicts[i]);
      ASSERT_EQ(std::memcmp(&verdicts[i], &want, sizeof want), 0) << "straight segment claim " << i;
      ++reasons[verdicts[i].reason];
    }
    EXPECT_GT(reasons[CS_REASON_NONE], 0);
    EXPECT_GT(reasons[CS_REASON_NOCLIP], 0);
    vs.rule = 2;  // no such rule
    EXPECT_EQ(cs_validate(h.w, &vargs), CS_ERROR_ARGUMENT);
    EXPECT_STREQ(cs_last_error(), "cs_validate: settings: rule must be 0 (CS_RULE_TICK_END) or 1 (CS_RULE_STRAIGHT_SEGMENT)");
  }

  std::vector<cs_capsule> capsules;
  for (const Capsule& c : b.capsules) capsules.push_back(records::record(c));
  std::vector<cs_overlap_result> over(capsules.size());
  const cs_overlap_args oargs = overlap_args(capsules.data(), capsules.size(), 0.05f, over.data());
  ASSERT_EQ(cs_overlap(h.w, &oargs), CS_OK) << cs_last_error();
  std::vector<OverlapResult> expected_over(capsules.size());
  std::vector<Status> over_status(capsules.size());
  world.overlap(b.capsules, 0.05f, expected_over, {}, over_status);
  int overlapping = 0;
  for (std::size_t i = 0; i < capsules.size(); ++i) {
    const cs_overlap_result want = records::record(expected_over[i], over_status[i]);
    ASSERT_EQ(std::memcmp(&over[i], &want, sizeof want), 0) << "capsule " << i;
    overlapping += over[i].overlapping;
  }
  EXPECT_GT(overlapping, 0);
}

TEST(CApi, SweepRecordsAreTheCwsrBytesOfWriteResults) {
  const World world(scenes::load("recast_dungeon.obj"));
  const batches::Batches b = batches::make(world, 1000, 9);
  std::vector<SweepHit> hits(b.sweeps.size());
  world.sweep(b.sweeps, hits);
  const std::string path = temp_path("r.cwsr");
  write_results(path, hits);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_EQ(bytes.size(), kHeaderBytes + hits.size() * sizeof(cs_sweep_hit));
  for (std::size_t i = 0; i < hits.size(); ++i) {
    const cs_sweep_hit r = records::record(hits[i]);
    ASSERT_EQ(std::memcmp(bytes.data() + kHeaderBytes + i * sizeof r, &r, sizeof r), 0) << i;
    ASSERT_TRUE(identical(records::hit(r), hits[i]) || !hits[i].hit) << i;  // and back
  }
  std::remove(path.c_str());
}

TEST(CApi, EllipsoidsAreTheCppAnswersOnEveryPath) {
  WorldHandle h;
  ASSERT_EQ(cs_world_import(kDungeon.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  const World world(scenes::load("recast_dungeon.obj"));
  std::vector<SweepEllipsoidQuery> cpp = make_ellipsoid_workload(world, Workload::long_range, 2000, 4);
  const std::vector<SweepEllipsoidQuery> walking = make_ellipsoid_workload(world, Workload::validate, 2000, 5);
  cpp.insert(cpp.end(), walking.begin(), walking.end());
  cpp[9].ellipsoid.radii.x = -1;  // refused
  std::vector<cs_ellipsoid_query> queries;
  for (const SweepEllipsoidQuery& q : cpp) {
    const Ellipsoid& e = q.ellipsoid;
    queries.push_back({{e.centre.x, e.centre.y, e.centre.z}, {e.radii.x, e.radii.y, e.radii.z}, {q.motion.x, q.motion.y, q.motion.z}});
  }
  std::vector<SweepHit> expected(cpp.size());
  std::vector<Status> expected_status(cpp.size());
  world.sweep_ellipsoid(cpp, expected, {}, expected_status);
  std::size_t hits = 0;
  for (int path : {CS_PATH_SIMD, CS_PATH_SCALAR, CS_PATH_BRUTE}) {
    std::vector<cs_sweep_hit> out(queries.size());
    std::vector<std::uint8_t> status(queries.size(), 99);
    const cs_sweep_args args = ellipsoid_args(queries.data(), queries.size(), out.data(), path, 1, status.data());
    ASSERT_EQ(cs_sweep(h.w, &args), CS_OK) << cs_last_error();
    hits = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const cs_sweep_hit want = records::record(expected[i]);
      ASSERT_EQ(std::memcmp(&out[i], &want, sizeof want), 0) << "path " << path << ", query " << i;
      ASSERT_EQ(status[i], std::uint8_t(expected_status[i])) << i;
      hits += out[i].hit != CS_MISS;
    }
    EXPECT_EQ(status[9], CS_STATUS_BAD_RADIUS);
  }
  EXPECT_GT(hits, queries.size() / 4);
  cs_sweep_hit one;
  const cs_sweep_args one_args = ellipsoid_args(queries.data(), 1, &one);
  EXPECT_EQ(cs_sweep(nullptr, &one_args), CS_ERROR_ARGUMENT);
  const cs_sweep_args bad_path = ellipsoid_args(queries.data(), 1, &one, 7);
  EXPECT_EQ(cs_sweep(h.w, &bad_path), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("unknown path 7"), std::string::npos) << cs_last_error();
}

// A batch's layer_mask hides the triangles on none of its layers, on every path, as
// SweepOptions::layers does in C++ (it replaces 0.5's views, cs_world_with_layers).
TEST(CApi, LayeredWorldsAndBatchMasksAnswerAsTheCppApi) {
  // A floor (layer 1) and a wall at x = 2 (layer 2).
  const float vertices[] = {-5, 0, -5, 5, 0, -5, 5, 0, 5, -5, 0, 5, 2, 0, -5, 2, 3, -5, 2, 3, 5, 2, 0, 5};
  const uint32_t indices[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7};
  const uint32_t layers[] = {1, 1, 2, 2};
  WorldHandle all;
  ASSERT_EQ(create(vertices, 8, indices, 4, &all.w, layers), CS_OK) << cs_last_error();
  const cs_sweep_query ray{{{0, 1, 0}, {0, 1, 0}, 0.f}, {4, 0, 0}};
  const cs_sweep_query drop{{{0, 2, 0}, {0, 2, 0}, 0.5f}, {0, -3, 0}};
  cs_sweep_hit hit;
  cs_sweep_args args = sweep_args(&ray, 1, &hit, CS_PATH_SIMD, 1);
  ASSERT_EQ(cs_sweep(all.w, &args), CS_OK);
  EXPECT_EQ(hit.hit, CS_HIT);
  EXPECT_EQ(hit.triangle >= 2, true);
  cs_sweep_args walls_hidden = args;
  walls_hidden.layer_mask = 1u;
  ASSERT_EQ(cs_sweep(all.w, &walls_hidden), CS_OK);
  EXPECT_EQ(hit.hit, CS_MISS) << "the wall is on layer 2";
  walls_hidden.queries = &drop;
  ASSERT_EQ(cs_sweep(all.w, &walls_hidden), CS_OK);
  EXPECT_EQ(hit.hit, CS_HIT) << "the floor is on layer 1";
  // The same answers as World with SweepOptions::layers, on every path.
  std::vector<Triangle> tris(4);
  for (int t = 0; t < 4; ++t) {
    for (int k = 0; k < 3; ++k) {
      const uint32_t v = indices[3 * t + k];
      tris[std::size_t(t)].v[k] = {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
    }
  }
  const World world(tris, std::vector<std::uint32_t>(layers, layers + 4));
  const std::vector<cs_sweep_query> queries = {ray, drop};
  for (int path : {CS_PATH_SIMD, CS_PATH_SCALAR, CS_PATH_BRUTE}) {
    std::vector<cs_sweep_hit> out(2);
    cs_sweep_args on_path_args = sweep_args(queries.data(), 2, out.data(), std::uint32_t(path));
    on_path_args.layer_mask = 1u;
    ASSERT_EQ(cs_sweep(all.w, &on_path_args), CS_OK);
    SweepOptions o = on_path(SweepPath(path));
    o.layers = 1u;
    std::vector<SweepHit> expected(2);
    world.sweep(std::vector<SweepQuery>{records::query(ray), records::query(drop)}, expected, o);
    for (int i = 0; i < 2; ++i) {
      const cs_sweep_hit want = records::record(expected[std::size_t(i)]);
      EXPECT_EQ(std::memcmp(&out[std::size_t(i)], &want, sizeof want), 0) << "path " << path << ", query " << i;
    }
  }
  // A batch mask of no layer, and a layer mask of 0 on a triangle, are refused.
  cs_sweep_args none_seen = args;
  none_seen.layer_mask = 0u;
  EXPECT_EQ(cs_sweep(all.w, &none_seen), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_sweep: layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  cs_world* none = nullptr;
  const uint32_t zero[] = {1, 0, 1, 1};
  EXPECT_EQ(create(vertices, 8, indices, 4, &none, zero), CS_ERROR_MESH);
  EXPECT_NE(std::string(cs_last_error()).find("triangle 1: its layer mask is 0"), std::string::npos) << cs_last_error();
  // From a file with a layer table.
  const std::string obj = temp_path("room.obj"), table = temp_path("layers.txt");
  std::ofstream(obj) << "v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 2 0 -5\nv 2 3 -5\nv 2 3 5\nv 2 0 5\n"
                        "g floor\nf 1 3 2\nf 1 4 3\ng wall\nf 5 6 7\nf 5 7 8\n";
  std::ofstream(table) << "wall 2\n";
  WorldHandle loaded;
  const cs_load_options with_table = scene_options(1.f, table.c_str());
  ASSERT_EQ(cs_world_import(obj.c_str(), &with_table, &loaded.w), CS_OK) << cs_last_error();
  walls_hidden.queries = &ray;
  ASSERT_EQ(cs_sweep(loaded.w, &walls_hidden), CS_OK);
  EXPECT_EQ(hit.hit, CS_MISS);
  ASSERT_EQ(cs_sweep(loaded.w, &args), CS_OK);
  EXPECT_EQ(hit.hit, CS_HIT);
  std::remove(obj.c_str());
  std::remove(table.c_str());
}

// Masks of each query, agent and claim: the C records carry them (0: none, refused per record as
// C++ refuses it), and the answers are the C++ API's, record for record, also in a batch whose
// layer_mask each one's narrows.
TEST(CApi, MasksOfQueriesAgentsAndClaimsAnswerAsTheCppApi) {
  const std::vector<Triangle> tris = scenes::load("recast_dungeon.obj");
  std::vector<std::uint32_t> layers(tris.size());
  for (std::size_t i = 0; i < tris.size(); ++i) layers[i] = face_normal_y(tris[i]) > 0.7f ? 1u : (i % 3 == 0 ? 4u : 2u);
  std::vector<float> vertices;
  std::vector<std::uint32_t> indices;
  for (const Triangle& t : tris) {
    for (const Vec3& v : t.v) {
      indices.push_back(std::uint32_t(vertices.size() / 3));
      vertices.insert(vertices.end(), {v.x, v.y, v.z});
    }
  }
  WorldHandle h;
  ASSERT_EQ(create(vertices.data(), vertices.size() / 3, indices.data(), tris.size(), &h.w, layers.data()), CS_OK)
      << cs_last_error();
  const World world(tris, layers);
  const batches::Batches b = batches::make(world, 2000, 9);
  const std::uint32_t masks[] = {0u, 1u, 2u, 4u, 1u | 4u, kAllLayers};  // 0: no layer, refused
  for (const std::uint32_t batch_mask : {kAllLayers, 1u | 2u}) {
    const bool narrowed = batch_mask != kAllLayers;
    SweepOptions options;
    options.layers = batch_mask;
    SCOPED_TRACE(options.layers);
    std::vector<cs_masked_sweep_query> queries;
    std::vector<SweepQuery> cpp_queries = b.sweeps;
    for (std::size_t i = 0; i < cpp_queries.size(); ++i) {
      queries.push_back({records::record(cpp_queries[i]), masks[i % 6]});
      cpp_queries[i].layers = masks[i % 6];
    }
    std::vector<cs_masked_ellipsoid_query> ellipsoids;
    std::vector<SweepEllipsoidQuery> cpp_ellipsoids = make_ellipsoid_workload(world, Workload::validate, 600, 3);
    for (std::size_t i = 0; i < cpp_ellipsoids.size(); ++i) {
      ellipsoids.push_back({records::record(cpp_ellipsoids[i]), masks[i % 6]});
      cpp_ellipsoids[i].layers = masks[i % 6];
    }
    for (int path : {CS_PATH_SIMD, CS_PATH_SCALAR, CS_PATH_BRUTE}) {
      options.path = SweepPath(path);
      std::vector<cs_sweep_hit> hits(queries.size());
      std::vector<std::uint8_t> status(queries.size(), 99);
      cs_sweep_args args = sweep_args(queries.data(), queries.size(), hits.data(), std::uint32_t(path), 0, status.data());
      args.masked = 1;
      args.layer_mask = batch_mask;
      ASSERT_EQ(cs_sweep(h.w, &args), CS_OK) << cs_last_error();
      std::vector<SweepHit> expected(queries.size());
      std::vector<Status> expected_status(queries.size());
      world.sweep(cpp_queries, expected, options, expected_status);
      std::size_t refused = 0;
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const cs_sweep_hit want = records::record(expected[i]);
        ASSERT_EQ(std::memcmp(&hits[i], &want, sizeof want), 0) << "path " << path << ", query " << i;
        ASSERT_EQ(status[i], std::uint8_t(expected_status[i])) << i;
        if (masks[i % 6] == 0) {
          ASSERT_NE(status[i], CS_STATUS_OK) << "a mask of 0 sees nothing, query " << i;
        } else {
          refused += status[i] == CS_STATUS_BAD_LAYERS;
        }
      }
      EXPECT_EQ(refused > 0, narrowed) << "mask 4 shares no layer with the batch's 1, 2";
      std::vector<cs_sweep_hit> e_hits(ellipsoids.size());
      cs_sweep_args e_args = ellipsoid_args(ellipsoids.data(), ellipsoids.size(), e_hits.data(), std::uint32_t(path));
      e_args.masked = 1;
      e_args.layer_mask = batch_mask;
      ASSERT_EQ(cs_sweep(h.w, &e_args), CS_OK) << cs_last_error();
      std::vector<SweepHit> e_expected(ellipsoids.size());
      world.sweep_ellipsoid(cpp_ellipsoids, e_expected, options);
      for (std::size_t i = 0; i < ellipsoids.size(); ++i) {
        const cs_sweep_hit want = records::record(e_expected[i]);
        ASSERT_EQ(std::memcmp(&e_hits[i], &want, sizeof want), 0) << "path " << path << ", ellipsoid " << i;
      }
    }
    options.path = SweepPath::simd;
    std::vector<cs_agent> agents;
    std::vector<Agent> cpp_agents = b.agents;
    for (std::size_t i = 0; i < cpp_agents.size(); ++i) {
      const Agent& a = cpp_agents[i];
      agents.push_back({records::record(a.capsule), {a.displacement.x, a.displacement.y, a.displacement.z},
                        a.vertical_speed, a.id, masks[i % 6], 0 /* a capsule */, 0 /* probe */, {0, 0}, {}, 0});
      cpp_agents[i].layers = masks[i % 6];
    }
    std::vector<cs_move_result> moved(agents.size());
    cs_move_args margs = move_args(agents.data(), agents.size(), moved.data());
    margs.layer_mask = batch_mask;
    ASSERT_EQ(cs_move(h.w, &margs), CS_OK) << cs_last_error();
    std::vector<MoveResult> expected_moves(agents.size());
    std::vector<Status> move_status(agents.size());
    world.move(cpp_agents, MoveSettings{}, expected_moves, options, {}, move_status);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      const cs_move_result want = records::record(expected_moves[i], move_status[i]);
      ASSERT_EQ(std::memcmp(&moved[i], &want, sizeof want), 0) << "agent " << i;
    }
    std::vector<cs_claimed_move> claims;
    std::vector<ClaimedMove> cpp_claims = b.claims;
    for (std::size_t i = 0; i < cpp_claims.size(); ++i) {
      claims.push_back(records::record(cpp_claims[i]));
      claims.back().layers = masks[i % 6];
      cpp_claims[i].layers = masks[i % 6];
    }
    std::vector<cs_verdict> verdicts(claims.size());
    cs_validate_args vargs = validate_args(claims.data(), claims.size(), nullptr, verdicts.data());
    vargs.layer_mask = batch_mask;
    ASSERT_EQ(cs_validate(h.w, &vargs), CS_OK) << cs_last_error();
    std::vector<Verdict> expected_verdicts(claims.size());
    world.validate(cpp_claims, ValidateSettings{}, expected_verdicts, options);
    for (std::size_t i = 0; i < claims.size(); ++i) {
      const cs_verdict want = records::record(expected_verdicts[i]);
      ASSERT_EQ(std::memcmp(&verdicts[i], &want, sizeof want), 0) << "claim " << i;
    }
  }
}

// Ellipsoid agents and their claims (cs_agent.shape, cs_claimed_move.shape): the C++ answers,
// record for record, for a crowd of capsules and ellipsoids in motion; a shape that is neither is
// refused with a message naming the agent or move.
TEST(CApi, EllipsoidAgentsAndTheirClaimsAnswerAsTheCppApi) {
  const std::vector<Triangle> arena = make_arena();
  std::vector<float> vertices;
  std::vector<std::uint32_t> indices;
  for (const Triangle& t : arena) {
    for (const Vec3& v : t.v) {
      indices.push_back(std::uint32_t(vertices.size() / 3));
      vertices.insert(vertices.end(), {v.x, v.y, v.z});
    }
  }
  WorldHandle h;
  ASSERT_EQ(create(vertices.data(), vertices.size() / 3, indices.data(), arena.size(), &h.w), CS_OK);
  const World world(arena);
  CrowdSettings cs;
  cs.agents = 600;
  cs.seed = 5;
  cs.trace = true;
  cs.agent_shapes = {AgentShape::ellipsoid, AgentShape::capsule, AgentShape::ellipsoid};
  // Agents carry their ground triangle from tick to tick, as this interface passes them.
  Crowd crowd(world, cs);
  std::vector<ClaimedMove> cpp_claims;
  for (int t = 0; t < 20; ++t) {
    crowd.tick();
    if (t >= 15) crowd.claims(cpp_claims);
  }
  const std::vector<Agent>& cpp_agents = crowd.agents();
  std::vector<cs_agent> agents;
  for (const Agent& a : cpp_agents) agents.push_back(records::record(a));
  EXPECT_GT(std::count_if(agents.begin(), agents.end(), [](const cs_agent& a) { return a.grounded == 1; }), 400);
  std::vector<cs_move_result> moved(agents.size());
  const cs_move_args margs = move_args(agents.data(), agents.size(), moved.data());
  ASSERT_EQ(cs_move(h.w, &margs), CS_OK) << cs_last_error();
  std::vector<MoveResult> expected(agents.size());
  std::vector<Status> status(agents.size());
  world.move(cpp_agents, MoveSettings{}, expected, {}, {}, status);
  std::size_t ellipsoids = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    const cs_move_result want = records::record(expected[i], status[i]);
    ASSERT_EQ(std::memcmp(&moved[i], &want, sizeof want), 0) << "agent " << i;
    ellipsoids += moved[i].shape == CS_SHAPE_ELLIPSOID;
  }
  EXPECT_EQ(ellipsoids, 400u);
  ASSERT_GT(cpp_claims.size(), 1000u);
  std::vector<cs_claimed_move> claims;
  for (const ClaimedMove& m : cpp_claims) claims.push_back(records::record(m));
  cs_validate_settings vs;
  cs_validate_settings_default(&vs);
  vs.max_speed = 2.f;
  ValidateSettings cpp_vs;
  cpp_vs.max_speed = 2.f;
  std::vector<cs_verdict> verdicts(claims.size());
  const cs_validate_args vargs = validate_args(claims.data(), claims.size(), &vs, verdicts.data());
  ASSERT_EQ(cs_validate(h.w, &vargs), CS_OK) << cs_last_error();
  std::vector<Verdict> expected_verdicts(claims.size());
  world.validate(cpp_claims, cpp_vs, expected_verdicts);
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const cs_verdict want = records::record(expected_verdicts[i]);
    ASSERT_EQ(std::memcmp(&verdicts[i], &want, sizeof want), 0) << "claim " << i;
  }
  agents[1].shape = 2;
  EXPECT_EQ(cs_move(h.w, &margs), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_move: agent 1: shape must be 0 (a capsule) or 1 (an ellipsoid)");
  agents[1].shape = 0;
  agents[4].grounded = 2;
  EXPECT_EQ(cs_move(h.w, &margs), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_move: agent 4: grounded must be 0 or 1");
  agents[4].grounded = 1;
  agents[6].reserved[1] = 3;
  EXPECT_EQ(cs_move(h.w, &margs), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_move: agent 6: reserved bytes must be 0");
  claims[3].shape = 9;
  EXPECT_EQ(cs_validate(h.w, &vargs), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_validate: move 3: shape must be 0 (a capsule) or 1 (an ellipsoid)");
}

// A heightfield world (16-bit samples, holes, a mesh on it) made through C answers as the C++
// World of the same heightfield; a heightmap file loads as load_heightmap reads it; a bad
// heightfield or file is refused with its code and message.
TEST(CApi, HeightfieldWorldsAnswerAsTheCppApi) {
  const Heightfield terrain = terrains::generate({.columns = 40, .rows = 33, .samples16 = true, .holes = true, .seed = 9});
  const std::vector<Triangle> buildings = terrains::buildings_on(terrain, 10);
  std::vector<float> vertices;
  std::vector<std::uint32_t> indices, layers;
  for (const Triangle& t : buildings) {
    for (const Vec3& v : t.v) {
      indices.push_back(std::uint32_t(vertices.size() / 3));
      vertices.insert(vertices.end(), {v.x, v.y, v.z});
    }
    layers.push_back(indices.size() % 2 ? 1u : 3u);
  }
  cs_heightfield c{};
  c.columns = terrain.columns, c.rows = terrain.rows, c.cell_x = terrain.cell_x, c.cell_z = terrain.cell_z;
  c.origin[0] = terrain.origin.x, c.origin[1] = terrain.origin.y, c.origin[2] = terrain.origin.z;
  c.height_scale = terrain.height_scale, c.samples = terrain.samples.data(), c.holes = terrain.holes.data();
  c.layers = 4u;
  WorldHandle h;
  ASSERT_EQ(create(vertices.data(), vertices.size() / 3, indices.data(), buildings.size(), &h.w, layers.data(), &c),
            CS_OK)
      << cs_last_error();
  Heightfield t = terrain;
  t.layers = 4u;
  const World world(t, buildings, layers);
  ASSERT_EQ(cs_world_triangle_count(h.w), world.triangle_count());
  const batches::Batches b = batches::make(world, 1500, 6);
  std::vector<cs_sweep_query> queries;
  for (const SweepQuery& q : b.sweeps) queries.push_back(records::record(q));
  for (int path : {CS_PATH_SIMD, CS_PATH_SCALAR, CS_PATH_BRUTE}) {
    std::vector<cs_sweep_hit> hits(queries.size());
    const cs_sweep_args args = sweep_args(queries.data(), queries.size(), hits.data(), std::uint32_t(path));
    ASSERT_EQ(cs_sweep(h.w, &args), CS_OK);
    std::vector<SweepHit> expected(queries.size());
    world.sweep(b.sweeps, expected, on_path(SweepPath(path), 0));
    std::size_t terrain_hits = 0;
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const cs_sweep_hit want = records::record(expected[i]);
      ASSERT_EQ(std::memcmp(&hits[i], &want, sizeof want), 0) << "path " << path << ", query " << i;
      terrain_hits += expected[i].hit && expected[i].triangle >= buildings.size();
    }
    EXPECT_GT(terrain_hits, queries.size() / 10);
  }
  std::vector<cs_capsule> capsules;
  for (const Capsule& k : b.capsules) capsules.push_back(records::record(k));
  std::vector<cs_overlap_result> over(capsules.size());
  const cs_overlap_args oargs = overlap_args(capsules.data(), capsules.size(), 0.05f, over.data());
  ASSERT_EQ(cs_overlap(h.w, &oargs), CS_OK) << cs_last_error();
  std::vector<OverlapResult> expected_over(capsules.size());
  std::vector<Status> over_status(capsules.size());
  world.overlap(b.capsules, 0.05f, expected_over, {}, over_status);
  for (std::size_t i = 0; i < capsules.size(); ++i) {
    const cs_overlap_result want = records::record(expected_over[i], over_status[i]);
    ASSERT_EQ(std::memcmp(&over[i], &want, sizeof want), 0) << "capsule " << i;
  }

  // A heightmap file.
  const std::string png = temp_path("terrain.png");
  write_gray_png(png, terrain.columns, terrain.rows, terrain.samples, 16);
  cs_load_options heightmap;
  cs_load_options_default(&heightmap);
  heightmap.kind = CS_FILE_HEIGHTMAP;
  cs_heightmap_options& o = heightmap.heightmap;
  o.cell_x = terrain.cell_x, o.cell_z = terrain.cell_z, o.height_scale = terrain.height_scale;
  o.origin[0] = terrain.origin.x, o.origin[1] = terrain.origin.y, o.origin[2] = terrain.origin.z;
  o.layers = 1u;
  WorldHandle from_file;
  ASSERT_EQ(cs_world_import(png.c_str(), &heightmap, &from_file.w), CS_OK) << cs_last_error();
  Heightfield no_holes = terrain;
  no_holes.holes.clear();
  const World expected_world(no_holes);
  std::vector<cs_sweep_hit> hits(queries.size());
  std::vector<SweepHit> expected(queries.size());
  const cs_sweep_args file_args = sweep_args(queries.data(), queries.size(), hits.data());
  ASSERT_EQ(cs_sweep(from_file.w, &file_args), CS_OK);
  expected_world.sweep(b.sweeps, expected);
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const cs_sweep_hit want = records::record(expected[i]);
    ASSERT_EQ(std::memcmp(&hits[i], &want, sizeof want), 0) << "heightmap file, query " << i;
  }

  // Refusals.
  cs_world* none = reinterpret_cast<cs_world*>(&h);
  cs_heightfield bad = c;
  bad.heights = reinterpret_cast<const float*>(terrain.samples.data());
  EXPECT_EQ(create(nullptr, 0, nullptr, 0, &none, nullptr, &bad), CS_ERROR_ARGUMENT);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("exactly one of the two"), std::string::npos) << cs_last_error();
  bad = c;
  bad.layers = 0;
  EXPECT_EQ(create(nullptr, 0, nullptr, 0, &none, nullptr, &bad), CS_ERROR_MESH);
  EXPECT_NE(std::string(cs_last_error()).find("heightfield: its layer mask is 0"), std::string::npos) << cs_last_error();
  bad = c;
  bad.reserved = 1;
  EXPECT_EQ(create(nullptr, 0, nullptr, 0, &none, nullptr, &bad), CS_ERROR_ARGUMENT);
  bad = c;
  bad.columns = 1;
  EXPECT_EQ(create(nullptr, 0, nullptr, 0, &none, nullptr, &bad), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("at least 2 x 2 samples"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_world_import(kDungeon.c_str(), &heightmap, &none), CS_ERROR_FILE);
  EXPECT_NE(std::string(cs_last_error()).find("recast_dungeon.obj: a raw float32 heightmap needs its size"),
            std::string::npos)
      << cs_last_error();
  std::remove(png.c_str());
}

TEST(CApi, ThreadCountChangesNoByte) {
  WorldHandle h;
  ASSERT_EQ(cs_world_import(kDungeon.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  const World world(scenes::load("recast_dungeon.obj"));
  const batches::Batches b = batches::make(world, 4000, 2);
  std::vector<cs_sweep_query> queries;
  for (const SweepQuery& q : b.sweeps) queries.push_back(records::record(q));
  std::vector<cs_sweep_hit> one(queries.size()), all(queries.size());
  const cs_sweep_args on_one = sweep_args(queries.data(), queries.size(), one.data(), CS_PATH_SIMD, 1);
  const cs_sweep_args on_all = sweep_args(queries.data(), queries.size(), all.data(), CS_PATH_SIMD, 0);
  ASSERT_EQ(cs_sweep(h.w, &on_one), CS_OK);
  ASSERT_EQ(cs_sweep(h.w, &on_all), CS_OK);
  EXPECT_EQ(std::memcmp(one.data(), all.data(), one.size() * sizeof one[0]), 0);
}

TEST(CApi, BuildsAWorldFromVerticesAndIndices) {
  // A 2 m x 2 m floor at y = 0 of two triangles, counter-clockwise seen from above.
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1};
  const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
  WorldHandle h;
  ASSERT_EQ(create(vertices, 4, indices, 2, &h.w), CS_OK) << cs_last_error();
  EXPECT_EQ(cs_world_triangle_count(h.w), 2u);
  // A sphere of radius 0.5 falling from y = 2 by 3 m touches the floor after 1.5 m: t = 0.5.
  const cs_sweep_query q{{{0.2f, 2, 0.1f}, {0.2f, 2, 0.1f}, 0.5f}, {0, -3, 0}};
  cs_sweep_hit hit;
  const cs_sweep_args args = sweep_args(&q, 1, &hit, CS_PATH_SIMD, 1);
  ASSERT_EQ(cs_sweep(h.w, &args), CS_OK);
  EXPECT_EQ(hit.hit, CS_HIT);
  EXPECT_NEAR(hit.t, 0.5f, 1e-6f);
  EXPECT_LE(hit.t, 0.5f);  // never past the contact
  EXPECT_EQ(hit.feature, CS_FEATURE_FACE);
  EXPECT_NEAR(hit.normal[1], 1.f, 1e-6f);
  EXPECT_LT(hit.triangle, 2u);
}

}  // namespace
