// World::move, one behaviour per test, on small hand-built worlds: stairs, ramps, slopes,
// walls, corners, creases, seams, ledges, other agents, starts inside geometry, bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <span>
#include <thread>

#include <capsweep/sweep.h>
#include <capsweep/world.h>
#include "world/world_arrays.h"
#include "world/batch_order.h"
#include "world/sweeps.h"
#include "tools/arena.h"
#include "tools/crowd.h"
#include "tests/support/oracle.h"
#include "tests/support/people.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;
using testmesh::Mesh;

using people::alone;
using people::kAxis;
using people::kR;
using people::person;

// Runs ticks for one agent; returns the last result.
MoveResult walk(const World& w, Agent& a, int ticks, const MoveSettings& s = alone()) {
  MoveResult r;
  for (int i = 0; i < ticks; ++i) {
    w.move({&a, 1}, s, {&r, 1});
    a.capsule = r.capsule;
    a.vertical_speed = r.vertical_speed;
  }
  return r;
}

float bottom(const Agent& a) { return a.capsule.a.y - a.capsule.radius; }

// Exact distance from the capsule's surface to the nearest triangle (the oracle's own code).
double gap(const World& w, const Capsule& c) {
  double best = INFINITY;
  for (const Triangle& t : w.mesh_triangles()) {
    const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
    best = std::min(best, oracle::segment_triangle(to_double(c.a), to_double(c.b), v).distance);
  }
  return best - c.radius;
}

TEST(Move, ClimbsStepsUpToTheStepHeight) {
  const World w(Mesh().floor(-2, -2, 6, 2, 1).box({1, 0, -2}, {6, 0.3f, 2}).triangles());
  Agent a = person(0, 0, 0, {0.1f, 0, 0});
  bool stepped = false;
  for (int i = 0; i < 40; ++i) stepped |= (walk(w, a, 1).flags & kMoveSteppedUp) != 0;
  EXPECT_TRUE(stepped);
  EXPECT_GT(a.capsule.a.x, 3.f);                       // kept walking on top
  EXPECT_NEAR(bottom(a), 0.3f + 0.015f, 0.003f);       // one skin plus the backoff above the step
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

TEST(Move, RefusesStepsHigherThanTheStepHeight) {
  const World w(Mesh().floor(-2, -2, 6, 2, 1).box({1, 0, -2}, {6, 0.5f, 2}).triangles());
  Agent a = person(0, 0, 0, {0.1f, 0, 0});
  const MoveResult r = walk(w, a, 40);
  EXPECT_LT(a.capsule.a.x, 1.f - kR + 0.05f);  // still before the step
  EXPECT_LT(bottom(a), 0.05f);
  EXPECT_TRUE(r.flags & kMoveBlocked);
  EXPECT_TRUE(r.grounded);
}

TEST(Move, WalksUpA30DegreeRamp) {
  const World w(Mesh().floor(-3, -2, 1, 2, 1).ramp(1, -2, 4, 30, 2, 3).triangles());
  Agent a = person(0, 0, 0, {0.1f, 0, 0});
  for (int i = 0; i < 70; ++i) {
    const MoveResult r = walk(w, a, 1);
    ASSERT_TRUE(r.grounded) << "tick " << i;
  }
  EXPECT_GT(a.capsule.a.x, 1 + 2 / std::tan(std::numbers::pi_v<float> / 6));  // on the platform at the top
  EXPECT_NEAR(bottom(a), 2.015f, 0.003f);
}

TEST(Move, CannotWalkUpA60DegreeSlope) {
  const World w(Mesh().floor(-3, -2, 1, 2, 1).ramp(1, -2, 4, 60, 3, 3).triangles());
  Agent a = person(0, 0, 0, {0.1f, 0, 0});
  float highest = 0;
  for (int i = 0; i < 100; ++i) {
    walk(w, a, 1);
    highest = std::max(highest, bottom(a));
  }
  EXPECT_LT(highest, 0.05f);  // not even partly up
  EXPECT_LT(a.capsule.a.x, 1.f);
}

TEST(Move, StandsStillOnA30DegreeSlopeUnderGravity) {
  const World w(Mesh().ramp(-5, -2, 4, 30, 6, 1).triangles());
  // Stand on the slope: the sphere centre one radius (plus 2 cm) from the plane.
  const float angle = std::numbers::pi_v<float> / 6;
  const float x = 0, ground = (x + 5) * std::tan(angle);
  Agent a = person(x, ground + kR * (1 / std::cos(angle) - 1), 0);
  walk(w, a, 10);  // settle onto the slope
  const Capsule settled = a.capsule;
  const MoveResult r = walk(w, a, 300);
  EXPECT_TRUE(r.grounded);
  EXPECT_EQ(r.vertical_speed, 0.f);
  EXPECT_NEAR(a.capsule.a.x, settled.a.x, 1e-5);
  EXPECT_NEAR(a.capsule.a.y, settled.a.y, 1e-5);
}

TEST(Move, SlidesAlongAWallKeepingTheTangentialSpeed) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).wall(-4, 1, 4, 1, 3).triangles());
  // 45 degrees into the wall at z = 1: the x part (0.1 m per tick) must survive in full.
  Agent a = person(-3, 0, 0, {0.1f, 0, 0.1f});
  walk(w, a, 15);  // reach the wall
  for (int i = 0; i < 20; ++i) {
    const float x = a.capsule.a.x;
    const MoveResult r = walk(w, a, 1);
    EXPECT_NEAR(a.capsule.a.x - x, 0.1f, 1e-4) << "tick " << i;
    EXPECT_NEAR(a.capsule.a.z, 1 - kR - 0.015f, 1e-3);
    EXPECT_TRUE(r.grounded);
  }
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

