// Bad input gets an error status and never a hit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <capsweep/sweep.h>

namespace {

using namespace capsweep;

const Triangle kFloor{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 0}}};
const Capsule kPerson{{0, 0.37f, 0}, {0, 1.47f, 0}, 0.35f};
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Status sweep_status(const Capsule& c, const Vec3& d, const Triangle& t) {
  SweepHit hit;
  hit.hit = true;  // must be overwritten with a miss
  const Status s = sweep_capsule_triangle(c, d, t, hit);
  EXPECT_FALSE(hit.hit);
  return s;
}

TEST(Status, NonFiniteCapsuleIsRefused) {
  Capsule c = kPerson;
  c.a.y = kNaN;
  EXPECT_EQ(sweep_status(c, {0, -1, 0}, kFloor), Status::non_finite_capsule);
  c = kPerson;
  c.radius = kInf;
  EXPECT_EQ(sweep_status(c, {0, -1, 0}, kFloor), Status::non_finite_capsule);
}

// A sweep takes radius 0 (a moving segment or a ray: ray_sweep_test.cpp); a negative radius is
// refused everywhere, and 0 wherever a solid capsule is needed.
TEST(Status, NegativeRadiusIsRefusedAndZeroWhereASolidCapsuleIsNeeded) {
  Capsule c = kPerson;
  c.radius = -0.1f;
  EXPECT_EQ(sweep_status(c, {0, -1, 0}, kFloor), Status::bad_radius);
  c.radius = 0;
  SweepHit hit;
  EXPECT_EQ(sweep_capsule_triangle(c, {0, -1, 0}, kFloor, hit), Status::ok);
  Contact k;
  EXPECT_EQ(capsule_triangle_contact(c, kFloor, k), Status::bad_radius);
  EXPECT_EQ(check_agent_move(c, {0, -1, 0}), Status::bad_radius);
}

TEST(Status, NonFiniteMotionIsRefused) {
  EXPECT_EQ(sweep_status(kPerson, {0, kNaN, 0}, kFloor), Status::non_finite_motion);
  EXPECT_EQ(sweep_status(kPerson, {-kInf, 0, 0}, kFloor), Status::non_finite_motion);
}

TEST(Status, NonFiniteTriangleIsRefused) {
  Triangle t = kFloor;
  t.v[2].z = kInf;
  EXPECT_EQ(sweep_status(kPerson, {0, -1, 0}, t), Status::non_finite_triangle);
}

TEST(Status, OutOfRangeValuesAreRefused) {
  Capsule c = kPerson;
  c.b.x = 2e6f;
  EXPECT_EQ(sweep_status(c, {0, -1, 0}, kFloor), Status::out_of_range);
  EXPECT_EQ(sweep_status(kPerson, {0, -3e6f, 0}, kFloor), Status::out_of_range);
}

TEST(Status, ObstacleCapsuleMayHaveZeroRadiusButNotNegative) {
  SweepHit hit;
  EXPECT_EQ(sweep_capsule_segment(kPerson, {0, -1, 0}, {-1, 0, 0}, {1, 0, 0}, hit), Status::ok);
  EXPECT_TRUE(hit.hit);
  EXPECT_EQ(sweep_capsule_capsule(kPerson, {0, -1, 0}, Capsule{{-1, 0, 0}, {1, 0, 0}, -1.f}, hit), Status::bad_radius);
  EXPECT_FALSE(hit.hit);
}

TEST(Status, DiscreteQueriesRefuseBadInputToo) {
  Contact k;
  Capsule c = kPerson;
  c.a.x = kNaN;
  EXPECT_EQ(capsule_triangle_contact(c, kFloor, k), Status::non_finite_capsule);
  EXPECT_EQ(capsule_capsule_contact(kPerson, c, k), Status::non_finite_capsule);
  EXPECT_STRNE(describe(Status::bad_radius), describe(Status::ok));
}

}  // namespace
