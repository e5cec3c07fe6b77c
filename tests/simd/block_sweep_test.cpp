// The wide block kernel: every ISA variant equals its scalar twin lane by lane, bit for bit;
// every lane's answer is accepted by the independent oracle; unused lanes never report.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/closest_point.h"
#include "core/random.h"
#include <capsweep/sweep.h>
#include "simd/block_sweep.h"
#include "tests/support/cases.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

// A block of `used` lanes around one case's capsule: lane `home` holds the case's own triangle,
// the others triangles of further cases moved next to the capsule, so lanes differ in shape,
// size and feature while the query stays one.
struct BlockCase {
  cases::SweepCase query;
  std::vector<Triangle> triangles;
  std::vector<std::uint32_t> ids;
  TriangleBlock block;  // compact, as the BVH holds it: the rejection stage reads this
  KernelBlock wide;     // the same lanes in double: the full kernel reads this
};

BlockCase make_block_case(Random& rng) {
  BlockCase c;
  c.query = cases::make(rng, cases::Kind(rng.below(std::uint64_t(cases::Kind::count))));
  const int used = 1 + int(rng.below(kBlockLanes));
  const int home = int(rng.below(std::uint64_t(used)));
  for (int lane = 0; lane < used; ++lane) {
    if (lane == home) {
      c.triangles.push_back(c.query.triangle);
    } else {
      const cases::SweepCase other = cases::make(rng, cases::Kind(rng.below(std::uint64_t(cases::Kind::count))));
      const Vec3 shift = c.query.capsule.a - other.capsule.a;
      Triangle t = other.triangle;
      for (Vec3& v : t.v) v += shift;
      c.triangles.push_back(t);
    }
    c.ids.push_back(std::uint32_t(lane));
  }
  c.block = make_block(c.triangles, c.ids);
  c.wide = widen(c.block);
  return c;
}

// For a lane the rejection stage dropped: "" when the scalar core does not touch it before
// `limit`, or touches it only grazing, within the tolerance (the oracle accepts a miss for the
// motion cut at the limit); otherwise what is wrong. `touched` says whether the core touched it.
std::string judge_dropped_lane(const BlockCase& c, int lane, double limit, bool& touched) {
  const Capsule& cap = c.query.capsule;
  const Triangle& tri = c.triangles[std::size_t(lane)];
  SweepHit core;
  touched = false;
  if (sweep_capsule_triangle(cap, c.query.motion, tri, core) != Status::ok) return "the core refused the case";
  if (!core.hit || core.t > limit) return "";
  touched = true;
  double largest = cases::largest_coordinate(c.query);
  for (const Vec3& v : tri.v) largest = std::max(largest, double(max_abs_component(v)));
  const std::string verdict = oracle::judge(SweepHit{}, cap, c.query.motion * float(limit), cap.radius,
                                            oracle::triangle_obstacle(tri), oracle::tolerance(largest));
  return verdict.empty() ? "" : "the core hits at t=" + std::to_string(core.t) + ": " + verdict;
}

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// Whether a case's capsule (standing beyond its triangle's plane along `away`) never comes
// nearer the plane while it moves: its motion is along the plane or away from it, and its axis
// points away too.
bool case_motion_clear(const BlockCase& c, const Vec3d& away) {
  const Vec3d d = to_double(c.query.motion), e = to_double(c.query.capsule.b) - to_double(c.query.capsule.a);
  return dot(d, away) >= -1e-9 * std::sqrt(length_sq(d)) && dot(e, away) >= 0;
}

