// Navigation through the C API answers what the C++ API answers, bit for bit: the settings
// derived from the movement, the navmesh's bytes, paths, nearest points and random goals, and a
// crowd's agents and results tick after tick; and it refuses nulls, bad indices, bad settings
// and damaged files by name, with a code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <capsweep/capsweep_c_io.h>
#include <capsweep/files.h>
#include <capsweep/navigation.h>

#include "capi/records.h"
#include "tests/capi/calls.h"
#include "tools/nav_run.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;
using namespace capi_test;

const std::string kNavTest = std::string(CAPSWEEP_SCENES_DIR) + "/recast_nav_test.obj";
const Capsule kPerson{{0, kPersonRadius, 0}, {0, kPersonRadius + kPersonAxis, 0}, kPersonRadius};

struct NavMeshHandle {
  cs_navmesh* m = nullptr;
  ~NavMeshHandle() { cs_navmesh_free(m); }
};
struct CrowdHandle {
  cs_nav_crowd* c = nullptr;
  ~CrowdHandle() { cs_nav_crowd_free(c); }
};

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

Vec3 feet(const Capsule& c) { return {c.a.x, c.a.y - c.radius, c.a.z}; }

// The level both APIs share: the world from the C library and from C++, and the navmesh of each.
struct Level {
  WorldHandle world;
  World cpp_world{load_scene(kNavTest)};
  NavMeshHandle navmesh;
  NavMesh cpp_navmesh = NavMesh::build(cpp_world, navmesh_settings(MoveSettings{}, kPerson), 1);
  Level() {
    EXPECT_EQ(cs_world_import(kNavTest.c_str(), nullptr, &world.w), CS_OK) << cs_last_error();
    cs_navmesh_settings s;
    const cs_capsule body = records::record(kPerson);
    EXPECT_EQ(cs_navmesh_settings_for(nullptr, &body, CS_ALL_LAYERS, &s), CS_OK) << cs_last_error();
    EXPECT_EQ(cs_navmesh_build(world.w, &s, 2, &navmesh.m), CS_OK) << cs_last_error();
  }
};

const Level& level() {
  static Level l;
  return l;
}

TEST(CApiNav, SettingsFollowTheMoveSettingsAsInCpp) {
  MoveSettings move;
  move.step_height = 0.5f;
  move.max_slope_degrees = 38.f;
  const cs_move_settings m = records::record(move);
  const cs_capsule body = records::record(kPerson);
  cs_navmesh_settings c;
  ASSERT_EQ(cs_navmesh_settings_for(&m, &body, 0x5u, &c), CS_OK) << cs_last_error();
  const NavMeshSettings want = navmesh_settings(move, kPerson, 0x5u);
  EXPECT_EQ(c.climb, want.climb);
  EXPECT_EQ(c.climb, 0.5f);
  EXPECT_EQ(c.max_slope_degrees, want.max_slope_degrees);
  EXPECT_EQ(c.agent_radius, want.agent_radius);
  EXPECT_EQ(c.agent_height, want.agent_height);
  EXPECT_EQ(c.cell_size, want.cell_size);
  EXPECT_EQ(c.cell_height, want.cell_height);
  EXPECT_EQ(c.tile_cells, want.tile_cells);
  EXPECT_EQ(c.layers, 0x5u);
  EXPECT_EQ(c.detail_max_error, want.detail_max_error);
}

