// Cases where movement misbehaved on real levels (issue 35), each replayed exactly as found:
//   - an agent wedged in a rock crevice between steep faces (tests/regressions/wedge_crevice.obj):
//     held up within a few ticks (kMoveWedged, its fall speed no longer growing), never inside
//     its skin over 100,000 ticks, near the origin and 100 km from it, and it walks out along
//     the crevice;
//   - an agent pinched between a steep face and another agent on recast_dungeon: it moves no
//     further than it wanted and never backwards, where the crease slide threw it back at 16 m/s.
// The clearance is the oracle's exact distance, measured every 8th tick the body moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include <capsweep/files.h>
#include <capsweep/world.h>
#include "core/body.h"
#include "tests/support/oracle.h"
#include "tests/support/scene_list.h"

namespace {

using namespace capsweep;

#if CAPSWEEP_TESTS_READ_FILES

std::vector<Triangle> shifted(std::vector<Triangle> triangles, const Vec3d& by) {
  for (Triangle& t : triangles) {
    for (Vec3& v : t.v) v = to_float(to_double(v) + by);
  }
  return triangles;
}

// The exactness tolerance of a world (the brief's): max(0.1 mm, 4e-7 x its largest coordinate).
double tolerance_of(const std::vector<Triangle>& triangles) {
  double largest = 0;
  for (const Triangle& t : triangles) {
    for (const Vec3& v : t.v) largest = std::max({largest, std::fabs(double(v.x)), std::fabs(double(v.y)), std::fabs(double(v.z))});
  }
  return std::max(1e-4, 4e-7 * largest);
}

// Exact distance from the capsule's surface to the nearest triangle.
double gap(const std::vector<Triangle>& triangles, const Capsule& c) {
  double best = INFINITY;
  for (const Triangle& t : triangles) {
    const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
    best = std::min(best, oracle::segment_triangle(to_double(c.a), to_double(c.b), v).distance);
  }
  return best - c.radius;
}

// The crevice agent as the crowd left it: bottom point, segment 1.1 m up, radius 0.35, falling
// at the fastest fall, wanting a walk at 1.6 m/s into the crevice.
constexpr Vec3d kWedgedAt{-89.5043869, 72.0829697, -156.828308};
const Vec3 kIntoCrevice{-0.00924534351f, 0, 0.0241713654f};

Agent wedged_agent(const Vec3d& shift) {
  Agent a;
  const Vec3 p = to_float(kWedgedAt + shift);
  a.capsule = {p, p + Vec3{0, 1.1f, 0}, 0.35f};
  a.displacement = kIntoCrevice;
  a.vertical_speed = -55.f;
  return a;
}

std::vector<Triangle> crevice(const Vec3d& shift) {
  return shifted(load_scene(std::string(CAPSWEEP_SOURCE_DIR) + "/tests/regressions/wedge_crevice.obj"), shift);
}

MoveSettings alone() {
  MoveSettings s;
  s.agents_collide = false;
  return s;
}

// Near the origin (the agent 1 m from it) and 100 km from it.
class WedgeCrevice : public ::testing::TestWithParam<double> {
 protected:
  Vec3d shift() const { return Vec3d{GetParam() + 1.0, 0, 0} - kWedgedAt; }
};

// Runs the agent for `ticks`, wanting `want(tick, last result)`; checks the exact clearance
// of the body near the crevice, and counts the ticks it was held.
struct CreviceRun {
  int first_held = -1;
  std::size_t held = 0, measured = 0;
  float lowest_speed_once_held = 0;  // from ten ticks after it was first held
  MoveResult last;
  Agent agent;
};

template <class Want>
CreviceRun run_in_crevice(const Vec3d& shift, int ticks, Want&& want) {
  const std::vector<Triangle> triangles = crevice(shift);
  const World world(triangles);
  const MoveSettings s = alone();
  const double clearance = s.skin - tolerance_of(triangles);
  Aabb near = world.bounds();
  near.min = near.min - Vec3{1, 1, 1}, near.max = near.max + Vec3{1, 1, 1};
  CreviceRun run;
  Agent& a = run.agent;
  a = wedged_agent(shift);
  EXPECT_GT(gap(triangles, a.capsule), clearance);
  bool moved = false;
  for (int tick = 0; tick < ticks; ++tick) {
    a.displacement = want(tick, run.last);
    MoveResult& r = run.last;
    world.move({&a, 1}, s, {&r, 1});
    if (r.flags & kMoveWedged) {
      ++run.held;
      if (run.first_held < 0) run.first_held = tick;
      EXPECT_EQ(r.vertical_speed, 0.f) << "tick " << tick;
      EXPECT_FALSE(r.flags & kMoveFalling) << "tick " << tick;
      EXPECT_GT(r.ground_normal.y, 0.f) << "tick " << tick;  // what holds it points up
    }
    // Settled: a few ticks after it is first held (it may slide to the V's floor first).
    if (run.first_held >= 0 && tick >= run.first_held + 10) {
      run.lowest_speed_once_held = std::min(run.lowest_speed_once_held, r.vertical_speed);
    }
    // Measured every 8th tick when it moved since the last measure (a drift into the skin stays
    // until something pushes it out, which the solver does at once), and at the end.
    moved |= !(r.capsule.a == a.capsule.a && r.capsule.b == a.capsule.b);
    if (moved && (tick % 8 == 0 || tick + 1 == ticks) && near.overlaps(Aabb{r.capsule.a, r.capsule.a})) {
      moved = false;
      ++run.measured;
      const double g = gap(triangles, r.capsule);
      if (g < clearance) {
        ADD_FAILURE() << "tick " << tick << ": " << g << " m from the mesh, at (" << r.capsule.a.x << ", "
                      << r.capsule.a.y << ", " << r.capsule.a.z << ")";
        break;
      }
    }
    a.capsule = r.capsule;
    a.vertical_speed = r.vertical_speed;
    a.ground_triangle = r.ground_triangle;
  }
  return run;
}

// As found: wanting its walk into the crevice, falling at 55 m/s. It is held at once, and then
// walks on along the crevice's floor where the trough lets it (before, it was held by nothing,
// fell in place and crept into its skin by a float step a tick).
TEST_P(WedgeCrevice, AsFoundItIsHeldAtOnceAndNeverEntersTheSkinIn100000Ticks) {
  const CreviceRun run = run_in_crevice(shift(), 100'000, [](int, const MoveResult&) { return kIntoCrevice; });
  EXPECT_GE(run.first_held, 0);
  EXPECT_LE(run.first_held, 5);
  std::printf("held first at tick %d, %zu ticks held, %zu moves measured\n", run.first_held, run.held, run.measured);
}

// Pressed into the V (its walk against the faces that hold it) for 100,000 ticks: held all the
// while, its fall speed never growing past one tick of gravity, never inside its skin.
TEST_P(WedgeCrevice, PressedIntoItFor100000TicksItStaysHeldOutOfTheSkin) {
  // +z: into the wall facing -z and the 45.5-degree face facing +z that make the V.
  const CreviceRun run = run_in_crevice(shift(), 100'000, [](int tick, const MoveResult&) {
    return tick < 5 ? kIntoCrevice : Vec3{0, 0, 0.03f};
  });
  const MoveSettings s = alone();
  EXPECT_LE(run.first_held, 5);
  EXPECT_GT(run.held, 99'000u);
  // Near the origin it never slips; 100 km out, where a float step is 7.8 mm, a step of rounding
  // can let it slip to the V's floor now and then: a few ticks of gravity, never more.
  const float ticks_of_gravity = GetParam() == 0.0 ? 1.f : 4.f;
  EXPECT_GE(run.lowest_speed_once_held, -ticks_of_gravity * s.gravity * s.dt * 1.0001f);
  std::printf("held first at tick %d, %zu ticks held, lowest speed %.3f m/s, %zu moves measured\n", run.first_held,
              run.held, run.lowest_speed_once_held, run.measured);
}

// Held, then walking back out (along the crevice's floor, whose trough of two steep faces rises
// like a walkable slope): it reaches walkable ground more than a metre away within 2 s.
TEST_P(WedgeCrevice, HeldItWalksOutWhenItWantsOut) {
  const Vec3d held_at = to_double(wedged_agent(shift()).capsule.a);
  bool out = false;
  const CreviceRun run = run_in_crevice(shift(), 125, [&](int tick, const MoveResult& last) {
    const Vec3d d = to_double(last.capsule.a) - held_at;
    out |= tick > 5 && last.grounded && std::hypot(d.x, d.z) > 1.0;
    return tick < 5 ? kIntoCrevice : Vec3{-0.05f, 0, 0};
  });
  EXPECT_LE(run.first_held, 5);
  EXPECT_TRUE(out) << "still not out, at (" << run.agent.capsule.a.x << ", " << run.agent.capsule.a.y << ", "
                   << run.agent.capsule.a.z << ")";
}

INSTANTIATE_TEST_SUITE_P(Placements, WedgeCrevice, ::testing::Values(0.0, 100'000.0),
                         [](const auto& info) { return info.param == 0.0 ? std::string("NearTheOrigin") : std::string("At100Km"); });

// The pinch found by replaying a crowd tick by tick on recast_dungeon at 60 Hz: agent 0, pinned
// between a steep face (triangle 1829) and agent 1, was thrown back four times as far as it
// wanted (the slide along the crease of two nearly opposed planes, amplified by the lift).
TEST(Pinch, AnAgentBetweenASteepFaceAndAnotherMovesNoFurtherThanWantedAndNeverBack) {
  const World world(scenes::load("recast_dungeon.obj"));
  Agent a[2];
  const Vec3 p0{-4.849391460418701f, 0.3648902177810669f, 4.474763870239258f};
  const Vec3 p1{-4.884586334228516f, 0.36489021778106689f, 3.7672290802001953f};
  a[0].capsule = {p0, p0 + Vec3{0, 1.1f, 0}, 0.35f};
  a[0].displacement = {-0.06799713522195816f, 0, 0.011173746548593044f};
  a[0].ground_triangle = 1828, a[0].id = 296;
  a[1].capsule = {p1, p1 + Vec3{0, 1.1f, 0}, 0.35f};
  a[1].displacement = {0.03167214244604111f, 0, 0.011147461831569672f};
  a[1].ground_triangle = 1826, a[1].id = 167;
  const MoveSettings s;
  MoveResult r[2];
  world.move(a, s, r);
  // It meets both: the face and the other agent.
  bool met_face = false, met_agent = false;
  for (int k = 0; k < r[0].contact_count; ++k) {
    met_face |= r[0].contacts[k].triangle == 1829;
    met_agent |= r[0].contacts[k].agent == 167;
  }
  EXPECT_TRUE(met_face);
  EXPECT_TRUE(met_agent);
  const Vec3 wanted = a[0].displacement;
  const double moved = std::hypot(r[0].moved.x, r[0].moved.z);
  const double along = (double(r[0].moved.x) * wanted.x + double(r[0].moved.z) * wanted.z) / length(wanted);
  // The lift out of the skin it started inside (1.6 mm deep, plus the backoff) is all it may
  // add: 6.6 mm.
  const double slack = double(r[0].pushed) + 1.6e-3 + s.backoff + 1e-4;
  EXPECT_LE(moved, length(wanted) + slack) << r[0].moved.x << ' ' << r[0].moved.z;
  EXPECT_GE(along, -slack) << r[0].moved.x << ' ' << r[0].moved.z;
  EXPECT_TRUE(r[0].grounded);
  // Alone, it moves as asked.
  world.move({a, 1}, s, {r, 1});
  EXPECT_NEAR(std::hypot(r[0].moved.x, r[0].moved.z), length(wanted), 0.02);
}

#endif  // CAPSWEEP_TESTS_READ_FILES

}  // namespace
