// The main job's world (tools/moving_arena.h): a crowd on the arena whose door slides and whose
// lift rises to the upper floor, each tick on its own frame (CrowdSettings::poses). Agents ride
// the lift up, the door and the lift's gate wait for whoever stands in their way (nobody is
// pushed into anybody, nobody crushed), no agent ends a tick inside anything, and 1 and 2
// threads give the same bytes. (The library's pushes and crushes: moving_instances_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include <capsweep/world.h>
#include "tests/support/same_answers.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "tools/moving_arena.h"

namespace {

using namespace capsweep;

const Instance& part(const World& frame, std::uint32_t id) {
  for (const Instance& in : frame.instances()) {
    if (in.id == id) return in;
  }
  throw std::runtime_error("no instance " + std::to_string(id));
}

// Whether a standing agent (a vertical capsule) overlaps the door panel at the frame's pose: its
// axis within its radius of the panel's footprint (x in [pose - 2, pose], z within 5 cm of it),
// its feet below the panel's top (2.9 m; not on the wall around it).
bool in_the_doors_way(const World& frame, const Capsule& c) {
  const Vec3d& at = part(frame, kArenaDoorId).pose.position;
  if (c.a.y - c.radius > 2.9f) return false;
  const double dx = std::max({at.x - 2 - c.a.x, double(c.a.x) - at.x, 0.0});
  const double dz = std::max(std::fabs(double(c.a.z) - at.z) - 0.05, 0.0);
  return std::hypot(dx, dz) < c.radius;
}

TEST(MovingArena, KeepsTheStaticArenasTrianglesFirstAndStartsAtTickZerosPoses) {
  const World world = make_moving_arena();
  const std::vector<Triangle> arena = make_arena();
  ASSERT_GT(world.stats().mesh_triangles, arena.size());
  for (std::uint32_t i = 0; i < arena.size(); ++i) ASSERT_TRUE(answers::bits(world.triangle(i), arena[i])) << i;
  const std::vector<InstancePose> start = ArenaMotion().poses();
  ASSERT_EQ(world.instances().size(), start.size());
  for (const InstancePose& p : start) {
    EXPECT_TRUE(answers::bits(part(world, p.id).pose.position, p.pose.position)) << "instance " << p.id;
  }
  // The lift stops flush with the ground and with the upper floor; the door closes its doorway.
  // The gate is open only while the lift stands at the upper floor.
  double lowest = 1e9, highest = -1e9, door_min = 1e9, door_max = -1e9;
  std::size_t gate_open = 0;
  ArenaMotion motion;
  for (std::uint64_t tick = 0; tick < 60 * 15; ++tick) {
    const std::vector<InstancePose> poses = motion.next({});
    double lift = 0, gate = 0;
    for (const InstancePose& p : poses) {
      if (p.id == kArenaLiftId) lift = p.pose.position.y;
      if (p.id == kArenaGateId) gate = p.pose.position.z;
      if (p.id == kArenaDoorId) door_min = std::min(door_min, p.pose.position.x), door_max = std::max(door_max, p.pose.position.x);
    }
    lowest = std::min(lowest, lift);
    highest = std::max(highest, lift);
    if (gate != 15.0) {
      ++gate_open;
      EXPECT_EQ(lift, double(kUpperFloorHeight)) << "tick " << tick << ": the gate opens on an empty shaft";
    }
  }
  EXPECT_EQ(lowest, 0.0);
  EXPECT_EQ(highest, double(kUpperFloorHeight));
  EXPECT_GT(gate_open, 0u);
  EXPECT_EQ(door_min, -16.0);
  EXPECT_EQ(door_max, -14.0);
}

TEST(MovingArena, ACrowdRidesTheLiftUpAndTheDoorWaitsForItOnOneAndTwoThreads) {
  const World world = make_moving_arena();
  CrowdSettings s;
  s.agents = 700;
  s.seed = 5;
  // Each crowd its own motion (the door waits for its agents); the test keeps a view of both.
  auto motion_one = std::make_shared<ArenaMotion>(), motion_two = std::make_shared<ArenaMotion>();
  s.poses = [motion_one](std::uint64_t, std::span<const Agent> agents) { return motion_one->next(agents); };
  CrowdSettings two = s;
  two.poses = [motion_two](std::uint64_t, std::span<const Agent> agents) { return motion_two->next(agents); };
  s.batch.threads = 1;
  two.batch.threads = 2;
  Crowd one_thread(world, s), two_threads(world, two);
  const std::size_t n = one_thread.agents().size();
  ASSERT_EQ(n, 700u);
  // Two lift cycles and a bit, so the door closes and opens more than twice too.
  const int ticks = int(60 * (2 * kLiftCycleSeconds + 1));
  std::vector<std::uint8_t> was_on_the_ground(n), rode_up(n);
  std::size_t penetrating = 0, overlapping = 0, met_by_the_door = 0, door_closed = 0;
  for (int t = 0; t < ticks; ++t) {
    const std::vector<Agent> before = one_thread.agents();
    const double door_was = part(one_thread.frame(), kArenaDoorId).pose.position.x;
    one_thread.tick();
    two_threads.tick();
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(answers::same(one_thread.results()[i], two_threads.results()[i])) << "tick " << t << " agent " << i;
    }
    const CrowdViolations v = one_thread.check();
    penetrating += v.penetrating;
    overlapping += v.overlapping;
    const World& frame = one_thread.frame();
    door_closed += part(frame, kArenaDoorId).pose.position.x == -14.0;
    const bool door_moved = part(frame, kArenaDoorId).pose.position.x != door_was;
    for (std::size_t i = 0; i < n; ++i) {
      const MoveResult& r = one_thread.results()[i];
      const float feet = r.capsule.a.y - r.capsule.radius;
      if (feet < 0.1f) was_on_the_ground[i] = 1;
      // Up there: on the lift or the upper floor (x >= 12.5, z >= 12), 2.5 m up.
      if (was_on_the_ground[i] && feet > kUpperFloorHeight - 0.05f && feet < kUpperFloorHeight + 0.1f &&
          r.capsule.a.x > 12.5f && r.capsule.a.z > 12.f) {
        rode_up[i] = 1;
      }
      // The door never moves onto where someone stands (someone may fall onto it while it waits).
      if (door_moved && in_the_doors_way(frame, before[i].capsule)) {
        ++met_by_the_door;
        ADD_FAILURE() << "tick " << t << " agent " << i << " at " << before[i].capsule.a.x << ", " << before[i].capsule.a.y
                      << ", " << before[i].capsule.a.z << ": the door moved onto it (door at "
                      << part(frame, kArenaDoorId).pose.position.x << ")";
      }
    }
  }
  const std::size_t riders = std::size_t(std::count(rode_up.begin(), rode_up.end(), 1));
  EXPECT_EQ(penetrating, 0u);
  EXPECT_EQ(overlapping, 0u);
  EXPECT_EQ(one_thread.totals().fell_through_cracks, 0u);
  EXPECT_GT(riders, 0u) << "nobody rode the lift up";
  EXPECT_GT(one_thread.totals().carried, 0u);
  EXPECT_EQ(met_by_the_door, 0u);
  EXPECT_EQ(one_thread.totals().crushed, 0u);
  EXPECT_GT(motion_one->door_waits(), 0u) << "the door waited for nobody";
  EXPECT_GT(door_closed, 0u) << "the door never closed";
  EXPECT_EQ(motion_one->door_waits(), motion_two->door_waits());
  EXPECT_EQ(motion_one->gate_waits(), motion_two->gate_waits());
  EXPECT_EQ(one_thread.totals().carried, two_threads.totals().carried);
  std::printf("%zu agents rode the lift up; %llu agent-ticks carried; the door waited %llu ticks, the gate %llu; "
              "the door stood closed %zu ticks\n",
              riders, (unsigned long long)one_thread.totals().carried, (unsigned long long)motion_one->door_waits(),
              (unsigned long long)motion_one->gate_waits(), door_closed);
}

// A world standing still is the crowd it always was: no schedule, no frame of its own.
TEST(MovingArena, ACrowdWithoutPosesMovesAsBefore) {
  const World world(make_arena());
  CrowdSettings s;
  s.agents = 200;
  s.batch.threads = 1;
  Crowd plain(world, s);
  for (int t = 0; t < 30; ++t) plain.tick();
  EXPECT_EQ(plain.totals().carried, 0u);
  EXPECT_EQ(plain.totals().crushed, 0u);
  EXPECT_EQ(plain.frame().instances().size(), 0u);
}

}  // namespace