TEST(CApiNav, BuildsTheSameNavMeshAndAnswersAsTheCppApi) {
  const Level& l = level();
  cs_navmesh_stats stats;
  ASSERT_EQ(cs_navmesh_stats_of(l.navmesh.m, &stats), CS_OK);
  const NavMeshStats want = l.cpp_navmesh.stats();
  EXPECT_GT(want.polygons, 0u);
  EXPECT_EQ(stats.tiles, want.tiles);
  EXPECT_EQ(stats.polygons, want.polygons);
  EXPECT_EQ(stats.vertices, want.vertices);
  EXPECT_EQ(std::memcmp(stats.bounds_min, &want.bounds.min, 12), 0);

  // The same file, byte for byte (built on 2 threads in C, 1 in C++), and it reads back.
  const std::string c_path = temp_path("c.cwnm"), cpp_path = temp_path("cpp.cwnm");
  ASSERT_EQ(cs_navmesh_write(l.navmesh.m, c_path.c_str()), CS_OK) << cs_last_error();
  l.cpp_navmesh.write(cpp_path);
  EXPECT_EQ(bytes_of(c_path), bytes_of(cpp_path));
  NavMeshHandle back;
  ASSERT_EQ(cs_navmesh_read(cpp_path.c_str(), &back.m), CS_OK) << cs_last_error();
  cs_navmesh_settings settings;
  ASSERT_EQ(cs_navmesh_settings_of(back.m, &settings), CS_OK);
  EXPECT_EQ(settings.agent_radius, l.cpp_navmesh.settings().agent_radius);

  // Paths, nearest points and random goals from 40 points, bit for bit.
  std::size_t complete_paths = 0;
  for (std::uint64_t k = 0; k < 40; ++k) {
    Vec3 from, to;
    // From the test level's main floor (the pillar's room), where most of it is reachable.
    ASSERT_TRUE(l.cpp_navmesh.random_reachable({-1.47f, -2.35f, -3.62f}, 1000 + k, from));
    const bool reachable = l.cpp_navmesh.random_reachable(from, 2000 + k, to);
    ASSERT_TRUE(reachable);
    float c_to[3];
    int found = 0;
    ASSERT_EQ(cs_navmesh_random_reachable(back.m, &from.x, 2000 + k, c_to, &found), CS_OK);
    ASSERT_EQ(found, 1);
    ASSERT_EQ(std::memcmp(c_to, &to.x, 12), 0) << k;

    const NavPath p = l.cpp_navmesh.path(from, to);
    std::size_t count = 0;
    int complete = -1;
    float length = -1;
    ASSERT_EQ(cs_navmesh_path(l.navmesh.m, &from.x, &to.x, nullptr, 0, &count, &complete, &length), CS_OK);
    ASSERT_EQ(count, p.corners.size());
    std::vector<float> corners(3 * count);
    ASSERT_EQ(cs_navmesh_path(l.navmesh.m, &from.x, &to.x, corners.data(), count, &count, &complete, &length), CS_OK);
    EXPECT_EQ(complete, p.complete ? 1 : 0);
    EXPECT_EQ(length, p.length);
    ASSERT_EQ(std::memcmp(corners.data(), p.corners.data(), corners.size() * sizeof(float)), 0) << k;
    complete_paths += p.complete;

    const Vec3 above = from + Vec3{0.3f, 1.0f, -0.2f}, reach{1, 2, 1};
    Vec3 near;
    const bool cpp_found = l.cpp_navmesh.nearest(above, reach, near);
    float c_near[3];
    ASSERT_EQ(cs_navmesh_nearest(l.navmesh.m, &above.x, &reach.x, c_near, &found), CS_OK);
    ASSERT_EQ(found, cpp_found ? 1 : 0);
    if (cpp_found) {
      ASSERT_EQ(std::memcmp(c_near, &near.x, 12), 0);
    }
  }
  EXPECT_GT(complete_paths, 30u);
  // Far from every polygon: nothing found, no path.
  const float nowhere[3] = {500, 500, 500}, reach[3] = {1, 1, 1};
  float out[3];
  int found = 1;
  ASSERT_EQ(cs_navmesh_nearest(l.navmesh.m, nowhere, reach, out, &found), CS_OK);
  EXPECT_EQ(found, 0);
  std::size_t count = 9;
  ASSERT_EQ(cs_navmesh_path(l.navmesh.m, nowhere, nowhere, nullptr, 0, &count, nullptr, nullptr), CS_OK);
  EXPECT_EQ(count, 0u);
}