TEST(BlockSweep, EveryIsaEqualsTheScalarTwinLaneByLane) {
  const auto variants = block_sweep_variants();
  ASSERT_GE(variants.size(), 1u);
  Random rng(101);
  std::size_t entered = 0, near = 0;
  for (int n = 0; n < 40000; ++n) {
    const BlockCase c = make_block_case(rng);
    const BlockQuery q = make_block_query(c.query.capsule, c.query.motion);
    BlockHits twin;
    const bool twin_reported = block_sweep_scalar(c.wide, q, twin);
    const std::uint32_t twin_live = block_live_scalar(c.block, q);
    ASSERT_EQ(twin_live >> c.triangles.size(), 0u) << "an unused lane is live";
    for (const BlockSweepVariant& v : variants) {
      ASSERT_EQ(v.live(c.block, q), twin_live) << v.isa << " case " << n;
      BlockHits wide;
      const bool reported = v.fn(c.wide, q, wide);
      ASSERT_EQ(reported, twin_reported) << v.isa << " case " << n;
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        SCOPED_TRACE(std::string(v.isa) + " case " + std::to_string(n) + " lane " + std::to_string(lane));
        ASSERT_TRUE(same_bits(wide.t[lane], twin.t[lane])) << wide.t[lane] << " vs " << twin.t[lane];
        ASSERT_EQ(wide.near_start[lane], twin.near_start[lane]);
        if (wide.t[lane] <= 1.0) {
          ASSERT_EQ(wide.part[lane], twin.part[lane]);
        }
        if (!c.block.valid(lane)) {
          ASSERT_FALSE(wide.t[lane] <= 1.0) << "an unused lane reported a hit";
          ASSERT_FALSE(wide.near_start[lane]) << "an unused lane reported a start contact";
        }
      }
    }
    for (int lane = 0; lane < kBlockLanes; ++lane) {
      entered += twin.t[lane] <= 1.0;
      near += twin.near_start[lane];
    }
  }
  // The cases must exercise both outcomes, not only misses.
  EXPECT_GT(entered, 10000u);
  EXPECT_GT(near, 5000u);
}

TEST(BlockSweep, PooledLanesGiveTheBitsOfEachQueryAlone) {
  // Eight lanes from eight different cases (each with its own capsule, motion and limit), swept
  // together by the pooled kernel, against each case's block swept with its own query.
  const auto variants = block_sweep_variants();
  Random rng(505);
  std::size_t entered = 0, near = 0;
  for (int n = 0; n < 30000; ++n) {
    const int used = 1 + int(rng.below(kBlockLanes));
    KernelBlock pooled_block;
    LaneQueries lanes;
    BlockQuery alone_query[kBlockLanes];
    KernelBlock alone_block[kBlockLanes];
    int alone_lane[kBlockLanes];
    for (int lane = 0; lane < used; ++lane) {
      BlockCase c = make_block_case(rng);
      if (c.query.capsule.a == c.query.capsule.b) c.query.capsule.b.y += 0.5f;  // the pool takes capsules with an axis
      BlockQuery q = make_block_query(c.query.capsule, c.query.motion);
      if (rng.chance(0.3)) limit_block_query(q, rng.uniform(0, 1));
      ASSERT_TRUE(has_axis(q));
      const int from = int(rng.below(c.triangles.size()));
      copy_lane(c.wide, from, pooled_block, lane);
      set_lane_query(lanes, lane, q);
      alone_query[lane] = q;
      alone_block[lane] = c.wide;
      alone_lane[lane] = from;
    }
    close_lanes(pooled_block, used);
    close_lane_queries(lanes, used);
    BlockHits twin;
    block_sweep_pooled_scalar(pooled_block, lanes, twin);
    for (int lane = 0; lane < kBlockLanes; ++lane) {
      if (lane >= used) {
        ASSERT_FALSE(twin.t[lane] <= 1.0 || twin.near_start[lane]) << "an unused lane reported";
        continue;
      }
      BlockHits alone;
      block_sweep_scalar(alone_block[lane], alone_query[lane], alone);
      const int k = alone_lane[lane];
      ASSERT_TRUE(same_bits(twin.t[lane], alone.t[k])) << "case " << n << " lane " << lane;
      ASSERT_EQ(twin.near_start[lane], alone.near_start[k]) << "case " << n << " lane " << lane;
      if (twin.t[lane] <= 1.0) {
        ASSERT_EQ(twin.part[lane], alone.part[k]);
        // The answer built from the pooled lane is the one built from the lane alone.
        EXPECT_TRUE(identical(lane_hit(pooled_block, lane, alone_query[lane], twin),
                              lane_hit(alone_block[lane], k, alone_query[lane], alone)));
      }
      entered += twin.t[lane] <= 1.0;
      near += twin.near_start[lane];
    }
    for (const BlockSweepVariant& v : variants) {
      BlockHits wide;
      v.pooled(pooled_block, lanes, wide);
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        SCOPED_TRACE(std::string(v.isa) + " case " + std::to_string(n) + " lane " + std::to_string(lane));
        ASSERT_TRUE(same_bits(wide.t[lane], twin.t[lane]));
        ASSERT_EQ(wide.near_start[lane], twin.near_start[lane]);
        if (wide.t[lane] <= 1.0) {
          ASSERT_EQ(wide.part[lane], twin.part[lane]);
        }
      }
    }
  }
  // Both outcomes exercised, not only misses.
  std::printf("%zu lanes entered, %zu starting within reach\n", entered, near);
  EXPECT_GT(entered, 10000u);
  EXPECT_GT(near, 5000u);
}