void expect_rests_without_jitter(const World& w, Agent a) {
  walk(w, a, 100);  // reach the corner and settle
  const Capsule rest = a.capsule;
  for (int i = 0; i < 100; ++i) {
    walk(w, a, 1);
    ASSERT_NEAR(a.capsule.a.x, rest.a.x, 1e-5) << "tick " << i;
    ASSERT_NEAR(a.capsule.a.y, rest.a.y, 1e-5) << "tick " << i;
    ASSERT_NEAR(a.capsule.a.z, rest.a.z, 1e-5) << "tick " << i;
  }
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

TEST(Move, RestsInA90DegreeCornerWithoutJitter) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).wall(-4, 2, 2, 2, 3).wall(2, -4, 2, 2, 3).triangles());
  expect_rests_without_jitter(w, person(0, 0, 0, {0.1f, 0, 0.07f}));
}

TEST(Move, RestsInAVShapedCreaseWithoutJitter) {
  // Two walls meeting at 40 degrees at (2, 0); the agent pushes straight into the apex.
  const float half = 20 * std::numbers::pi_v<float> / 180;
  const World w(Mesh()
                    .floor(-4, -4, 4, 4, 1)
                    .wall(2 - 6 * std::cos(half), -6 * std::sin(half), 2, 0, 3)
                    .wall(2 - 6 * std::cos(half), 6 * std::sin(half), 2, 0, 3)
                    .triangles());
  expect_rests_without_jitter(w, person(-2, 0, 0.01f, {0.1f, 0, 0}));
}

TEST(Move, CrossesSeamsOfAFloorOfManyTrianglesWithoutSlowingOrTurning) {
  // 0.25 m cells: a 0.13 m step crosses a seam every other tick. The agent starts exactly one
  // skin above the floor, sliding in contact with it, where edge contacts would show.
  const World w(Mesh().floor(-10, -10, 10, 10, 0.25f).triangles());
  Agent a = person(-8, 0, -7, {0.12f, 0, 0.05f});
  a.capsule.a.y = a.capsule.radius + MoveSettings{}.skin;
  a.capsule.b.y = a.capsule.a.y + kAxis;
  for (int i = 0; i < 100; ++i) {
    const Vec3 before = a.capsule.a;
    const MoveResult r = walk(w, a, 1);
    ASSERT_NEAR(a.capsule.a.x - before.x, 0.12f, 1e-5) << "tick " << i;
    ASSERT_NEAR(a.capsule.a.z - before.z, 0.05f, 1e-5) << "tick " << i;
    ASSERT_FALSE(r.flags & kMoveBlocked);
    ASSERT_EQ(r.contact_count, 0) << "tick " << i;
  }
}

