// The C API at its boundary: bad calls are refused with a code and a message (per thread, kept
// as the header says), a mask of 0 as C++ refuses it, no exception gets out, a world that is not
// made leaves *out NULL, and the *_default calls fill what C++ defaults to.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <capsweep/capsweep_c_io.h>
#include <capsweep/files.h>
#include <capsweep/version.h>
#include <capsweep/world.h>

#include "capi/records.h"
#include "tests/capi/calls.h"
#include "tools/arena.h"

namespace {

using namespace capsweep;
using namespace capi_test;

// Every batch call refuses `threads` outside 0 .. CS_MAX_THREADS by code and message (past
// 65,536 oneTBB crashed the process) and takes the limit itself.
TEST(CApi, ThreadsOutsideTheLimitAreRefusedByName) {
  EXPECT_EQ(CS_MAX_THREADS, kMaxThreads);
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1};
  const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
  WorldHandle h;
  ASSERT_EQ(create(vertices, 4, indices, 2, &h.w), CS_OK) << cs_last_error();
  const cs_sweep_query q{{{0, 2, 0}, {0, 2, 0}, 0.5f}, {0, -3, 0}};
  const cs_ellipsoid_query e{{0, 2, 0}, {0.3f, 0.5f, 0.3f}, {0, -3, 0}};
  const cs_agent agent{};
  const cs_claimed_move claim{};
  const cs_capsule capsule{{0, 2, 0}, {0, 3, 0}, 0.5f};
  cs_sweep_hit hit;
  cs_move_result moved;
  cs_verdict verdict;
  cs_overlap_result overlap;
  const auto every_call = [&](int threads) {
    const cs_sweep_args sweep = sweep_args(&q, 1, &hit, CS_PATH_SIMD, threads);
    const cs_sweep_args scalar = sweep_args(&q, 1, &hit, CS_PATH_SCALAR, threads);
    const cs_sweep_args ellipsoid = ellipsoid_args(&e, 1, &hit, CS_PATH_SIMD, threads);
    const cs_move_args move = move_args(&agent, 1, &moved, threads);
    const cs_validate_args validate = validate_args(&claim, 1, nullptr, &verdict, threads);
    const cs_overlap_args over = overlap_args(&capsule, 1, 0.f, &overlap, threads);
    return std::vector<int>{
        cs_sweep(h.w, &sweep),       cs_sweep(h.w, &scalar),         cs_sweep(h.w, &ellipsoid),
        cs_move(h.w, &move),         cs_validate(h.w, &validate),    cs_overlap(h.w, &over),
    };
  };
  for (const int threads : {CS_MAX_THREADS + 1, 65537, -1}) {
    const std::vector<int> codes = every_call(threads);
    for (std::size_t call = 0; call < codes.size(); ++call) {
      EXPECT_EQ(codes[call], CS_ERROR_ARGUMENT) << "call " << call << ", threads " << threads;
    }
    // The message of the last call names the argument, the limit and the count.
    const std::string message = cs_last_error();
    EXPECT_NE(message.find("cs_overlap: threads must be from 0 (every core) to 1024"), std::string::npos) << message;
    EXPECT_NE(message.find("got " + std::to_string(threads)), std::string::npos) << message;
  }
  for (const int code : every_call(CS_MAX_THREADS)) EXPECT_EQ(code, CS_OK) << cs_last_error();
}