TEST(BlockSweep, EveryLaneIsAcceptedByTheOracle) {
  Random rng(202);
  const BlockSweepFn kernel = best_block_sweep().fn;
  std::size_t judged = 0, hits = 0;
  for (int n = 0; n < 100000; ++n) {
    const BlockCase c = make_block_case(rng);
    const Capsule& cap = c.query.capsule;
    const BlockQuery q = make_block_query(cap, c.query.motion);
    BlockHits lanes;
    kernel(c.wide, q, lanes);
    for (int lane = 0; lane < int(c.triangles.size()); ++lane) {
      const Triangle& tri = c.triangles[std::size_t(lane)];
      double largest = cases::largest_coordinate(c.query);
      for (const Vec3& v : tri.v) largest = std::max(largest, double(max_abs_component(v)));
      const double tol = oracle::tolerance(largest);
      const Vec3d tv[3] = {to_double(tri.v[0]), to_double(tri.v[1]), to_double(tri.v[2])};
      const double start_distance = oracle::segment_triangle(to_double(cap.a), to_double(cap.b), tv).distance;
      if (lanes.near_start[lane]) {
        // Handed to the scalar core only when the start really is within reach.
        ASSERT_LE(start_distance, cap.radius + tol) << "case " << n << " lane " << lane;
        continue;
      }
      ASSERT_GT(start_distance, cap.radius - tol) << "a start in contact was not flagged: case " << n;
      SweepHit h;
      if (lanes.t[lane] <= 1.0) h = lane_hit(c.wide, lane, q, lanes);
      hits += h.hit;
      ++judged;
      ASSERT_EQ(oracle::judge(h, cap, c.query.motion, cap.radius, oracle::triangle_obstacle(tri), tol), "")
          << "case " << n << " lane " << lane << " kind " << cases::name(c.query.kind);
    }
  }
  EXPECT_GT(judged, 200000u);
  EXPECT_GT(hits, 25000u);
}

TEST(BlockSweep, RejectedLanesAreNeverTouchedBeforeTheLimit) {
  // The rejection stage must be exact: a lane it drops is one the scalar core does not hit
  // before the query's limit (up to rounding at grazing contacts, which the oracle allows).
  Random rng(303);
  std::size_t rejected = 0, limited = 0;
  for (int n = 0; n < 100000; ++n) {
    const BlockCase c = make_block_case(rng);
    const Capsule& cap = c.query.capsule;
    BlockQuery q = make_block_query(cap, c.query.motion);
    const double limit = rng.chance(0.5) ? 1.0 : rng.uniform(0, 1);
    limit_block_query(q, limit);
    const std::uint32_t live = best_block_sweep().live(c.block, q);
    for (int lane = 0; lane < int(c.triangles.size()); ++lane) {
      if (live & (1u << lane)) continue;
      ++rejected;
      // Touched no later than the limit: only a grazing contact within the tolerance may be
      // dropped, so the miss must be acceptable to the oracle for the motion cut at the limit.
      bool touched = false;
      ASSERT_EQ(judge_dropped_lane(c, lane, limit, touched), "")
          << "case " << n << " lane " << lane << ": rejected before the limit " << limit;
      limited += touched;
    }
  }
  EXPECT_GT(rejected, 100000u);
  EXPECT_LT(limited, rejected / 1000) << "grazing drops should be rare";
}