TEST(Move, SeamContactsReportTheFaceNormal) {
  const World w(Mesh().floor(-2, -2, 2, 2, 0.5f).triangles());
  // Exactly at the skin, moving along the floor: every edge ahead is a seam.
  const float y = kR + 0.01f;
  SweepHit hit;
  // Straight down onto a seam between two cells: the sweep touches edges and vertices.
  ASSERT_EQ(sweep_approaching(w, {{{0.5f, y + 0.3f, 0.25f}, {0.5f, y + 1.4f, 0.25f}, kR + 0.01f}, {0, -1, 0}}, hit),
            Status::ok);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.normal, (Vec3{0, 1, 0}));
  // Along the floor at exactly the sweep radius: nothing blocks.
  ASSERT_EQ(sweep_approaching(w, {{{-1.9f, y, 0.3f}, {-1.9f, y + 1.1f, 0.3f}, kR + 0.01f}, {3.5f, 0, 0.1f}}, hit),
            Status::ok);
  EXPECT_FALSE(hit.hit);
}

TEST(Move, WalksOffALedgeAndFalls) {
  const World w(Mesh().floor(-6, -3, 6, 3, 1).box({-6, 0, -3}, {0, 2, 3}).triangles());
  Agent a = person(-1, 2, 0, {0.1f, 0, 0});
  bool fell = false;
  float lowest_speed = 0;
  for (int i = 0; i < 120; ++i) {
    if (i == 20) a.displacement = {};  // off the ledge by now: stop walking, let it land
    const MoveResult r = walk(w, a, 1);
    fell |= (r.flags & kMoveFalling) != 0;
    lowest_speed = std::min(lowest_speed, r.vertical_speed);
  }
  EXPECT_TRUE(fell);
  EXPECT_LT(lowest_speed, -3.f);               // it accelerated downward
  EXPECT_NEAR(bottom(a), 0.015f, 0.003f);      // and landed on the floor below
  EXPECT_GT(a.capsule.a.x, 0.f);
  EXPECT_EQ(a.vertical_speed, 0.f);
}

TEST(Move, WalksDownStairsStayingGrounded) {
  // Ten 0.2 m steps down along +x, 0.35 m treads.
  const World w(Mesh().floor(-3, -2, 8, 2, 1).stairs_down(-3, -2, 2, 10, 0.2f, 0.35f).triangles());
  Agent a = person(-1, 2, 0, {0.08f, 0, 0});
  walk(w, a, 3);
  int snapped = 0;
  for (int i = 0; i < 80; ++i) {
    const MoveResult r = walk(w, a, 1);
    ASSERT_TRUE(r.grounded) << "tick " << i;
    ASSERT_FALSE(r.flags & kMoveFalling) << "tick " << i;
    snapped += (r.flags & kMoveSnapped) != 0;
  }
  EXPECT_GE(snapped, 9);
  EXPECT_NEAR(bottom(a), 0.015f, 0.003f);
  EXPECT_GT(a.capsule.a.x, 3.5f);
}

TEST(Move, TwoAgentsWalkingIntoEachOtherNeverInterpenetrate) {
  const World w(Mesh().floor(-6, -3, 6, 3, 1).triangles());
  for (float offset : {0.f, 0.2f}) {  // head on, and off-centre (they slide past)
    std::vector<Agent> agents{person(-2, 0, 0, {0.1f, 0, 0}), person(2, 0, offset, {-0.1f, 0, 0})};
    agents[1].id = 1;
    std::vector<MoveResult> r(2);
    for (int i = 0; i < 80; ++i) {
      w.move(agents, MoveSettings{}, r);
      for (int k = 0; k < 2; ++k) agents[k].capsule = r[k].capsule;
      Contact c;
      capsule_capsule_contact(agents[0].capsule, agents[1].capsule, c);
      ASSERT_GE(c.distance, 2 * kR - 1e-4) << "tick " << i;
    }
    if (offset == 0) {
      EXPECT_LT(agents[0].capsule.a.x, agents[1].capsule.a.x);  // they stopped, facing each other
    }
  }
}