// 24 agents for 40 ticks: every agent and result the same bytes as the C++ crowd's.
TEST(CApiNav, ACrowdTicksAsTheCppCrowd) {
  const Level& l = level();
  constexpr std::size_t kAgents = 24;
  const std::vector<Capsule> bodies = spawn_on_navmesh(l.cpp_world, l.cpp_navmesh, MoveSettings{}, kAgents, 3);
  NavCrowdSettings s;
  s.batch.threads = 1;
  NavCrowd cpp(l.cpp_world, l.cpp_navmesh, s);
  cs_nav_crowd_settings cs;
  cs_nav_crowd_settings_default(&cs);
  cs.threads = 2;  // the same bytes on any thread count
  CrowdHandle c;
  ASSERT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, &cs, &c.c), CS_OK) << cs_last_error();
  for (std::size_t i = 0; i < kAgents; ++i) {
    Vec3 goal;
    ASSERT_TRUE(l.cpp_navmesh.random_reachable(feet(bodies[i]), 50 + i, goal));
    cpp.add(bodies[i], 1.5f, std::uint32_t(i));
    cpp.set_goal(i, goal);
    const cs_capsule body = records::record(bodies[i]);
    std::size_t index = 99;
    ASSERT_EQ(cs_nav_crowd_add(c.c, &body, 1.5f, std::uint32_t(i), CS_ALL_LAYERS, &index), CS_OK) << cs_last_error();
    ASSERT_EQ(index, i);
    ASSERT_EQ(cs_nav_crowd_set_goal(c.c, i, &goal.x), CS_OK);
  }
  ASSERT_EQ(cs_nav_crowd_agent_count(c.c), kAgents);
  std::vector<cs_nav_agent> agents(kAgents);
  std::vector<cs_move_result> results(kAgents);
  std::size_t walked = 0;
  for (int t = 0; t < 40; ++t) {
    cpp.tick();
    ASSERT_EQ(cs_nav_crowd_tick(c.c), CS_OK) << cs_last_error();
    ASSERT_EQ(cs_nav_crowd_agents(c.c, 0, kAgents, agents.data()), CS_OK);
    ASSERT_EQ(cs_nav_crowd_results(c.c, 0, kAgents, results.data()), CS_OK);
    for (std::size_t i = 0; i < kAgents; ++i) {
      const NavAgent& a = cpp.agents()[i];
      const cs_nav_agent want_agent = [&] {
        cs_nav_agent r{};
        r.capsule = records::record(a.capsule);
        r.speed = a.speed, r.id = a.id, r.layers = a.layers, r.status = std::uint8_t(a.status);
        r.returning = a.returning;
        records::put(r.goal, a.goal);
        records::put(r.velocity, a.velocity);
        r.vertical_speed = a.vertical_speed, r.ground_triangle = a.ground_triangle, r.replans = a.replans;
        return r;
      }();
      ASSERT_EQ(std::memcmp(&agents[i], &want_agent, sizeof want_agent), 0) << "agent " << i << ", tick " << t;
      const cs_move_result want = records::record(cpp.results()[i], Status::ok);
      ASSERT_EQ(std::memcmp(&results[i], &want, sizeof want), 0) << "agent " << i << ", tick " << t;
      if (t == 39) walked += agents[i].status == CS_NAV_WALKING || agents[i].status == CS_NAV_ARRIVED;
    }
  }
  EXPECT_GT(walked, kAgents / 2);
  // The next corners, as C++ gives them.
  const std::vector<Vec3> want = cpp.corners(0, 4);
  float corners[12];
  std::size_t count = 0;
  ASSERT_EQ(cs_nav_crowd_corners(c.c, 0, corners, 4, &count), CS_OK);
  ASSERT_EQ(count, want.size());
  EXPECT_EQ(std::memcmp(corners, want.data(), count * sizeof(Vec3)), 0);
  double planning = -1, moving = -1;
  ASSERT_EQ(cs_nav_crowd_times(c.c, &planning, &moving), CS_OK);
  EXPECT_GE(planning, 0);
  EXPECT_GT(moving, 0);
}