TEST(BlockSweep, TheSweepAxesDropOnlyLanesThatAreNotTouched) {
  // The float stage's extra separating axes (the swept parallelogram's normal, edges x e and
  // edges x d), forced on for every case: each lane they drop that the cheap tests keep must be
  // one the scalar core does not touch before the limit (or a grazing miss the oracle accepts),
  // and on every ISA the same lanes.
  Random rng(606);
  std::size_t dropped = 0, kept = 0, grazing = 0;
  for (int n = 0; n < 100000; ++n) {
    const BlockCase c = make_block_case(rng);
    const Capsule& cap = c.query.capsule;
    BlockQuery q = make_block_query(cap, c.query.motion);
    const double limit = rng.chance(0.5) ? 1.0 : rng.uniform(0, 1);
    limit_block_query(q, limit);
    q.sweep_axes = false;
    const std::uint32_t cheap = block_live_scalar(c.block, q);
    q.sweep_axes = true;
    const std::uint32_t sharp = block_live_scalar(c.block, q);
    ASSERT_EQ(sharp & ~cheap, 0u) << "the axes only ever drop lanes";
    for (const BlockSweepVariant& v : block_sweep_variants()) ASSERT_EQ(v.live(c.block, q), sharp) << v.isa;
    BlockHits exact;  // the double kernel, which decides the bits: no lane it touches may be dropped
    block_sweep_scalar(c.wide, q, exact);
    for (int lane = 0; lane < int(c.triangles.size()); ++lane) {
      if (!(cheap & (1u << lane))) continue;
      if (sharp & (1u << lane)) {
        ++kept;
        continue;
      }
      ++dropped;
      ASSERT_FALSE(exact.near_start[lane]) << "case " << n << " lane " << lane << ": dropped, but starts within reach";
      ASSERT_FALSE(exact.t[lane] <= limit) << "case " << n << " lane " << lane << ": dropped, but the double kernel enters at "
                                           << exact.t[lane] << " <= " << limit;
      bool touched = false;
      ASSERT_EQ(judge_dropped_lane(c, lane, limit, touched), "")
          << "case " << n << " lane " << lane << ": dropped by the sweep axes before the limit " << limit;
      grazing += touched;
    }
  }
  std::printf("the sweep axes dropped %zu of %zu lanes the cheap tests kept (%zu grazing)\n", dropped, dropped + kept,
              grazing);
  EXPECT_GT(dropped, 10000u) << "the axes must be exercised";
  EXPECT_LT(grazing, dropped / 1000 + 1);
}