TEST(Move, AgentsSharingAnIdGiveTheSameBytesInAnyBatchOrder) {
  // One agent walks between two others standing exactly symmetric about its path, in one grid
  // column, every agent with the default id 0: it meets both at the same t (to the bit), and the
  // tie must not go to whichever the batch order lists first. Six more stand far off, so that
  // the grid walks its columns rather than scanning every box.
  const World w(Mesh().floor(-4, -4, 4, 4, 1).triangles());
  std::vector<Agent> start{person(1.0f, 0, 0, {0, 0, 0.125f}), person(0.625f, 0, 1.0f), person(1.375f, 0, 1.0f)};
  for (int k = 0; k < 6; ++k) start.push_back(person(-3.5f + 1.2f * float(k), 0, -3.5f));
  // The tie itself: straight ahead, the walker meets each at the same t, mirrored.
  SweepHit left, right;
  ASSERT_EQ(sweep_capsule_capsule(start[0].capsule, {0, 0, 1}, start[1].capsule, left), Status::ok);
  ASSERT_EQ(sweep_capsule_capsule(start[0].capsule, {0, 0, 1}, start[2].capsule, right), Status::ok);
  ASSERT_TRUE(left.hit && right.hit);
  ASSERT_EQ(left.t, right.t);
  ASSERT_EQ(left.normal.x, -right.normal.x);
  ASSERT_NE(left.normal.x, 0.f);
  std::vector<std::vector<MoveResult>> first_order;
  std::vector<std::size_t> order{0, 1, 2};
  int orders = 0, ties = 0;
  do {
    std::vector<Agent> agents = start;
    for (std::size_t k = 0; k < 3; ++k) agents[k] = start[order[k]];
    std::vector<std::vector<MoveResult>> by_agent(3);
    for (int tick = 0; tick < 12; ++tick) {
      std::vector<MoveResult> r(agents.size());
      w.move(agents, MoveSettings{}, r);
      for (std::size_t k = 0; k < agents.size(); ++k) {
        agents[k].capsule = r[k].capsule;
        agents[k].vertical_speed = r[k].vertical_speed;
      }
      for (std::size_t k = 0; k < 3; ++k) {
        by_agent[order[k]].push_back(r[k]);
      }
    }
    if (orders++ == 0) {
      first_order = by_agent;
      // By symmetry the walker meets both at once: a first contact with a sideways normal is a
      // tie that was broken (toward one of the two).
      for (const MoveResult& r : by_agent[0]) {
        ties += r.contact_count >= 1 && r.contacts[0].agent == 0 && r.contacts[0].normal.x != 0;
      }
      continue;
    }
    for (std::size_t i = 0; i < 3; ++i) {
      for (std::size_t tick = 0; tick < by_agent[i].size(); ++tick) {
        ASSERT_TRUE(answers::same(by_agent[i][tick], first_order[i][tick]))
            << "agent " << i << ", tick " << tick << ", batch order " << order[0] << order[1] << order[2];
      }
    }
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_EQ(orders, 6);
  EXPECT_GT(ties, 0) << "the walker never met both others";
}

TEST(Move, AgentsPassThroughEachOtherWhenCollisionIsOff) {
  const World w(Mesh().floor(-6, -3, 6, 3, 1).triangles());
  std::vector<Agent> agents{person(-2, 0, 0, {0.1f, 0, 0}), person(2, 0, 0, {-0.1f, 0, 0})};
  std::vector<MoveResult> r(2);
  for (int i = 0; i < 60; ++i) {
    w.move(agents, alone(), r);
    for (int k = 0; k < 2; ++k) agents[k].capsule = r[k].capsule;
  }
  EXPECT_GT(agents[0].capsule.a.x, agents[1].capsule.a.x);
}

TEST(Move, StartInsideAWallIsPushedOut) {
  const World w(Mesh().floor(-4, -4, 4, 4, 1).box({0, 0, -2}, {1, 3, 2}).triangles());
  Agent a = person(0.1f, 0, 0);  // axis 0.1 m inside the box
  const MoveResult r = walk(w, a, 1);
  EXPECT_TRUE(r.flags & kMoveDepenetrated);
  EXPECT_GT(r.pushed, 0.f);
  EXPECT_GE(gap(w, r.capsule), 0.01 - 1e-4);
}

TEST(Move, ACeilingStopsTheStepUp) {
  // A 0.3 m step under a ceiling 1.85 m above the floor: lifting would hit it, so no step.
  const World w(Mesh()
                    .floor(-2, -2, 6, 2, 1)
                    .box({1, 0, -2}, {6, 0.3f, 2})
                    .box({-2, 1.83f + 0.06f, -2}, {6, 2.2f, 2})
                    .triangles());
  Agent a = person(0, 0, 0, {0.1f, 0, 0});
  const MoveResult r = walk(w, a, 30);
  EXPECT_LT(a.capsule.a.x, 1.f - kR + 0.05f);  // still before the step
  EXPECT_LT(bottom(a), 0.05f);
  EXPECT_FALSE(r.flags & kMoveSteppedUp);
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

TEST(Move, AJumpThatMeetsACeilingStopsRising) {
  // Head room of 4 cm above a person standing on the floor; a jump at 4 m/s meets the ceiling
  // in its first tick. It keeps no more upward speed than its rise showed, so it falls back at
  // once rather than pressing along under the ceiling for the 0.4 s its take-off would last.
  const float ceiling = 0.02f + 2 * kR + kAxis + 0.04f;
  const World w(Mesh().floor(-4, -4, 4, 4, 1).box({-4, ceiling, -4}, {4, ceiling + 0.3f, 4}).triangles());
  Agent a = person(0, 0, 0, {0.02f, 0, 0});
  a.vertical_speed = 4.f;
  const MoveSettings s = alone();
  MoveResult r = walk(w, a, 1, s);
  EXPECT_GT(r.contact_count, 0);
  EXPECT_LT(r.vertical_speed, 4.f - s.gravity * s.dt);
  EXPECT_LE(r.vertical_speed, r.moved.y / s.dt * 2.f * 1.0001f);  // at most 1 / sin^2(45 degrees) of its rise
  int rising = 1;
  // Rising: faster than a millimetre a second (what is left of a rise of a float's rounding).
  while (a.vertical_speed > 1e-3f && rising < 30) walk(w, a, 1, s), ++rising;
  EXPECT_LE(rising, 2) << "still rising after " << rising << " ticks";
  r = walk(w, a, 60, s);
  EXPECT_TRUE(r.grounded);
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

TEST(Move, AWalkUpARampIntoAWallRisesWithTheRampNotUpTheWall) {
  // A 44-degree ramp (walkable) rising along +x, and a wall standing across it 14 degrees off
  // square. A jump taken walking up the ramp into the wall: what the wall leaves of the walk
  // (sliding along it) rises as the ramp does along that way, not by the rise the ramp gave the
  // whole walk, which used to be kept and climb the wall (found on the 0 A.D. terrain: 17 cm up
  // for 3 cm across, which a server's validator took for a super jump).
  const float degrees = 44, slope = std::tan(degrees * std::numbers::pi_v<float> / 180.f);
  const World w(Mesh().ramp(0, -2, 4, degrees, 4, 1).wall(1.5f, -2, 2.5f, 2, 8).triangles());
  const float x = 1.57f;  // the axis 0.42 m from the wall: a 7 cm gap at right angles to it
  const float ground = x * slope + (kR + 0.02f) / std::cos(degrees * std::numbers::pi_v<float> / 180.f) - (kR + 0.02f);
  Agent a = person(x, ground, 0, {0.5f, 0, 0});
  a.vertical_speed = 4.f;
  const MoveSettings s = alone();
  const MoveResult r = walk(w, a, 1, s);
  EXPECT_GT(r.contact_count, 0);
  EXPECT_FALSE(r.grounded);
  const float across = std::hypot(r.moved.x, r.moved.z);
  const float rise = (4.f - s.gravity * s.dt) * s.dt;  // the jump's own (semi-implicit)
  EXPECT_LE(r.moved.y, rise + across * slope + 0.02f) << "across " << across;
  EXPECT_GE(gap(w, a.capsule), 0.01 - 1e-4);
}

TEST(Move, AFallSlidingDownASteepSlopeKeepsItsSpeed) {
  // Off the top of a 60-degree slope: a fall turned along it keeps gathering speed (the slide
  // descends sin^2(60) of its fall, more than sin^2 of the 45-degree limit), as before the rule
  // that takes speed from falls that do not descend.
  const World w(Mesh().floor(-2, -4, 12, 4, 1).ramp(0, -4, 8, 60, 6, 2).triangles());
  Agent a = person(1.5f, 3.f, 0);  // 2.6 cm above the slope
  float lowest = 0;
  bool slid = false;
  for (int i = 0; i < 30; ++i) {
    const MoveResult r = walk(w, a, 1);
    slid |= r.contact_count > 0 && !r.grounded;
    lowest = std::min(lowest, r.vertical_speed);
  }
  EXPECT_TRUE(slid);
  EXPECT_LT(lowest, -2.f);
}

TEST(Move, ASkinDeficitBesideAWallIsRestoredAlongTheWall) {
  // A 44-degree slope (walkable) rising from a wall that faces up it. The agent has drifted 2 mm
  // into the slope's skin and stands 2 mm beyond the wall's: pushing straight out of the slope
  // runs into the wall within the backoff, so the push slides out along the wall instead.
  // (Found far from the origin on recast_undulating, where rounding makes such drift.)
  const float degrees = 44, wall_x = 0.2f;
  const World w(Mesh().ramp(-1, -2, 4, degrees, 2, 1).wall(wall_x, -2, wall_x, 2, 3).triangles());
  const float s = std::sin(degrees * std::numbers::pi_v<float> / 180), c = std::cos(degrees * std::numbers::pi_v<float> / 180);
  const float x = wall_x + kR + 0.012f;
  // The slope's plane passes through (-1, 0): the bottom sphere's centre kR + 8 mm from it.
  const float y = (kR + 0.008f + s * (x + 1)) / c;
  Agent a;
  a.capsule = {{x, y, 0}, {x, y + kAxis, 0}, kR};
  ASSERT_NEAR(gap(w, a.capsule), 0.008, 1e-4);
  const MoveResult r = walk(w, a, 1);
  EXPECT_TRUE(r.grounded);
  EXPECT_GE(gap(w, r.capsule), 0.01 - 1e-4);
}

// The sweeps of one tick of an agent at x walking 0.4 m into whatever stands at x = 1, with the
// default settings and with no step height at all (the step-up never tried).
std::pair<int, int> sweeps_into(const World& w, float x = 1.f - kR - 0.06f) {
  const Agent a = person(x, 0, 0, {0.4f, 0, 0});
  MoveSettings no_step = alone();
  no_step.step_height = 0;
  MoveResult with, without;
  w.move({&a, 1}, alone(), {&with, 1});
  w.move({&a, 1}, no_step, {&without, 1});
  EXPECT_TRUE(without.flags & kMoveBlocked);
  return {with.sweeps, without.sweeps};
}

TEST(Move, WallsSlopesAndHighBoxesAreNotTriedAsSteps) {
  // Lifted by the step height, the body still meets each before the walk's end: trying a step-up
  // there would cost sweeps to be refused, so the tick costs what it costs with no step height.
  // (The slope is met 0.2 m later by the lifted body: the agent starts almost touching it.)
  const Mesh floor = Mesh().floor(-2, -2, 6, 2, 1);
  const World wall(Mesh(floor).box({1, 0, -2}, {2, 3, 2}).triangles());
  const World high_box(Mesh(floor).box({1, 0, -2}, {6, 0.5f, 2}).triangles());
  const World steep(Mesh(floor).ramp(1, -2, 4, 60, 2, 1).triangles());
  for (const World* w : {&wall, &high_box, &steep}) {
    SCOPED_TRACE(w == &wall ? "wall" : w == &high_box ? "0.5 m box" : "60-degree slope");
    const auto [with, without] = sweeps_into(*w, w == &steep ? 0.78f : 1.f - kR - 0.06f);
    EXPECT_EQ(with, without);
  }
  // A step is tried (and taken): the lifted body passes over the face that stopped the walk.
  const World step(Mesh(floor).box({1, 0, -2}, {6, 0.3f, 2}).triangles());
  const auto [with, without] = sweeps_into(step);
  EXPECT_GE(with, without + 3);
}

TEST(Move, RefusesBadAgentsAndKeepsThemInPlace) {
  const World w(Mesh().floor(-2, -2, 2, 2, 1).triangles());
  std::vector<Agent> agents{person(0, 0, 0, {NAN, 0, 0}), person(1, 0, 1, {0.1f, 0, 0})};
  agents[0].id = 0;
  agents[1].capsule.radius = -1;
  std::vector<MoveResult> r(2);
  std::vector<Status> status(2);
  EXPECT_EQ(w.move(agents, MoveSettings{}, r, {}, {}, status), 2u);
  EXPECT_EQ(status[0], Status::non_finite_motion);
  EXPECT_EQ(status[1], Status::bad_radius);
  EXPECT_EQ(r[0].capsule.a, agents[0].capsule.a);
  std::vector<MoveResult> wrong(1);
  EXPECT_THROW(w.move(agents, MoveSettings{}, wrong), std::invalid_argument);
}

bool same(const MoveResult& x, const MoveResult& y) { return answers::same(x, y); }

TEST(MoveDeterminism, IdenticalForEveryThreadCountAndAgentOrder) {
  const World w(make_arena());
  CrowdSettings cs;
  cs.agents = 1500;
  cs.seed = 7;
  Crowd crowd(w, cs);
  for (int i = 0; i < 30; ++i) crowd.tick();  // a crowd in motion, pressed together
  const std::vector<Agent> agents = crowd.agents();
  for (SweepPath path : {SweepPath::simd, SweepPath::scalar}) {
    BatchOptions one;
    one.threads = 1;
    one.path = path;
    std::vector<MoveResult> reference(agents.size());
    w.move(agents, MoveSettings{}, reference, one);
    const int max_threads = int(std::max(2u, std::thread::hardware_concurrency()));
    for (int threads = 2; threads <= max_threads; ++threads) {
      BatchOptions o = one;
      o.threads = threads;
      std::vector<MoveResult> r(agents.size());
      w.move(agents, MoveSettings{}, r, o);
      for (std::size_t i = 0; i < agents.size(); ++i) ASSERT_TRUE(same(r[i], reference[i])) << "agent " << i;
    }
    std::vector<Agent> reversed(agents.rbegin(), agents.rend());
    std::vector<MoveResult> r(agents.size());
    w.move(reversed, MoveSettings{}, r, one);
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ASSERT_TRUE(same(r[agents.size() - 1 - i], reference[i])) << "agent " << i;
    }
  }
}

TEST(MoveDeterminism, SimdAndScalarPathsAgree) {
  const World w(make_arena());
  CrowdSettings cs;
  cs.agents = 1000;
  Crowd crowd(w, cs);
  for (int i = 0; i < 20; ++i) crowd.tick();
  BatchOptions simd, scalar;
  scalar.path = SweepPath::scalar;
  std::vector<MoveResult> a(cs.agents), b(cs.agents);
  w.move(crowd.agents(), MoveSettings{}, a, simd);
  w.move(crowd.agents(), MoveSettings{}, b, scalar);
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_LE(length(a[i].capsule.a - b[i].capsule.a), 1e-4f) << "agent " << i;
  }
}

// A world larger than the caches moves its agents in Morton order (World::move); any batch
// order and thread count must still give every agent the same bytes. Batches of at most 256
// agents are moved in index order: with agents passing through each other (each agent's move
// then its own), moving the crowd in such slices compares the sorted walk with the unsorted one.
#if CAPSWEEP_TESTS_READ_FILES  // the large world is a scene file
TEST(Move, ALargeWorldGivesTheSameBytesInAnyBatchOrder) {
  const World world(scenes::load("0ad_corinthian_isthmus_4p.obj.gz"));
  ASSERT_GT(walked_bytes(world.arrays()), kSortAboveBytes) << "the terrain no longer takes the sorted path";
  CrowdSettings cs;
  cs.agents = 3000;
  cs.seed = 11;
  Crowd crowd(world, cs);
  for (int t = 0; t < 3; ++t) crowd.tick();
  const std::vector<Agent> agents = crowd.agents();
  std::vector<std::size_t> order(agents.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  std::vector<Agent> shuffled(agents.size());
  for (std::size_t k = 0; k < order.size(); ++k) shuffled[k] = agents[order[k]];
  BatchOptions single, two;
  single.threads = 1;
  two.threads = 2;
  for (const bool collide : {false, true}) {
    MoveSettings ms;
    ms.agents_collide = collide;
    std::vector<MoveResult> one(agents.size()), both(agents.size()), mixed(agents.size());
    world.move(agents, ms, one, single);
    world.move(agents, ms, both, two);
    world.move(shuffled, ms, mixed, two);
    std::size_t moved = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const std::size_t i = order[k];
      ASSERT_TRUE(answers::same(one[i], both[i])) << "agent " << i << ", agents collide " << collide;
      ASSERT_TRUE(answers::same(one[i], mixed[k])) << "agent " << i << ", agents collide " << collide;
      moved += one[i].moved != Vec3{};
    }
    EXPECT_GT(moved, agents.size() / 2) << "a walking crowd";
    if (collide) continue;
    constexpr std::size_t kSlice = 200;  // below the sorted path's 256
    for (std::size_t first = 0; first < agents.size(); first += kSlice) {
      const std::size_t n = std::min(kSlice, agents.size() - first);
      std::vector<MoveResult> slice(n);
      world.move(std::span(agents).subspan(first, n), ms, slice, single);
      for (std::size_t k = 0; k < n; ++k) {
        ASSERT_TRUE(answers::same(one[first + k], slice[k])) << "agent " << first + k << " moved in index order";
      }
    }
  }
}
#endif

}  // namespace