TEST(CApiNav, RefusesNullsBadIndicesAndBadSettingsByName) {
  const Level& l = level();
  const cs_capsule body = records::record(kPerson);
  cs_navmesh_settings s;
  EXPECT_EQ(cs_navmesh_settings_for(nullptr, nullptr, CS_ALL_LAYERS, &s), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("body is NULL"), std::string::npos);
  EXPECT_EQ(cs_navmesh_settings_for(nullptr, &body, 0, &s), CS_ERROR_ARGUMENT);
  ASSERT_EQ(cs_navmesh_settings_for(nullptr, &body, CS_ALL_LAYERS, &s), CS_OK);
  EXPECT_STREQ(cs_last_error(), "");

  // A setting out of range: refused, named, and *out is NULL.
  cs_navmesh_settings bad = s;
  bad.cell_size = 0;
  cs_navmesh* m = reinterpret_cast<cs_navmesh*>(&bad);
  EXPECT_EQ(cs_navmesh_build(l.world.w, &bad, 1, &m), CS_ERROR_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  EXPECT_NE(std::string(cs_last_error()).find("cs_navmesh_build: "), std::string::npos);
  NavMeshSettings zero = navmesh_settings(MoveSettings{}, kPerson);
  zero.cell_size = 0;
  EXPECT_EQ(std::string(cs_last_error()), "cs_navmesh_build: " + check_navmesh_settings(zero));
  EXPECT_EQ(cs_navmesh_build(nullptr, &s, 1, &m), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_navmesh_build(l.world.w, &s, -1, &m), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_navmesh_read(nullptr, &m), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_navmesh_write(nullptr, "x"), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_navmesh_stats_of(nullptr, nullptr), CS_ERROR_ARGUMENT);
  const float nan3[3] = {NAN, 0, 0}, p[3] = {0, 0, 0};
  std::size_t count = 0;
  EXPECT_EQ(cs_navmesh_path(l.navmesh.m, nan3, p, nullptr, 0, &count, nullptr, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("from is not finite"), std::string::npos);
  EXPECT_EQ(cs_navmesh_path(l.navmesh.m, p, p, nullptr, 4, &count, nullptr, nullptr), CS_ERROR_ARGUMENT);
  const float negative[3] = {-1, 1, 1};
  float out[3];
  int found = 0;
  EXPECT_EQ(cs_navmesh_nearest(l.navmesh.m, p, negative, out, &found), CS_ERROR_ARGUMENT);
  // A reach past a kilometre: Detour would walk every tile cell of the box (1e30 m: forever).
  const float vast[3] = {1, 1e30f, 1};
  EXPECT_EQ(cs_navmesh_nearest(l.navmesh.m, p, vast, out, &found), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("reach: each half extent must be 0 to 1000 m"), std::string::npos);
  EXPECT_EQ(cs_navmesh_write(l.navmesh.m, "/nonexistent-dir/x.cwnm"), CS_ERROR_FILE);
  EXPECT_NE(std::string(cs_last_error()).find("/nonexistent-dir/x.cwnm"), std::string::npos);

  // Crowds: settings, agents and indices.
  cs_nav_crowd_settings cs;
  cs_nav_crowd_settings_default(&cs);
  cs_nav_crowd* c = nullptr;
  cs_nav_crowd_settings wrong = cs;
  wrong.max_neighbours = 0;
  EXPECT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, &wrong, &c), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("max_neighbours"), std::string::npos);
  wrong = cs;
  wrong.return_reach = 1e30f;
  EXPECT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, &wrong, &c), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("return_reach 0 to 1000 m"), std::string::npos);
  wrong = cs;
  wrong.layer_mask = 0;
  EXPECT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, &wrong, &c), CS_ERROR_ARGUMENT);
  wrong = cs;
  wrong.move.dt = -1;
  EXPECT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, &wrong, &c), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_create(l.world.w, nullptr, &cs, &c), CS_ERROR_ARGUMENT);
  EXPECT_EQ(c, nullptr);
  CrowdHandle crowd;
  ASSERT_EQ(cs_nav_crowd_create(l.world.w, l.navmesh.m, nullptr, &crowd.c), CS_OK);
  cs_nav_agent agent;
  cs_move_result result;
  EXPECT_EQ(cs_nav_crowd_results(crowd.c, 0, 0, nullptr), CS_OK);  // an empty crowd has its (no) results
  EXPECT_EQ(cs_nav_crowd_agents(crowd.c, 0, 1, &agent), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("past the crowd's 0"), std::string::npos);
  cs_capsule wide = body;
  wide.radius = 2;
  EXPECT_EQ(cs_nav_crowd_add(crowd.c, &wide, 1.5f, 0, CS_ALL_LAYERS, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_NE(std::string(cs_last_error()).find("wider than the navmesh"), std::string::npos);
  cs_capsule broken = body;
  broken.a[1] = INFINITY;
  EXPECT_EQ(cs_nav_crowd_add(crowd.c, &broken, 1.5f, 0, CS_ALL_LAYERS, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_add(crowd.c, &body, 0.f, 0, CS_ALL_LAYERS, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_add(crowd.c, &body, 1.5f, 0, 0, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_agent_count(crowd.c), 0u);
  ASSERT_EQ(cs_nav_crowd_add(crowd.c, &body, 1.5f, 0, CS_ALL_LAYERS, nullptr), CS_OK);
  EXPECT_EQ(cs_nav_crowd_results(crowd.c, 0, 1, &result), CS_ERROR_ARGUMENT);  // no tick yet
  EXPECT_EQ(cs_nav_crowd_set_goal(crowd.c, 1, p), CS_ERROR_ARGUMENT);
  EXPECT_STREQ(cs_last_error(), "cs_nav_crowd_set_goal: agent 1 of 1");
  EXPECT_EQ(cs_nav_crowd_set_goal(crowd.c, 0, nan3), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_set_goal(crowd.c, 0, nullptr), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_tick(nullptr), CS_ERROR_ARGUMENT);
  ASSERT_EQ(cs_nav_crowd_tick(crowd.c), CS_OK);
  EXPECT_EQ(cs_nav_crowd_results(crowd.c, 0, 1, &result), CS_OK);
  EXPECT_EQ(cs_nav_crowd_results(crowd.c, 1, 1, &result), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_corners(crowd.c, 3, out, 1, &count), CS_ERROR_ARGUMENT);
  EXPECT_EQ(cs_nav_crowd_agent_count(nullptr), 0u);
  cs_nav_crowd_free(nullptr);
  cs_navmesh_free(nullptr);
}

// A damaged file is CS_ERROR_FILE naming the file and why (NavMesh::read's message), never a
// handle to half a navmesh.
TEST(CApiNav, RefusesADamagedNavMeshFileByName) {
  const Level& l = level();
  const std::string good = temp_path("good.cwnm"), bad = temp_path("bad.cwnm");
  ASSERT_EQ(cs_navmesh_write(l.navmesh.m, good.c_str()), CS_OK);
  std::string bytes = bytes_of(good);
  bytes[bytes.size() / 2] ^= 0x10;
  std::ofstream(bad, std::ios::binary) << bytes;
  std::string cpp_message;
  try {
    NavMesh::read(bad);
  } catch (const NavMeshError& e) {
    cpp_message = e.what();
  }
  ASSERT_FALSE(cpp_message.empty());
  cs_navmesh* m = reinterpret_cast<cs_navmesh*>(&bytes);
  EXPECT_EQ(cs_navmesh_read(bad.c_str(), &m), CS_ERROR_FILE);
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(std::string(cs_last_error()), cpp_message);
  EXPECT_NE(cpp_message.find(bad), std::string::npos);
  std::ofstream(bad, std::ios::binary) << bytes.substr(0, 20);
  EXPECT_EQ(cs_navmesh_read(bad.c_str(), &m), CS_ERROR_FILE);
  EXPECT_NE(std::string(cs_last_error()).find(bad + ": header"), std::string::npos);
  EXPECT_EQ(cs_navmesh_read(temp_path("missing.cwnm").c_str(), &m), CS_ERROR_FILE);
  EXPECT_NE(std::string(cs_last_error()).find("missing.cwnm"), std::string::npos);
}

}  // namespace