// Compact blocks store no normal: the float stage crosses two edges for the plane's direction,
// which for a sliver (or far from the origin) is only nearly the normal, and projects all three
// corners onto it and onto each edge's side direction. Capsules (down to a ray's thin one)
// placed at r + gap (gap -10 um to 1 mm, and random) beyond the true plane or an edge of
// slivers down to 1e-8 of their length, collinear and point triangles, up to 900 km out, moving
// along the plane, away or toward it: every lane dropped is one the scalar core does not touch
// before the limit, every ISA drops the same lanes, and a capsule clear of a proper triangle's
// plane or of an edge's side is always dropped (both tests still reject).
TEST(BlockSweep, TheFloatStageRejectsSoundlyWithoutAStoredNormal) {
  Random rng(909);
  std::size_t rejected = 0, clear = 0, clear_rejected = 0, touched_total = 0;
  for (int n = 0; n < 60000; ++n) {
    const double far = rng.chance(0.05) ? rng.uniform(-9e5, 9e5) : rng.chance(0.3) ? rng.uniform(-5000, 5000) : 0.0;
    const double length = rng.log_uniform(1e-3, 2e3);
    const Vec3d u = rng.unit_vector();
    Vec3d w = rng.unit_vector();
    w = w - u * dot(w, u);
    if (!(length_sq(w) > 1e-6)) continue;
    w = w / std::sqrt(length_sq(w));
    double height = rng.chance(0.7) ? rng.log_uniform(1e-8, 1e-2) : rng.uniform(0.05, 1.0);
    const Vec3d v0 = rng.in_cube(10) + Vec3d{far, far * 0.1, -far};
    Triangle tri{{to_float(v0), to_float(v0 + u * length), to_float(v0 + u * (length * rng.uniform(-0.5, 1.5)) + w * (length * height))}};
    if (rng.chance(0.05)) tri.v[2] = to_float(v0 + u * (length * rng.uniform(-0.5, 1.5))), height = 0;  // collinear
    if (rng.chance(0.03)) tri.v[1] = tri.v[2] = tri.v[0], height = 0;                                    // a point
    const Vec3d v[3] = {to_double(tri.v[0]), to_double(tri.v[1]), to_double(tri.v[2])};
    const TriangleShape shape = classify_triangle(v);
    const bool proper = shape.kind == TriangleShape::proper;
    // Where the capsule stands: over a point of the face, or beyond an edge's side.
    const double a = rng.uniform(), b = rng.uniform() * (1 - a);
    const Vec3d on = v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b;
    Vec3d away = proper ? shape.normal * (rng.chance(0.5) ? 1.0 : -1.0) : rng.unit_vector();
    const int side = int(rng.below(4));
    if (proper && side < 3) {
      const Vec3d edge = v[(side + 1) % 3] - v[side];
      Vec3d out = cross(edge, shape.normal);
      if (length_sq(out) > 0) away = out / std::sqrt(length_sq(out));
    }
    const double r = rng.log_uniform(1e-5, 2.0);  // from a ray's thin capsule (swept_capsule) up
    const double gap = rng.chance(0.8) ? std::array{-1e-5, 0.0, 1e-5, 1e-4, 1e-3}[rng.below(5)] : rng.uniform(0, 1);
    const Vec3d start = (side < 3 && proper ? v[side] + (v[(side + 1) % 3] - v[side]) * rng.uniform() : on) + away * (r + gap);
    const Vec3d axis = rng.chance(0.5) ? away * rng.uniform(0, 2) : rng.unit_vector() * rng.uniform(0, 2);
    Vec3d motion;
    switch (rng.below(3)) {
      case 0: motion = cross(away, rng.unit_vector()) * rng.uniform(0.01, 5); break;  // along the plane or side
      case 1: motion = away * rng.uniform(0.01, 5); break;                            // away
      default: motion = rng.unit_vector() * rng.uniform(0.01, 30); break;
    }
    BlockCase c;
    c.query = cases::SweepCase{Capsule{to_float(start), to_float(start + axis), float(r)}, to_float(motion), tri,
                               cases::Kind::random};
    c.triangles = {tri};
    c.ids = {0};
    c.block = make_block(c.triangles, c.ids);
    c.wide = widen(c.block);
    BlockQuery q = make_block_query(c.query.capsule, c.query.motion);
    const double limit = rng.chance(0.5) ? 1.0 : rng.uniform(0, 1);
    limit_block_query(q, limit);
    const std::uint32_t live = block_live_scalar(c.block, q);
    for (const BlockSweepVariant& variant : block_sweep_variants()) ASSERT_EQ(variant.live(c.block, q), live) << variant.isa;
    // Clear: the capsule as rounded to float lies beyond the plane or an edge's side of a
    // triangle that is no sliver, by 2.5 times the float stage's margin (4e-6 x the magnitudes
    // in the query's frame), and never comes nearer.
    double size = 0;
    for (const Vec3d& p : v) size = std::max(size, max_abs_component(p - to_double(c.query.capsule.a)));
    const Vec3d& on_plane = side < 3 ? v[side] : v[0];  // a point of the plane or side it stands beyond
    const double beyond = std::min(dot(to_double(c.query.capsule.a) - on_plane, away),
                                   dot(to_double(c.query.capsule.b) - on_plane, away)) - double(c.query.capsule.radius);
    const bool is_clear = proper && height >= 0.05 && beyond > 1e-5 * (size + q.scale) + 1e-9 && case_motion_clear(c, away);
    clear += is_clear;
    if (live & 1u) continue;
    ++rejected;
    clear_rejected += is_clear;
    BlockHits exact;
    block_sweep_scalar(c.wide, q, exact);
    ASSERT_FALSE(exact.near_start[0]) << "case " << n << ": dropped, but starts within reach";
    ASSERT_FALSE(exact.t[0] <= limit) << "case " << n << ": dropped, but the double kernel enters at " << exact.t[0];
    bool touched = false;
    ASSERT_EQ(judge_dropped_lane(c, 0, limit, touched), "") << "case " << n << ": dropped before the limit " << limit;
    touched_total += touched;
  }
  std::printf("dropped %zu lanes; %zu of %zu clear of the plane or a side\n", rejected, clear_rejected, clear);
  EXPECT_GT(rejected, 10000u);
  EXPECT_GT(clear, 300u);
  EXPECT_EQ(clear_rejected, clear) << "a capsule clear of the plane or a side, moving away or along it, is dropped";
  EXPECT_LT(touched_total, rejected / 1000 + 1);
}

