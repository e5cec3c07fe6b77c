// Long runs of movement (issue 35). In the normal build only: tests/sanitize.sh leaves
// `LongRuns` and `LongCrowds` out, as it leaves out the other marathons.
//   - Creases (LongRuns): on every scene, agents a crowd left stuck against two or more surfaces
//     keep pressing into them for 100,000 ticks, near the origin and 100 km from it. Float
//     rounding never takes them into their skin: the oracle's exact distance, every 16th tick of
//     each that moved.
//   - Crowds (LongCrowds): 1,000 agents for 3,600 ticks, capsules and ellipsoids in turn, agents
//     colliding or passing through each other, on the scenes and the levels of tests/levels/:
//     every invariant of a tick (long_crowd below). CI runs a bounded sample of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <capsweep/files.h>
#include <capsweep/world.h>
#include "core/body.h"
#include "tools/crowd.h"
#include "tests/support/oracle.h"
#include "tests/support/scene_list.h"
#include "tests/support/triangle_grid.h"

namespace {

using namespace capsweep;

std::vector<Triangle> shifted(std::vector<Triangle> triangles, const Vec3d& by) {
  for (Triangle& t : triangles) {
    for (Vec3& v : t.v) v = to_float(to_double(v) + by);
  }
  return triangles;
}

Aabb bounds_of(const std::vector<Triangle>& triangles) {
  Aabb b;
  for (const Triangle& t : triangles) {
    for (const Vec3& v : t.v) b.grow(v);
  }
  return b;
}

// The exactness tolerance of a world (the brief's): max(0.1 mm, 4e-7 x its largest coordinate).
double tolerance_of(const Aabb& b) {
  const double largest = std::max({std::fabs(b.min.x), std::fabs(b.min.y), std::fabs(b.min.z), std::fabs(b.max.x),
                                   std::fabs(b.max.y), std::fabs(b.max.z)});
  return std::max(1e-4, 4e-7 * largest);
}

// Exact distance from the capsule's surface to the mesh, within `reach` (INFINITY beyond).
double gap(const oracle::TriangleGrid& grid, const std::vector<Triangle>& triangles, const Capsule& c, float reach) {
  double best = INFINITY;
  Aabb box;
  for (const Vec3& p : {c.a, c.b}) {
    box.grow(p - Vec3{c.radius + reach, c.radius + reach, c.radius + reach});
    box.grow(p + Vec3{c.radius + reach, c.radius + reach, c.radius + reach});
  }
  for (std::size_t k : grid.near(box)) {
    const Triangle& t = triangles[k];
    const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
    best = std::min(best, oracle::segment_triangle(to_double(c.a), to_double(c.b), v).distance - c.radius);
  }
  return best;
}

// Up to `count` capsule agents a crowd (agents passing through each other) left stuck against
// two or more triangles, each with the walk that pressed it there; on a world with too few such
// creases (open terrain), topped up with agents stuck against one steep triangle.
std::vector<Agent> agents_in_creases(const World& world, std::size_t count) {
  CrowdSettings cs;
  cs.agents = 1000;
  cs.seed = 5;
  cs.up_to_capacity = true;
  cs.move.agents_collide = false;
  Crowd crowd(world, cs);
  std::vector<Agent> found, against_one;
  auto taken = [](const std::vector<Agent>& in, std::uint32_t id) {
    return std::any_of(in.begin(), in.end(), [&](const Agent& a) { return a.id == id; });
  };
  for (int tick = 0; tick < 600 && found.size() < count; ++tick) {
    crowd.tick();
    for (std::size_t i = 0; i < crowd.agents().size() && found.size() < count; ++i) {
      const MoveResult& r = crowd.results()[i];
      int walls = 0;
      for (int k = 0; k < r.contact_count; ++k) walls += r.contacts[k].triangle != kNoTriangle;
      // Stuck where it is pressed: blocked by triangles, hardly moving.
      if (!(r.flags & kMoveBlocked) || walls == 0 || (r.flags & kMoveFalling) || length(r.moved) > 1e-3f) continue;
      std::vector<Agent>& into = walls >= 2 ? found : against_one;
      const std::uint32_t id = crowd.agents()[i].id;
      if (taken(found, id) || taken(against_one, id) || (walls == 1 && against_one.size() >= count)) continue;
      Agent a = crowd.agents()[i];
      a.displacement = crowd.previous()[i].displacement;
      into.push_back(a);
    }
  }
  for (std::size_t k = 0; found.size() < count && k < against_one.size(); ++k) found.push_back(against_one[k]);
  return found;
}

// Every scene of scenes/ and the arena, and the levels of tests/levels/ (real levels the
// per-scene tests do not read: "levels/NAME").
std::vector<std::string> worlds() {
  std::vector<std::string> names = scenes::readable(scenes::names());
#if CAPSWEEP_TESTS_READ_FILES
  for (const char* level : {"nexuiz_dieselpower.obj.gz", "oa_ctf_compromise.obj.gz", "oa_shouse.obj.gz"}) {
    names.push_back(std::string("levels/") + level);
  }
#endif
  return names;
}

std::vector<Triangle> load(const std::string& name) {
#if CAPSWEEP_TESTS_READ_FILES
  if (name.starts_with("levels/")) return load_scene(std::string(CAPSWEEP_SOURCE_DIR) + "/tests/" + name);
#endif
  return scenes::load(name);
}

class LongRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(LongRuns, AgentsPressedIntoCreasesFor100000TicksNeverEnterTheSkin) {
  const std::vector<Triangle> original = load(GetParam());
  const Aabb b = bounds_of(original);
  const Vec3d centre = (to_double(b.min) + to_double(b.max)) * 0.5;
  const std::vector<Agent> pressed = agents_in_creases(World(original), 2);
  ASSERT_EQ(pressed.size(), 2u) << "the crowd left too few agents in creases";
  const MoveSettings s = [] {
    MoveSettings m;
    m.agents_collide = false;
    return m;
  }();
  // Near the origin (the scene's centre at it), then 100 km from it.
  for (const Vec3d& to : {Vec3d{0, 0, 0}, Vec3d{100'000, 0, 0}}) {
    const Vec3d shift{std::round(to.x - centre.x), std::round(-centre.y), std::round(-centre.z)};
    const std::vector<Triangle> triangles = shifted(original, shift);
    const oracle::TriangleGrid grid(triangles);
    const World world(triangles);
    const double clearance = s.skin - tolerance_of(bounds_of(triangles));
    std::vector<Agent> agents = pressed;
    for (Agent& a : agents) {
      a.capsule.a = to_float(to_double(a.capsule.a) + shift);
      a.capsule.b = to_float(to_double(a.capsule.b) + shift);
      a.ground_triangle = kNoTriangle;
    }
    std::vector<MoveResult> results(agents.size());
    std::size_t measured = 0, wedged = 0;
    std::vector<std::uint8_t> moved(agents.size(), 0);
    for (int tick = 0; tick < 100'000; ++tick) {
      world.move(agents, s, results);
      for (std::size_t i = 0; i < agents.size(); ++i) {
        const MoveResult& r = results[i];
        wedged += (r.flags & kMoveWedged) != 0;
        // Measured every 16th tick of each agent (a drift into the skin, once there, stays until
        // something pushes it out, which the solver would have done at once), and whenever it
        // moved in the last of them. The first tick may push a body the shift's rounding put
        // inside its skin back out.
        moved[i] |= !(r.capsule.a == agents[i].capsule.a && r.capsule.b == agents[i].capsule.b);
        if (tick > 0 && moved[i] && (tick + int(i)) % 16 == 0) {
          moved[i] = 0;
          ++measured;
          const double g = gap(grid, triangles, r.capsule, s.skin);
          ASSERT_GE(g, clearance) << GetParam() << " shifted by " << shift.x << ": agent " << i << " at tick " << tick
                                  << " is " << g << " m from the mesh";
        }
        agents[i].capsule = r.capsule;
        agents[i].vertical_speed = r.vertical_speed;
        agents[i].ground_triangle = r.ground_triangle;
      }
    }
    std::printf("%s shifted by (%.0f, %.0f, %.0f): %zu agents for 100,000 ticks, %zu moves measured, %zu agent-ticks "
                "wedged\n",
                GetParam().c_str(), shift.x, shift.y, shift.z, agents.size(), measured, wedged);
  }
}

// 1,000 agents (capsules and ellipsoids in turn) walking for 3,600 ticks at 60 Hz, agents
// colliding or passing through each other. Every tick: no agent inside its skin, no two agents
// overlapping (the crowd's own check), no grounded tick further than wanted or backwards beyond
// the skin's restoration, every fall off the world through a hole; and the segments of every
// 16th agent (a different sixteenth each tick) swept with the exact body on the scalar path
// (byte-identical to brute force) meet no triangle on their way (classify_fall: a crack).
void long_crowd(const std::string& name, bool agents_collide) {
  const World world(load(name));
  CrowdSettings cs;
  cs.agents = 1000;
  cs.seed = 7;
  cs.up_to_capacity = true;
  cs.move.agents_collide = agents_collide;
  cs.agent_shapes = {AgentShape::capsule, AgentShape::ellipsoid};
  Crowd crowd(world, cs);
  ASSERT_GE(crowd.agents().size(), 1000u);
  std::size_t penetrating = 0, overlapping = 0, too_far = 0, backwards = 0, crossed = 0, sampled = 0;
  double worst_beyond = 0;
  std::string first;
  for (int tick = 0; tick < 3600; ++tick) {
    crowd.tick();
    const CrowdViolations v = crowd.check();
    penetrating += v.penetrating, overlapping += v.overlapping;
    for (std::size_t i = 0; i < crowd.agents().size(); ++i) {
      const Agent& before = crowd.previous()[i];
      const MoveResult& r = crowd.results()[i];
      if ((i + std::size_t(tick)) % 16 == 0 && r.flags != kMoveHeldByAgents) {
        const MoveSegments& s = crowd.segments()[i];
        ++sampled;
        const FallCheck c = classify_fall(world, {s.segment, std::size_t(s.count)}, before.shape, before.layers, cs.move.skin);
        if (c.cause == FallCause::crack) {
          ++crossed;
          if (first.empty()) first = "tick " + std::to_string(tick) + ": agent " + std::to_string(i) + " crossed a triangle";
        }
      }
      // The bound holds for ticks that start and end on the ground, without a push out of
      // geometry (depenetration is not travel) or a hold by other agents.
      if (before.vertical_speed != 0 || !r.grounded || (r.flags & (kMoveDepenetrated | kMoveHeldByAgents))) continue;
      const Vec3 wanted{before.displacement.x, 0, before.displacement.z};
      const Vec3 moved{r.moved.x, 0, r.moved.z};
      const double slack = 4.0 * (skin_reach(body_of(before), cs.move.skin) + cs.move.backoff) + 1e-5;
      const double beyond = length(moved) - length(wanted);
      const double back = length(wanted) > 0 ? -dot(moved, wanted) / length(wanted) : 0.0;
      worst_beyond = std::max({worst_beyond, beyond, back});
      if (beyond > slack || back > slack) {
        (beyond > slack ? too_far : backwards) += 1;
        if (first.empty()) {
          first = "tick " + std::to_string(tick) + ": agent " + std::to_string(i) + " wanted " + std::to_string(length(wanted)) +
                  " m, moved (" + std::to_string(moved.x) + ", " + std::to_string(moved.z) + ")";
        }
      }
    }
  }
  const CrowdTotals& t = crowd.totals();
  EXPECT_EQ(penetrating, 0u) << first;
  EXPECT_EQ(overlapping, 0u) << first;
  EXPECT_EQ(too_far, 0u) << first;
  EXPECT_EQ(backwards, 0u) << first;
  EXPECT_EQ(crossed, 0u) << first;
  EXPECT_EQ(t.fell_through_cracks, 0u);
  std::printf("%s, agents %s: %llu agent-ticks, %llu wedged, %llu falling, %llu blocked, respawned %llu (%llu through "
              "holes, %llu through cracks), %zu agent-ticks' segments swept, worst horizontal excess %.4f m\n",
              name.c_str(), agents_collide ? "colliding" : "passing through", (unsigned long long)t.agent_ticks,
              (unsigned long long)t.wedged, (unsigned long long)t.falling, (unsigned long long)t.blocked,
              (unsigned long long)t.respawned, (unsigned long long)t.fell_through_holes,
              (unsigned long long)t.fell_through_cracks, sampled, worst_beyond);
}

// CI runs a bounded sample of the long crowds (one run, a level agents collide on, 25 s of two
// cores), for its time; the whole matrix, every world with agents colliding and passing through,
// with CAPSWEEP_LONG_RUNS=all (about 15 minutes of two cores; README, "How exactness is checked").
struct CrowdRun {
  std::string world;
  bool agents_collide;
};

std::vector<CrowdRun> crowd_runs() {
  const char* all = std::getenv("CAPSWEEP_LONG_RUNS");
  std::vector<CrowdRun> runs;
  if (all && std::string(all) == "all") {
    for (const std::string& w : worlds()) runs.push_back({w, true}), runs.push_back({w, false});
    return runs;
  }
  const std::vector<std::string> w = worlds();
  if (std::find(w.begin(), w.end(), "levels/oa_shouse.obj.gz") != w.end()) runs.push_back({"levels/oa_shouse.obj.gz", true});
  if (runs.empty()) runs.push_back({"@arena", true});  // a build without files to read
  return runs;
}

void PrintTo(const CrowdRun& r, std::ostream* os) {
  *os << r.world << (r.agents_collide ? ", agents colliding" : ", agents passing through");
}

class LongCrowds : public ::testing::TestWithParam<CrowdRun> {};

TEST_P(LongCrowds, OneThousandAgentsFor3600TicksKeepEveryInvariant) {
  long_crowd(GetParam().world, GetParam().agents_collide);
}

INSTANTIATE_TEST_SUITE_P(Scenes, LongCrowds, ::testing::ValuesIn(crowd_runs()), [](const auto& info) {
  return scenes::test_name(info.param.world) + (info.param.agents_collide ? "_colliding" : "_passing_through");
});

INSTANTIATE_TEST_SUITE_P(Scenes, LongRuns, ::testing::ValuesIn(scenes::readable(scenes::names())),
                         [](const auto& info) { return scenes::test_name(info.param); });

}  // namespace
