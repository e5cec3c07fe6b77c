// face_first (core/face_first.h): wherever it answers, the exact kernel answers the same: `miss`
// only where sweep_capsule_triangle reports no hit, `face` only where it reports a face hit that
// does not start in contact, with the plane's normal; and sweep_face_first's hit is the kernel's,
// byte for byte, whether it told the face or ran the kernel. Held on the adversarial sweep cases and on
// people standing over floors and slopes with their feet at the reach of the plane (within
// rounding of it and beyond), their paths grazing an edge's side, and contacts near t = 1.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include <capsweep/sweep.h>
#include "core/face_first.h"
#include "core/random.h"
#include "core/sweep_frame.h"
#include "tests/support/cases.h"

namespace {

using namespace capsweep;
using detail::FaceFirst;

struct Tally {
  std::size_t face = 0, miss = 0, unknown = 0, exact = 0;
};

// The kernel's own answer in double (core/sweep.cpp, sweep_validated's frame).
detail::Best exact_best(const Capsule& capsule, const Vec3& motion, const Triangle& triangle) {
  const Vec3d origin = to_double(capsule.a);
  detail::Frame f;
  f.e = to_double(capsule.b) - origin;
  f.d = to_double(motion);
  f.r = capsule.radius;
  for (int i = 0; i < 3; ++i) f.v[i] = to_double(triangle.v[i]) - origin;
  f.shape = classify_triangle(f.v);
  detail::Best best;
  detail::sweep_frame_every_part(f, best);
  return best;
}

// Checks one case; returns false (with a failure) when face_first's answer is not the kernel's.
bool agrees(const Capsule& capsule, const Vec3& motion, const Triangle& triangle, Tally& tally, const std::string& what) {
  if (check_sweep(capsule, motion) != Status::ok || check_triangle(triangle) != Status::ok) return true;
  const FaceFirst quick = detail::face_first(capsule, motion, triangle);
  SweepHit hit;
  sweep_capsule_triangle(capsule, motion, triangle, hit);
  // sweep_face_first answers every case, told or through the kernel: always the kernel's bytes.
  SweepHit quick_hit;
  double quick_t = 0;
  const bool told = detail::sweep_face_first(capsule, motion, triangle, quick_hit, &quick_t);
  // (A ray or segment, radius 0, goes to the kernel whole and leaves exact_t alone: nothing to compare.)
  const double kernel_t = capsule.radius > 0.f ? exact_best(capsule, motion, triangle).t : quick_t;
  const bool same = identical(quick_hit, hit) && std::bit_cast<std::uint64_t>(quick_t) == std::bit_cast<std::uint64_t>(kernel_t);
  EXPECT_TRUE(same) << what << (told ? ": the face's answer" : ": the kernel's answer through it") << ", t " << quick_t
                    << " feature " << int(quick_hit.feature) << ", is not the kernel's, t " << kernel_t << " feature "
                    << int(hit.feature);
  if (!same) return false;
  if (told) {
    ++tally.exact;
  } else if (quick.kind == FaceFirst::Kind::miss || (quick.kind == FaceFirst::Kind::face && quick.a_first)) {
    ADD_FAILURE() << what << ": sweep_face_first declined a case face_first tells";
    return false;
  }
  switch (quick.kind) {
    case FaceFirst::Kind::unknown: ++tally.unknown; return true;
    case FaceFirst::Kind::miss:
      ++tally.miss;
      EXPECT_FALSE(hit.hit) << what << ": said miss, the kernel hits at t " << hit.t << " (" << int(hit.feature) << ")";
      return !hit.hit;
    case FaceFirst::Kind::face: {
      ++tally.face;
      const detail::Best best = exact_best(capsule, motion, triangle);
      const bool same = hit.hit && hit.feature == Feature::face && hit.depth == 0.f && best.t > 0 &&
                        length(best.normal - quick.normal) == 0;
      EXPECT_TRUE(same) << what << ": said face, the kernel: hit " << hit.hit << " t " << best.t << " feature "
                        << int(hit.feature) << " depth " << hit.depth << ", normals " << length(best.normal - quick.normal)
                        << " apart";
      return same;
    }
  }
  return false;
}

TEST(FaceFirst, AgreesWithTheKernelOnTheAdversarialSweepCases) {
  Random rng(404);
  Tally tally;
  for (cases::Mover mover : {cases::Mover::capsule, cases::Mover::ray, cases::Mover::segment}) {
    for (int k = 0; k < int(cases::Kind::count); ++k) {
      for (int n = 0; n < 4000; ++n) {
        const cases::SweepCase c = cases::make(rng, cases::Kind(k), mover);
        ASSERT_TRUE(agrees(c.capsule, c.motion, c.triangle, tally,
                           std::string(cases::name(cases::Kind(k))) + " case " + std::to_string(n)));
      }
    }
  }
  EXPECT_GT(tally.face, 200u);
  EXPECT_GT(tally.miss, 1000u);
}

// A triangle around the origin of the xz plane, tilted up to `max_tilt` radians, of a size from
// 5 cm to 50 m, its corners at random (thin ones included), moved to `at`.
Triangle floor_triangle(Random& rng, double max_tilt, const Vec3d& at, Vec3d& normal) {
  const double size = rng.log_uniform(0.05, 50);
  const double tilt = rng.uniform(0, max_tilt), turn = rng.uniform(0, 6.283185307179586);
  normal = {std::sin(tilt) * std::cos(turn), std::cos(tilt), std::sin(tilt) * std::sin(turn)};
  Vec3d u = cross(normal, Vec3d{0, 0, 1});
  u = u / length(u);
  const Vec3d w = cross(normal, u);
  Triangle t;
  const double thin = rng.chance(0.2) ? std::pow(10.0, -rng.uniform(1, 6)) : 1.0;
  const double angle0 = rng.uniform(0, 6.283185307179586);
  for (int i = 0; i < 3; ++i) {
    const double angle = angle0 + i * 2.0943951023931953 + rng.uniform(-0.8, 0.8);
    const double reach = size * rng.uniform(0.5, 1.0) * (i == 2 ? thin : 1.0);
    t.v[i] = to_float(at + u * (reach * std::cos(angle)) + w * (reach * std::sin(angle)));
  }
  return t;
}

// Gaps at the thresholds: exactly there, within rounding of them, or well clear either way.
double near_threshold(Random& rng, double scale) {
  static const double gaps[] = {0, 1e-12, 1e-9, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1};
  return gaps[rng.below(std::size(gaps))] * scale * (rng.chance(0.5) ? 1.0 : -1.0);
}

TEST(FaceFirst, AgreesWithTheKernelForPeopleOverFloorsAndSlopes) {
  Random rng(2611);
  Tally tally;
  for (int n = 0; n < 60000; ++n) {
    const Vec3d at = rng.chance(0.3) ? rng.in_cube(5000) : rng.in_cube(20);
    Vec3d normal;
    const Triangle t = floor_triangle(rng, rng.chance(0.7) ? 0.8 : 1.5, at, normal);
    // A point of the plane inside the triangle, on an edge or beside it, under the person.
    double w[3] = {rng.uniform(), rng.uniform(), rng.uniform()};
    if (rng.chance(0.4)) w[rng.below(3)] = near_threshold(rng, 0.05);  // at an edge's line
    const double sum = w[0] + w[1] + w[2];
    Vec3d foot{};
    for (int i = 0; i < 3; ++i) foot += to_double(t.v[i]) * (w[i] / sum);
    const double r = rng.chance(0.8) ? 0.36 : rng.log_uniform(0.01, 3);
    const double down = rng.chance(0.5) ? 0.02 : rng.chance(0.5) ? 0.35 : rng.log_uniform(1e-3, 5);
    // The lowest point of the body `height` above its reach of the plane (near it, within
    // rounding of it, or below it).
    const double height = rng.uniform(-0.01, 1.2 * down) * (rng.chance(0.2) ? 1e-3 : 1.0) + near_threshold(rng, 1e-3);
    const Vec3d a = foot + normal * r + Vec3d{0, height / normal.y, 0};
    const double axis = rng.chance(0.9) ? 1.1 : rng.uniform(0, 2);
    const Vec3d top = rng.chance(0.85) ? a + Vec3d{0, axis, 0} : a + rng.unit_vector() * axis;
    const Capsule c{to_float(a), to_float(top), float(r)};
    Vec3 motion = rng.chance(0.8) ? Vec3{0, -float(down), 0} : to_float(rng.unit_vector() * down);
    if (rng.chance(0.25)) {
      // Straight down by what brings the contact to t = 1 (1 + gap) times over, measured on the
      // float capsule and triangle: t lands within the float rounding of the motion of 1.
      const Vec3d v0 = to_double(t.v[0]);
      Vec3d n = cross(to_double(t.v[1]) - v0, to_double(t.v[2]) - v0);
      n = n / length(n);
      const double low = std::min(std::fabs(dot(n, to_double(c.a) - v0)), std::fabs(dot(n, to_double(c.b) - v0)));
      motion = {0, -float((low - r) / std::fabs(n.y) * (1 + near_threshold(rng, 1e-3))), 0};
    }
    ASSERT_TRUE(agrees(c, motion, t, tally, "person " + std::to_string(n)));
  }
  EXPECT_GT(tally.face, 5000u);
  EXPECT_GT(tally.miss, 5000u);
  EXPECT_GT(tally.unknown, 5000u);
  EXPECT_GT(tally.exact, 10000u);
}

// The path passes an edge's side at distances around the inset face_first keeps (1 % of the
// radius) and right at its line: a face contact there is either told exactly or left to the
// kernel, never mistaken for the edge's.
TEST(FaceFirst, APathBesideAnEdgeIsToldOrLeftToTheKernel) {
  Random rng(77);
  Tally tally;
  for (int n = 0; n < 40000; ++n) {
    const Triangle t{{{-4, 0, -4}, {4, 0, -4}, {0, 0, 4}}};  // the edge z = -4 along x
    const double r = rng.chance(0.5) ? 0.36 : rng.log_uniform(0.05, 2);
    // At the inset and around it, or right at the edge's line.
    const double inside = rng.chance(0.3) ? near_threshold(rng, 1e-3) : 0.01 * r * (1 + near_threshold(rng, 1)) + near_threshold(rng, 1e-4);
    const double x = rng.uniform(-2, 2), lift = rng.uniform(1e-4, 0.019);
    const Capsule c{{float(x), float(r + lift), float(-4 + inside)}, {float(x), float(r + lift + 1.1), float(-4 + inside)}, float(r)};
    const Vec3 motion = rng.chance(0.5) ? Vec3{0, -0.02f, 0} : Vec3{0, -0.02f, float(rng.uniform(-0.01, 0.01))};
    ASSERT_TRUE(agrees(c, motion, t, tally, "beside the edge " + std::to_string(n)));
  }
  EXPECT_GT(tally.face, 2000u);
  EXPECT_GT(tally.unknown, 2000u);
}

// The axis parallel to the plane (both ends at one height, up to rounding): either end's face
// slab may win the kernel's last bit, so only a clear lowest end is told (FaceFirst::a_first).
TEST(FaceFirst, AnAxisLyingAlongThePlaneIsLeftToTheKernel) {
  Random rng(19);
  Tally tally;
  for (int n = 0; n < 100000; ++n) {
    // The plane x + y = c, not aligned with any axis, and a capsule lying along it, its axis
    // (k, -k, 0) turned about the plane's normal now and then.
    const float c = float(rng.uniform(-3, 3));
    const Triangle t{{{c - 6, 6, -6}, {c + 6, -6, -6}, {c, 0, 8}}};
    const double r = rng.chance(0.5) ? 0.36 : rng.log_uniform(0.01, 2);
    const double k = rng.uniform(0.1, 1.5), z = rng.chance(0.3) ? rng.uniform(-1, 1) : 0.0;
    // A point of the plane inside the triangle, the capsule's end a above it by r and a gap,
    // and b along (k, -k, z), at the same height.
    const double s = rng.uniform(-1.5, 1.5), w = rng.uniform(-2, 1);
    const Vec3d p{c / 2.0 + s, c / 2.0 - s, w}, up = Vec3d{1, 1, 0} / std::sqrt(2.0);
    const Vec3d a = p + up * (r + rng.log_uniform(1e-4, 0.1));
    const Capsule cap{to_float(a), to_float(a + Vec3d{k, -k, z}), float(r)};
    const double down = rng.log_uniform(1e-3, 0.5);
    const Vec3 motion = rng.chance(0.5) ? Vec3{0, -float(down), 0} : Vec3{-float(down), -float(down), 0};
    ASSERT_TRUE(agrees(cap, motion, t, tally, "lying along the plane " + std::to_string(n)));
  }
  EXPECT_GT(tally.miss + tally.exact, 10000u);
}

// A zero's sign is part of the bytes: a person at x = -0 over a floor, moving straight down by
// -0 across, gets the kernel's signed zeros in its contact point.
TEST(FaceFirst, SignedZerosAreTheKernels) {
  Random rng(23);
  Tally tally;
  const float zeros[2] = {0.f, -0.f};
  // Floors of both windings and turned about: the zeros of their normals take either sign too.
  const Triangle floors[4] = {{{{-3, 0, -3}, {3, 0, -3}, {0, 0, 4}}},
                              {{{-3, 0, -3}, {0, 0, 4}, {3, 0, -3}}},
                              {{{3, 0, 3}, {-3, 0, 3}, {0, 0, -4}}},
                              {{{4, 0, 0}, {-3, 0, 3}, {-3, 0, -3}}}};
  for (int n = 0; n < 8000; ++n) {
    const Triangle& t = floors[(n >> 4) & 3];
    const float x = zeros[n & 1], z = zeros[(n >> 1) & 1], mx = zeros[(n >> 2) & 1], mz = zeros[(n >> 3) & 1];
    const float y = float(0.36 + rng.uniform(0.001, 0.03));
    const Capsule c{{x, y, z}, {x, y + 1.1f, z}, 0.36f};
    const Vec3 motion{mx, -float(rng.uniform(0.01, 0.4)), mz};
    ASSERT_TRUE(agrees(c, motion, t, tally, "signed zeros " + std::to_string(n)));
  }
  EXPECT_GT(tally.exact, 6000u);
}

}  // namespace