TEST(BlockSweep, TheSweepAxesIgnoreAnAxisTooShortForFloat) {
  // A capsule axis of 1e-23 m: an edge crossed with it is a vector whose squared length
  // underflows float (or is flushed to zero), while its projections do not; such an axis would
  // prove a gap that is not there. The triangle is really hit.
  const Capsule cap{{0, 0, 0}, {1e-23f, 0, 0}, 1.f};
  const Vec3 motion{0, 10, 0};
  const std::vector<Triangle> soup{Triangle{{{-1, 2, 0.5f}, {-1, 3, 0.5f}, {1, 2.5f, 0.5f}}}};
  const std::uint32_t id = 0;
  const TriangleBlock block = make_block(soup, std::span(&id, 1));
  SweepHit core;
  ASSERT_EQ(sweep_capsule_triangle(cap, motion, soup[0], core), Status::ok);
  ASSERT_TRUE(core.hit);
  BlockQuery q = make_block_query(cap, motion);
  ASSERT_TRUE(q.sweep_axes);
  EXPECT_EQ(block_live_scalar(block, q), 1u);
  for (const BlockSweepVariant& v : block_sweep_variants()) EXPECT_EQ(v.live(block, q), 1u) << v.isa;
}

TEST(TriangleBlock, GatheredLanesKeepTheirTriangleAndExactNormal) {
  Random rng(404);
  std::vector<Triangle> soup;
  for (int i = 0; i < 8; ++i) soup.push_back(cases::make(rng, cases::Kind::random).triangle);
  const std::uint32_t ids[] = {3, 1, 4, 0, 5};
  const TriangleBlock block = make_block(soup, ids);
  KernelBlock out;
  gather_lane(block, 2, out, 0);
  gather_lane(block, 4, out, 1);
  close_lanes(out, 2);
  best_block_sweep().complete(out);  // what the engine does before the full kernel
  EXPECT_EQ(out.triangle[0], 4u);
  EXPECT_EQ(out.triangle[1], 5u);
  for (int lane = 2; lane < kBlockLanes; ++lane) EXPECT_FALSE(out.valid(lane));
  const Vec3d v[3] = {to_double(soup[4].v[0]), to_double(soup[4].v[1]), to_double(soup[4].v[2])};
  const TriangleShape shape = classify_triangle(v);
  EXPECT_EQ(out.x1[0], double(soup[4].v[1].x));
  EXPECT_EQ(out.nx[0], shape.normal.x);
  EXPECT_EQ(out.nz[0], shape.normal.z);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(block.get(3).v[k], soup[0].v[k]);
}

// A walking step usually leaves one or two live lanes, and the kernel skips a group of lanes
// (four on AVX2) that are all unused. The first `used` lanes of a block, closed after them, give
// on every ISA and the scalar twin, shared or pooled, the bits those lanes give in the whole block.
TEST(BlockSweep, AClosedBlockGivesItsUsedLanesTheBitsOfTheWholeBlock) {
  auto variants = block_sweep_variants();
  variants.push_back({"scalar twin", block_sweep_scalar, block_live_scalar, block_sweep_pooled_scalar, nullptr, 1});
  Random rng(707);
  std::size_t entered = 0;
  for (int n = 0; n < 5000; ++n) {
    BlockCase c = make_block_case(rng);
    if (c.query.capsule.a == c.query.capsule.b) c.query.capsule.b.y += 0.5f;  // the pool takes capsules with an axis
    const int whole = int(c.triangles.size());
    const BlockQuery q = make_block_query(c.query.capsule, c.query.motion);
    LaneQueries lanes;
    for (int lane = 0; lane < kBlockLanes; ++lane) set_lane_query(lanes, lane, q);
    for (const BlockSweepVariant& v : variants) {
      BlockHits all;
      v.fn(c.wide, q, all);
      for (int used = 1; used <= whole; ++used) {
        KernelBlock part = c.wide;  // every lane defined (close_lanes leaves the normals)
        close_lanes(part, used);
        BlockHits shared, pooled;
        v.fn(part, q, shared);
        v.pooled(part, lanes, pooled);
        for (int lane = 0; lane < kBlockLanes; ++lane) {
          SCOPED_TRACE(std::string(v.isa) + " case " + std::to_string(n) + " used " + std::to_string(used) + " lane " +
                       std::to_string(lane));
          for (const BlockHits* got : {&shared, &pooled}) {
            if (lane >= used) {
              ASSERT_FALSE(got->t[lane] <= 1.0 || got->near_start[lane]) << "an unused lane reported";
              continue;
            }
            ASSERT_TRUE(same_bits(got->t[lane], all.t[lane])) << got->t[lane] << " vs " << all.t[lane];
            ASSERT_EQ(got->near_start[lane], all.near_start[lane]);
            if (all.t[lane] <= 1.0) {
              ASSERT_EQ(got->part[lane], all.part[lane]);
            }
          }
          entered += lane < used && all.t[lane] <= 1.0;
        }
      }
    }
  }
  EXPECT_GT(entered, 1000u);
}