TEST(CApi, RefusesBadCallsWithACodeAndAMessage) {
  cs_world* w = reinterpret_cast<cs_world*>(0x1);
  EXPECT_EQ(cs_world_load("/no/such/level.obj", nullptr, &w), CS_ERROR_FILE);
  EXPECT_EQ(w, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("/no/such/level.obj"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_world_load(nullptr, nullptr, &w), CS_ERROR_ARGUMENT);
  w = reinterpret_cast<cs_world*>(0x1);
  EXPECT_EQ(cs_world_import("/no/such/level.obj", nullptr, &w), CS_ERROR_FILE);
  EXPECT_EQ(w, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("/no/such/level.obj"), std::string::npos) << cs_last_error();
  EXPECT_EQ(cs_world_import(nullptr, nullptr, &w), CS_ERROR_ARGUMENT);

  const float vertices[] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
  const uint32_t bad[] = {0, 1, 2, 0, 2, 3};
  EXPECT_EQ(create(vertices, 3, bad, 2, &w), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_world_create: triangle 1 names vertex 3 of 3");
  const float nan_vertices[] = {0, 0, 0, NAN, 0, 0, 0, 0, 1};
  EXPECT_EQ(create(nan_vertices, 3, bad, 1, &w), CS_ERROR_MESH);
  EXPECT_NE(std::string(cs_last_error()).find("triangle 0"), std::string::npos) << cs_last_error();
  EXPECT_EQ(create(vertices, 3, bad, 0, &w), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_world_create: no triangles");

  WorldHandle h;
  ASSERT_EQ(create(vertices, 3, bad, 1, &h.w), CS_OK);
  EXPECT_STREQ(cs_last_error(), "");  // a call that succeeds clears the message
  cs_sweep_query q{};
  cs_sweep_hit hit;
  const cs_sweep_args one = sweep_args(&q, 1, &hit);
  EXPECT_EQ(cs_sweep(nullptr, &one), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_sweep(h.w, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_sweep: args is NULL");
  const cs_sweep_args no_queries = sweep_args(nullptr, 1, &hit);
  EXPECT_EQ(cs_sweep(h.w, &no_queries), CS_ERROR_ARGUMENT);
  const cs_sweep_args negative_threads = sweep_args(&q, 1, &hit, CS_PATH_SIMD, -1);
  EXPECT_EQ(cs_sweep(h.w, &negative_threads), CS_ERROR_ARGUMENT);
  const cs_sweep_args empty = sweep_args(nullptr, 0, nullptr);
  EXPECT_EQ(cs_sweep(h.w, &empty), CS_OK);  // an empty batch
  const cs_sweep_args bad_path = sweep_args(&q, 1, &hit, 7);
  EXPECT_EQ(cs_sweep(h.w, &bad_path), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("unknown path 7"), std::string::npos);
  cs_sweep_args bad_shape = one;
  bad_shape.shape = 2;
  EXPECT_EQ(cs_sweep(h.w, &bad_shape), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_sweep: shape must be 0 (capsules) or 1 (ellipsoids), got 2");
  cs_sweep_args bad_masked = one;
  bad_masked.masked = 3;
  EXPECT_EQ(cs_sweep(h.w, &bad_masked), CS_ERROR_ARGUMENT);
  cs_sweep_args bad_reserved = one;
  bad_reserved.reserved = 1;
  EXPECT_EQ(cs_sweep(h.w, &bad_reserved), CS_ERROR_ARGUMENT);
  cs_capsule c{};
  cs_overlap_result o;
  const cs_overlap_args negative_clearance = overlap_args(&c, 1, -1.f, &o);
  EXPECT_EQ(cs_overlap(h.w, &negative_clearance), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("clearance"), std::string::npos) << cs_last_error();
  cs_world_free(nullptr);  // allowed
}

// A mask means the same in C as in C++ and the files: a batch's layer_mask of 0 is refused with
// CS_ERROR_ARGUMENT by every batch call, a record's mask of 0 with CS_STATUS_BAD_LAYERS as World
// refuses it, and CS_ALL_LAYERS sees every layer.
TEST(CApi, AMaskOfZeroIsRefusedAsTheCppApiRefusesIt) {
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1};
  const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
  WorldHandle h;
  ASSERT_EQ(create(vertices, 4, indices, 2, &h.w), CS_OK) << cs_last_error();
  const cs_masked_sweep_query q[] = {{{{{0, 2, 0}, {0, 2, 0}, 0.5f}, {0, -3, 0}}, 0u},
                                     {{{{0, 2, 0}, {0, 2, 0}, 0.5f}, {0, -3, 0}}, CS_ALL_LAYERS}};
  cs_sweep_hit hits[2];
  std::uint8_t status[2];
  cs_sweep_args args = sweep_args(q, 2, hits, CS_PATH_SIMD, 1, status);
  args.masked = 1;
  ASSERT_EQ(cs_sweep(h.w, &args), CS_OK) << cs_last_error();
  EXPECT_EQ(status[0], CS_STATUS_BAD_LAYERS);
  EXPECT_EQ(hits[0].hit, CS_MISS);
  EXPECT_EQ(status[1], CS_STATUS_OK);
  EXPECT_EQ(hits[1].hit, CS_HIT);
  const World world(std::vector<Triangle>{{{{-1, 0, -1}, {-1, 0, 1}, {1, 0, 1}}}, {{{-1, 0, -1}, {1, 0, 1}, {1, 0, -1}}}});
  std::vector<SweepHit> expected(2);
  std::vector<Status> expected_status(2);
  world.sweep(std::vector<SweepQuery>{records::query(q[0]), records::query(q[1])}, expected, on_path(SweepPath::simd, 1),
              expected_status);
  for (int i = 0; i < 2; ++i) {
    const cs_sweep_hit want = records::record(expected[std::size_t(i)]);
    EXPECT_EQ(std::memcmp(&hits[i], &want, sizeof want), 0) << i;
    EXPECT_EQ(status[i], std::uint8_t(expected_status[std::size_t(i)])) << i;
  }

  cs_agent agent{};
  agent.capsule = {{0, 0.6f, 0}, {0, 1.5f, 0}, 0.5f};
  cs_move_result moved;
  const cs_move_args move = move_args(&agent, 1, &moved);
  ASSERT_EQ(cs_move(h.w, &move), CS_OK) << cs_last_error();
  EXPECT_EQ(moved.status, CS_STATUS_BAD_LAYERS) << "a zeroed agent names no layer";
  agent.layers = CS_ALL_LAYERS;
  ASSERT_EQ(cs_move(h.w, &move), CS_OK) << cs_last_error();
  EXPECT_EQ(moved.status, CS_STATUS_OK);

  cs_claimed_move claim{};
  claim.from = agent.capsule;
  claim.dt = 0.1f;
  cs_verdict verdict;
  const cs_validate_args validate = validate_args(&claim, 1, nullptr, &verdict);
  ASSERT_EQ(cs_validate(h.w, &validate), CS_OK) << cs_last_error();
  EXPECT_EQ(verdict.kind, CS_VERDICT_REFUSED);
  EXPECT_EQ(verdict.status, CS_STATUS_BAD_LAYERS);

  const cs_capsule capsule = agent.capsule;
  cs_overlap_result over;
  cs_sweep_args sweep_none = args;
  sweep_none.layer_mask = 0;
  cs_move_args move_none = move;
  move_none.layer_mask = 0;
  cs_validate_args validate_none = validate;
  validate_none.layer_mask = 0;
  cs_overlap_args overlap_none = overlap_args(&capsule, 1, 0.f, &over);
  overlap_none.layer_mask = 0;
  EXPECT_EQ(cs_sweep(h.w, &sweep_none), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_sweep: layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  EXPECT_EQ(cs_move(h.w, &move_none), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_move: layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  EXPECT_EQ(cs_validate(h.w, &validate_none), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_validate: layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
  EXPECT_EQ(cs_overlap(h.w, &overlap_none), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_overlap: layer_mask is 0, which sees nothing (CS_ALL_LAYERS sees every layer)");
}

TEST(CApi, TheLastErrorBelongsToTheThreadThatFailed) {
  cs_world* w = nullptr;
  ASSERT_EQ(cs_world_load("/no/such/a.obj", nullptr, &w), CS_ERROR_FILE);
  std::string other;
  std::thread t([&] {
    cs_world* v = nullptr;
    cs_world_load("/no/such/b.obj", nullptr, &v);
    other = cs_last_error();
  });
  t.join();
  EXPECT_NE(other.find("b.obj"), std::string::npos);
  EXPECT_NE(std::string(cs_last_error()).find("a.obj"), std::string::npos);
}

// What capsweep_c.h promises of the pointers: a world is the caller's, alone (0.5's layer views,
// which shared a world's memory, are now a batch's layer_mask: no handle hangs on another); a call
// that fails to make a world leaves *out NULL; the last error is kept by the calls that return no
// code, and cleared by the next that succeeds.
TEST(CApi, EveryWorldHandleStandsAlone) {
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1};
  const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
  WorldHandle world;
  ASSERT_EQ(create(vertices, 4, indices, 2, &world.w), CS_OK) << cs_last_error();
  EXPECT_EQ(cs_world_triangle_count(world.w), 2u);
  const cs_sweep_query q{{{0.2f, 2, 0.1f}, {0.2f, 2, 0.1f}, 0.5f}, {0, -3, 0}};
  cs_sweep_hit hit;
  cs_sweep_args args = sweep_args(&q, 1, &hit, CS_PATH_SIMD, 1);
  args.layer_mask = CS_ALL_LAYERS;
  ASSERT_EQ(cs_sweep(world.w, &args), CS_OK) << cs_last_error();
  EXPECT_EQ(hit.hit, CS_HIT);
}

TEST(CApi, AWorldThatIsNotMadeLeavesOutNull) {
  const auto stale = [] { return reinterpret_cast<cs_world*>(0x1); };
  cs_world* out = stale();
  EXPECT_EQ(cs_world_load(nullptr, nullptr, &out), CS_ERROR_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  out = stale();
  cs_load_options heightmap;
  cs_load_options_default(&heightmap);
  heightmap.kind = CS_FILE_HEIGHTMAP;
  EXPECT_EQ(cs_world_load(nullptr, &heightmap, &out), CS_ERROR_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  out = stale();
  EXPECT_EQ(cs_world_import(nullptr, &heightmap, &out), CS_ERROR_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  out = stale();
  EXPECT_EQ(cs_world_import(kDungeon.c_str(), nullptr, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("out is NULL"), std::string::npos) << cs_last_error();
  out = stale();
  EXPECT_EQ(cs_world_create(nullptr, &out), CS_ERROR_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  out = stale();
  const cs_world_desc nothing{};
  EXPECT_EQ(cs_world_create(&nothing, &out), CS_ERROR_ARGUMENT);  // no triangles, no terrain
  EXPECT_EQ(out, nullptr);
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1};
  const uint32_t indices[] = {0, 1, 2};
  out = stale();
  const uint32_t no_layer[] = {0};
  EXPECT_EQ(create(vertices, 3, indices, 1, &out, no_layer), CS_ERROR_MESH);  // a mask of no layer
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(create(vertices, 3, indices, 1, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("out is NULL"), std::string::npos) << cs_last_error();
}

TEST(CApi, TheLastErrorIsKeptUntilTheNextCallThatReturnsACode) {
  WorldHandle h;
  const float vertices[] = {-1, 0, -1, -1, 0, 1, 1, 0, 1};
  const uint32_t indices[] = {0, 1, 2};
  ASSERT_EQ(create(vertices, 3, indices, 1, &h.w), CS_OK);
  cs_world* w = nullptr;
  ASSERT_EQ(cs_world_load("/no/such/kept.obj", nullptr, &w), CS_ERROR_FILE);
  cs_move_settings m;
  cs_validate_settings v;
  cs_load_options lo;
  cs_sweep_args sa;
  cs_move_args ma;
  cs_validate_args va;
  cs_overlap_args oa;
  cs_version();
  cs_world_triangle_count(h.w);
  cs_move_settings_default(&m);
  cs_validate_settings_default(&v);
  cs_load_options_default(&lo);
  cs_sweep_args_default(&sa);
  cs_move_args_default(&ma);
  cs_validate_args_default(&va);
  cs_overlap_args_default(&oa);
  cs_world_free(nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("kept.obj"), std::string::npos) << cs_last_error();
  cs_sweep_hit hit;
  cs_sweep_query q{};
  const cs_sweep_args args = sweep_args(&q, 1, &hit, CS_PATH_SIMD, 1);
  ASSERT_EQ(cs_sweep(h.w, &args), CS_OK);
  EXPECT_STREQ(cs_last_error(), "");
}

TEST(CApi, LoadsASnapshotButRefusesSceneOptionsOnIt) {
  const std::string path = temp_path("arena.cwsw");
  save_snapshot(World(make_arena()), "@arena", path);
  WorldHandle h;
  ASSERT_EQ(cs_world_load(path.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  EXPECT_EQ(cs_world_triangle_count(h.w), make_arena().size());
  cs_world* scaled = nullptr;
  const cs_load_options twice = scene_options(2.f, nullptr);
  EXPECT_EQ(cs_world_load(path.c_str(), &twice, &scaled), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("snapshot"), std::string::npos) << cs_last_error();
  std::remove(path.c_str());
}

// One call per kind of file: cs_world_load (libcapsweep_c, oneTBB only) reads snapshots and
// names cs_world_import for a mesh file or a heightmap; cs_world_import names cs_world_load for
// a snapshot.
TEST(CApi, EachFileHasOneCallThatReadsItAndTheOtherNamesIt) {
  cs_world* w = reinterpret_cast<cs_world*>(0x1);
  EXPECT_EQ(cs_world_load(kDungeon.c_str(), nullptr, &w), CS_ERROR_FILE);
  EXPECT_EQ(w, nullptr);
  std::string message = cs_last_error();
  EXPECT_NE(message.find(kDungeon + ": not a CWSW snapshot"), std::string::npos) << message;
  EXPECT_NE(message.find("cs_world_import"), std::string::npos) << message;
  EXPECT_NE(message.find("libcapsweep_c_io"), std::string::npos) << message;
  cs_load_options heightmap;
  cs_load_options_default(&heightmap);
  heightmap.kind = CS_FILE_HEIGHTMAP;
  EXPECT_EQ(cs_world_load(kDungeon.c_str(), &heightmap, &w), CS_ERROR_FILE);
  EXPECT_NE(std::string(cs_last_error()).find("cs_world_import"), std::string::npos) << cs_last_error();

  const std::string path = temp_path("one_call.cwsw");
  save_snapshot(World(make_arena()), "@arena", path);
  w = reinterpret_cast<cs_world*>(0x1);
  EXPECT_EQ(cs_world_import(path.c_str(), nullptr, &w), CS_ERROR_FILE);
  EXPECT_EQ(w, nullptr);
  message = cs_last_error();
  EXPECT_NE(message.find(path + ": a CWSW snapshot"), std::string::npos) << message;
  EXPECT_NE(message.find("cs_world_load"), std::string::npos) << message;
  WorldHandle h;
  ASSERT_EQ(cs_world_load(path.c_str(), nullptr, &h.w), CS_OK) << cs_last_error();
  std::remove(path.c_str());
}

// cs_load_options: scene options on a heightmap, an unknown kind or a reserved field set are
// refused by name.
TEST(CApi, RefusesLoadOptionsThatDoNotApply) {
  cs_world* w = nullptr;
  cs_load_options o = scene_options(2.f, nullptr);
  o.kind = CS_FILE_HEIGHTMAP;
  EXPECT_EQ(cs_world_import(kDungeon.c_str(), &o, &w), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("scene options do not apply to a heightmap"), std::string::npos)
      << cs_last_error();
  o = scene_options(1.f, nullptr);
  o.kind = 5;
  EXPECT_EQ(cs_world_load(kDungeon.c_str(), &o, &w), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_world_load: unknown file kind 5");
  EXPECT_EQ(cs_world_import(kDungeon.c_str(), &o, &w), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_world_import: unknown file kind 5");
  o = scene_options(1.f, nullptr);
  o.reserved = 1;
  EXPECT_EQ(cs_world_load(kDungeon.c_str(), &o, &w), CS_ERROR_ARGUMENT);
  EXPECT_EQ(w, nullptr);
  EXPECT_EQ(cs_world_import(kDungeon.c_str(), &o, &w), CS_ERROR_ARGUMENT);
  EXPECT_EQ(w, nullptr);
}

TEST(CApi, DefaultSettingsAreTheCppDefaults) {
  cs_move_settings m;
  cs_move_settings_default(&m);
  const MoveSettings d;
  EXPECT_EQ(m.skin, d.skin);
  EXPECT_EQ(m.step_height, d.step_height);
  EXPECT_EQ(m.agents_collide, 1);
  cs_validate_settings v;
  cs_validate_settings_default(&v);
  EXPECT_EQ(v.tolerance, ValidateSettings{}.tolerance);
  EXPECT_EQ(v.max_speed, kDefaultMaxSpeed);
  EXPECT_EQ(v.max_speed, 7.f);
  EXPECT_EQ(v.jump_speed, ValidateSettings{}.jump_speed);
  EXPECT_EQ(v.rule, std::uint32_t(CS_RULE_TICK_END));
  EXPECT_EQ(CS_NO_SPEED_LIMIT, kNoSpeedLimit);
  EXPECT_STREQ(cs_version(), CAPSWEEP_VERSION_STRING);
}

// cs_validate with nothing set refuses a speed hack (the default 7 m/s), and settings the library
// refuses (a max_speed of 0, a tolerance at or above a claim's radius) are CS_ERROR_ARGUMENT with
// its message, not refused verdicts.
TEST(CApi, ValidateDefaultsRefuseASpeedHackAndBadSettingsAreErrors) {
  const float vertices[] = {-50, 0, -50, -50, 0, 50, 50, 0, 50, 50, 0, -50};
  const uint32_t indices[] = {0, 1, 2, 0, 2, 3};
  WorldHandle h;
  ASSERT_EQ(create(vertices, 4, indices, 2, &h.w), CS_OK) << cs_last_error();
  cs_claimed_move claim{};
  claim.from = {{0, 0.32f, 0}, {0, 1.5f, 0}, 0.3f};
  claim.motion[0] = 3.f;  // 30 m/s
  claim.dt = 0.1f;
  claim.grounded = 1;
  claim.layers = CS_ALL_LAYERS;
  claim.ground_triangle = CS_NO_TRIANGLE;
  cs_verdict verdict;
  cs_validate_args args = validate_args(&claim, 1, nullptr, &verdict);
  ASSERT_EQ(cs_validate(h.w, &args), CS_OK) << cs_last_error();
  EXPECT_EQ(verdict.kind, CS_VERDICT_TOO_FAST);
  EXPECT_TRUE(verdict.reason == CS_REASON_SPEED || verdict.reason == CS_REASON_TELEPORT) << int(verdict.reason);
  EXPECT_FLOAT_EQ(verdict.claimed, 3.f);
  EXPECT_LT(verdict.limit, 1.f);

  cs_validate_settings settings;
  cs_validate_settings_default(&settings);
  args.settings = &settings;
  settings.max_speed = CS_NO_SPEED_LIMIT;
  ASSERT_EQ(cs_validate(h.w, &args), CS_OK) << cs_last_error();
  EXPECT_NE(verdict.reason, CS_REASON_SPEED);
  EXPECT_NE(verdict.reason, CS_REASON_TELEPORT);
  settings.max_speed = 0.f;
  EXPECT_EQ(cs_validate(h.w, &args), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("max_speed"), std::string::npos) << cs_last_error();
  settings.max_speed = 7.f;
  settings.tolerance = 0.3f;
  EXPECT_EQ(cs_validate(h.w, &args), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("tolerance 0.300000 m is not below claim 0's radius 0.300000 m"),
            std::string::npos)
      << cs_last_error();
}

// The *_default calls fill what SweepOptions and the file options default to: capsules on the
// SIMD path, every layer, every core, a mesh file as it is, HeightmapOptions' cells.
TEST(CApi, DefaultArgumentsAreTheCppDefaults) {
  const SweepOptions d;
  cs_sweep_args s;
  std::memset(&s, 0xAB, sizeof s);
  cs_sweep_args_default(&s);
  EXPECT_EQ(s.queries, nullptr);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.hits, nullptr);
  EXPECT_EQ(s.status, nullptr);
  EXPECT_EQ(s.shape, std::uint32_t(CS_SHAPE_CAPSULE));
  EXPECT_EQ(s.masked, 0u);
  EXPECT_EQ(s.path, std::uint32_t(d.path));
  EXPECT_EQ(s.layer_mask, d.layers);
  EXPECT_EQ(s.threads, d.threads);
  EXPECT_EQ(s.reserved, 0u);
  cs_move_args m;
  cs_move_args_default(&m);
  EXPECT_EQ(m.layer_mask, d.layers);
  EXPECT_EQ(m.threads, d.threads);
  EXPECT_EQ(m.settings, nullptr);
  cs_validate_args v;
  cs_validate_args_default(&v);
  EXPECT_EQ(v.layer_mask, d.layers);
  EXPECT_EQ(v.settings, nullptr);
  cs_overlap_args o;
  cs_overlap_args_default(&o);
  EXPECT_EQ(o.layer_mask, d.layers);
  EXPECT_EQ(o.clearance, 0.f);
  cs_load_options l;
  cs_load_options_default(&l);
  const HeightmapOptions h;
  EXPECT_EQ(l.kind, std::uint32_t(CS_FILE_SCENE));
  EXPECT_EQ(l.scale, SceneOptions{}.scale);
  EXPECT_EQ(l.z_up, 0u);
  EXPECT_EQ(l.layer_table, nullptr);
  EXPECT_EQ(l.heightmap.cell_x, h.cell_x);
  EXPECT_EQ(l.heightmap.cell_z, h.cell_z);
  EXPECT_EQ(l.heightmap.height_scale, h.height_scale);
  EXPECT_EQ(l.heightmap.layers, h.layers);
  EXPECT_EQ(l.heightmap.holes, nullptr);
}

}  // namespace