TEST(BlockSweep, UnusedLanesNeverReportEvenWhenTheirCopyIsHit) {
  // Lane 0 is hit head-on; lanes 1..7 are unused copies of it.
  const Triangle floor{{{-1, 0, -1}, {1, 0, -1}, {0, 0, 1}}};
  const std::vector<Triangle> soup{floor};
  const std::uint32_t id = 0;
  const TriangleBlock block = make_block(soup, std::span(&id, 1));
  const KernelBlock wide = widen(block);
  const BlockQuery q = make_block_query({{0, 1, 0}, {0, 2, 0}, 0.5f}, {0, -2, 0});
  for (const BlockSweepVariant& v : block_sweep_variants()) {
    EXPECT_EQ(v.live(block, q), 1u) << v.isa;
    BlockHits hits;
    ASSERT_TRUE(v.fn(wide, q, hits)) << v.isa;
    EXPECT_NEAR(hits.t[0], 0.25, 1e-12) << v.isa;
    EXPECT_EQ(hits.part[0], std::uint8_t(PrismPart::face_at_a)) << v.isa;
    for (int lane = 1; lane < kBlockLanes; ++lane) {
      EXPECT_FALSE(block.valid(lane));
      EXPECT_FALSE(hits.t[lane] <= 1.0) << v.isa << " lane " << lane;
    }
  }
}

TEST(BlockSweep, DegenerateLanesSweepLikeTheScalarCore) {
  // A segment-like triangle (collinear vertices) and a point-like one, against the scalar core.
  const std::vector<Triangle> soup{Triangle{{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}},
                                   Triangle{{{0.5f, 0, 2}, {0.5f, 0, 2}, {0.5f, 0, 2}}}};
  const std::uint32_t ids[] = {0, 1};
  const TriangleBlock block = make_block(soup, ids);
  const KernelBlock wide = widen(block);
  EXPECT_EQ(wide.nx[0], 0.0);  // no normal: the kernel sweeps only the edges and vertices
  EXPECT_EQ(wide.ny[1], 0.0);
  Random rng(7);
  for (int n = 0; n < 2000; ++n) {
    const Vec3d a = Vec3d{1, 0, 1} + rng.in_cube(3);
    const Capsule cap{to_float(a), to_float(a + rng.unit_vector() * rng.uniform(0, 1)), float(rng.uniform(0.05, 0.5))};
    const Vec3 d = to_float(rng.unit_vector() * rng.uniform(0.1, 6));
    const BlockQuery q = make_block_query(cap, d);
    BlockHits lanes;
    best_block_sweep().fn(wide, q, lanes);
    for (int lane = 0; lane < 2; ++lane) {
      if (lanes.near_start[lane]) continue;
      SweepHit core;
      ASSERT_EQ(sweep_capsule_triangle(cap, d, soup[std::size_t(lane)], core), Status::ok);
      const bool wide_hit = lanes.t[lane] <= 1.0;
      ASSERT_EQ(wide_hit, core.hit) << "case " << n << " lane " << lane;
      if (wide_hit) {
        EXPECT_NEAR(lanes.t[lane] * length(to_double(d)), core.t * length(to_double(d)), 1e-4);
      }
    }
  }
}

}  // namespace

// The exact normals completed in a gathered kernel block are classify_triangle's bits: on every
// ISA and the scalar twins, for random, terrain-like and degenerate triangles (collinear,
// coincident vertices, slivers, ties for the longest edge, far from the origin).
TEST(BlockNormals, EveryIsaGivesTheBitsOfClassifyTriangle) {
  Random rng(404);
  std::vector<CompleteNormalsFn> completes{complete_normals_scalar, complete_normals_wide_scalar};
  for (const BlockSweepVariant& v : block_sweep_variants()) completes.push_back(v.complete);
  std::size_t degenerate = 0;
  for (int round = 0; round < 40000; ++round) {
    std::vector<Triangle> tris;
    std::vector<std::uint32_t> ids;
    const int used = 1 + int(rng.below(kBlockLanes));
    for (int lane = 0; lane < used; ++lane) {
      const double scale = rng.log_uniform(1e-3, 1e4), far = rng.chance(0.2) ? rng.uniform(-1e5, 1e5) : 0.0;
      Triangle t;
      for (Vec3& v : t.v) v = to_float(rng.in_cube(scale) + Vec3d{far, 0, far});
      switch (rng.below(7)) {
        case 0: t.v[2] = t.v[0]; break;                                              // two vertices coincide
        case 1: t.v[2] = to_float((to_double(t.v[0]) + to_double(t.v[1])) * 0.5); break;  // collinear
        case 2: t.v[1] = t.v[2] = t.v[0]; break;                                      // a point
        case 3: {  // a heightfield cell's half: a right triangle in x-z, a tie for the longest leg
          const float c = float(scale), x = t.v[0].x, z = t.v[0].z;
          t.v[1] = {x, t.v[0].y + float(rng.uniform(-1, 1)), z + c};
          t.v[2] = {x + c, t.v[0].y + float(rng.uniform(-1, 1)), z};
          break;
        }
        case 4: t.v[2] = t.v[1] + (t.v[1] - t.v[0]) * 1e-6f; break;  // a sliver
        case 5: {  // two longest edges of exactly equal length (integers: no rounding)
          const Vec3 c{float(rng.below(200)) - 100.f, float(rng.below(200)) - 100.f, float(rng.below(200)) - 100.f};
          const float a = float(1 + rng.below(20)), h = 2.f * a + float(rng.below(20)), b = float(rng.below(5));
          const Vec3 p[3] = {c + Vec3{-a, 0, 0}, c + Vec3{0, h, b}, c + Vec3{a, 0, 0}};
          const int first = int(rng.below(3));  // which pair of edges ties depends on the rotation
          for (int k = 0; k < 3; ++k) t.v[k] = p[(first + k) % 3];
          break;
        }
        default: break;
      }
      tris.push_back(t);
      ids.push_back(std::uint32_t(lane));
    }
    const TriangleBlock expected = make_block(tris, ids);
    KernelBlock gathered;
    for (int lane = 0; lane < kBlockLanes; ++lane) gather_lane(expected, kBlockLanes - 1 - lane, gathered, lane);
    for (CompleteNormalsFn complete : completes) {
      KernelBlock got = gathered;
      for (int lane = 0; lane < kBlockLanes; ++lane) got.nx[lane] = got.ny[lane] = got.nz[lane] = 12345.0;
      complete(got);
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        const Triangle t = expected.get(kBlockLanes - 1 - lane);
        const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
        const TriangleShape shape = classify_triangle(v);
        const Vec3d n = shape.kind == TriangleShape::proper ? shape.normal : Vec3d{};
        ASSERT_TRUE(std::memcmp(&got.nx[lane], &n.x, 8) == 0 && std::memcmp(&got.ny[lane], &n.y, 8) == 0 &&
                    std::memcmp(&got.nz[lane], &n.z, 8) == 0)
            << "round " << round << " lane " << lane;
        degenerate += shape.kind != TriangleShape::proper;
      }
    }
  }
  EXPECT_GT(degenerate, 10000u);
}

// The lanes each variant sweeps at once (a walk flushes that many live lanes), and the variant in
// use among them: AVX2 where the CPU runs it and not AVX-512; on an AVX-512 CPU the one the
// clock chose (simd/kernel_choice.h; tests/simd/kernel_choice_test.cpp holds the rule).
TEST(BlockSweep, TheVariantInUseIsAmongTheCpusAndEachSaysItsGroup) {
  const std::vector<BlockSweepVariant> variants = block_sweep_variants();
  ASSERT_FALSE(variants.empty());
  for (const BlockSweepVariant& v : variants) {
    const std::string isa = v.isa;
    const int expected = isa == "avx512f" ? 8 : isa == "avx2" ? 4 : 2;
    EXPECT_EQ(v.group, expected) << isa;
    EXPECT_EQ(kBlockLanes % v.group, 0) << isa;
  }
  if (std::getenv("CAPSWEEP_ISA") != nullptr) GTEST_SKIP() << "CAPSWEEP_ISA chooses the variant";
  const auto runs = [&](const char* isa) {
    return std::any_of(variants.begin(), variants.end(), [&](const auto& v) { return std::string(v.isa) == isa; });
  };
  const std::string in_use = best_block_sweep().isa;
  if (runs("avx512f")) {
    EXPECT_TRUE(in_use == "avx2" || in_use == "avx512f") << in_use;
  } else if (runs("avx2")) {
    EXPECT_EQ(in_use, "avx2");
  } else {
    EXPECT_EQ(in_use, variants.front().isa);
  }
}
