// The walk's step: every variant of child_entry gives its scalar twin's bits and entry times, bit
// for bit, on random and adversarial nodes; the twin keeps every child the swept box enters
// before the limit (against the same slab test in double), and never reports an unused slot.
#include "simd/child_entry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "broadphase/swept_box.h"
#include "core/random.h"
#include "simd/block_sweep.h"

namespace {

using namespace capsweep;

struct Case {
  ChildEntryPlanes planes;
  WideNode node;
  float limit;
};

std::uint32_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }

// Every variant against the twin on one case: the same bits, and the same bytes in near[].
void expect_same(const Case& c, const char* what) {
  alignas(32) float twin_near[WideNode::kWidth];
  const unsigned twin = child_entry_scalar(c.planes, c.node, c.limit, twin_near);
  for (const ChildEntryVariant& v : child_entry_variants()) {
    alignas(32) float near[WideNode::kWidth];
    std::fill(std::begin(near), std::end(near), -7.f);
    const unsigned bits = v.fn(c.planes, c.node, c.limit, near);
    ASSERT_EQ(bits, twin) << v.isa << ", " << what;
    for (int k = 0; k < WideNode::kWidth; ++k) {
      ASSERT_EQ(bits_of(near[k]), bits_of(twin_near[k])) << v.isa << ", " << what << ", child " << k;
    }
  }
}

void set_child(WideNode& n, int k, const Aabb& box, std::uint32_t link) {
  n.min_x[k] = box.min.x, n.min_y[k] = box.min.y, n.min_z[k] = box.min.z;
  n.max_x[k] = box.max.x, n.max_y[k] = box.max.y, n.max_z[k] = box.max.z;
  n.child[k] = link;
}

WideNode empty_node() {
  WideNode n{};
  for (int k = 0; k < WideNode::kWidth; ++k) n.child[k] = WideNode::kEmpty;
  return n;
}


// A random box near `at` (extent up to `size`, some flat or a point).
Aabb random_box(Random& rng, const Vec3d& at, double size) {
  Vec3 a = to_float(at + rng.in_cube(size)), b = to_float(at + rng.in_cube(size));
  if (rng.chance(0.1)) b.y = a.y;  // flat
  if (rng.chance(0.05)) b = a;     // a point
  return {{std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)}, {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)}};
}

// A random swept capsule's planes near the origin scaled by `scale`; some motions have zero
// components (the huge finite slope) or are tiny.
ChildEntryPlanes random_planes(Random& rng, double scale, Capsule& capsule, Vec3& motion) {
  const Vec3d a = rng.in_cube(scale);
  capsule = {to_float(a), to_float(a + rng.in_cube(1.0)), float(rng.uniform(0.0, 0.5))};
  Vec3d d = rng.in_cube(rng.chance(0.5) ? 0.2 : 20.0);
  if (rng.chance(0.3)) d.x = 0;
  if (rng.chance(0.3)) d.z = 0;
  if (rng.chance(0.1)) d = {0, 0, 0};
  if (rng.chance(0.05)) d = d * 1e-9;
  motion = to_float(d);
  return child_entry_planes(make_swept_box(capsule, motion));
}

// Entry into `box` grown by the swept box's half extents, in double from the same float planes
// (c + h, c - h) and the motion d: the interval [near, far] of times in [0, 1] the moving box
// overlaps it (empty: near > far).
void exact_entry(const ChildEntryPlanes& p, const SweptBox& s, const Aabb& box, double& near, double& far) {
  near = 0, far = 1;
  const float lo[3] = {box.min.x, box.min.y, box.min.z}, hi[3] = {box.max.x, box.max.y, box.max.z};
  for (int k = 0; k < 3; ++k) {
    const double d = s.d[k];
    // The box is entered when c + t d reaches [lo - h, hi + h].
    const double enter_at = double(lo[k]) - double(p.lo[k]), leave_at = double(hi[k]) - double(p.hi[k]);
    if (d == 0) {
      if (enter_at > 0 || leave_at < 0) near = 2;  // never inside on this axis
      continue;
    }
    const double t0 = enter_at / d, t1 = leave_at / d;
    near = std::max(near, std::min(t0, t1));
    far = std::min(far, std::max(t0, t1));
  }
}

TEST(ChildEntry, EveryVariantIsItsTwinOnRandomNodes) {
  Random rng(20261126);
  for (int i = 0; i < 20000; ++i) {
    const double scale = i % 10 == 0 ? 1e5 : (i % 3 == 0 ? 1.0 : 50.0);  // 100 km out, a metre, a level
    Capsule capsule;
    Vec3 motion;
    Case c{random_planes(rng, scale, capsule, motion), empty_node(), 1.f};
    const Vec3d centre = rng.in_cube(scale);
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (rng.chance(0.2)) continue;  // unused slots anywhere, not only last
      set_child(c.node, k, random_box(rng, rng.chance(0.5) ? centre : Vec3d{capsule.a.x, capsule.a.y, capsule.a.z}, rng.uniform(0.01, 5.0)),
                rng.chance(0.5) ? WideNode::kLeaf | std::uint32_t(k) : std::uint32_t(k + 1));
    }
    c.limit = rng.chance(0.3) ? 1.f : float(rng.uniform(0.0, 1.0));
    expect_same(c, "random");
    // The limit equal to a child's own entry time: that child is still entered (<=).
    alignas(32) float near[WideNode::kWidth];
    child_entry_scalar(c.planes, c.node, 1.f, near);
    c.limit = near[i % WideNode::kWidth];
    expect_same(c, "limit at an entry time");
    if (HasFatalFailure()) return;
  }
}

TEST(ChildEntry, EveryVariantIsItsTwinOnAdversarialNodes) {
  Random rng(7);
  const float big = std::numeric_limits<float>::max();
  for (int i = 0; i < 2000; ++i) {
    Capsule capsule;
    Vec3 motion;
    Case c{random_planes(rng, 10.0, capsule, motion), empty_node(), 1.f};
    const SweptBox s = make_swept_box(capsule, motion);
    // Boxes touching the swept box's start exactly, flat against it, the size of a float step,
    // behind it, far beyond the motion, and at the edge of the float range.
    const Vec3 lo{s.c[0] - s.h[0], s.c[1] - s.h[1], s.c[2] - s.h[2]}, hi{s.c[0] + s.h[0], s.c[1] + s.h[1], s.c[2] + s.h[2]};
    set_child(c.node, 0, {hi, hi + Vec3{1, 1, 1}}, 1);
    set_child(c.node, 1, {lo - Vec3{1, 1, 1}, lo}, 2);
    set_child(c.node, 2, {{hi.x, lo.y, lo.z}, {hi.x, hi.y, hi.z}}, WideNode::kLeaf | 3);
    set_child(c.node, 3, {{std::nextafter(hi.x, big), lo.y, lo.z}, {std::nextafter(std::nextafter(hi.x, big), big), hi.y, hi.z}}, 4);
    set_child(c.node, 4, {lo - motion * 3.f - Vec3{0.1f, 0.1f, 0.1f}, lo - motion * 3.f}, 5);
    set_child(c.node, 5, {hi + motion * 1.5f, hi + motion * 1.5f + Vec3{2, 2, 2}}, 6);
    set_child(c.node, 6, {{-big, -big, -big}, {big, big, big}}, 7);
    if (i % 2) c.node.child[7] = WideNode::kEmpty;  // zero box through the origin: never reported
    else set_child(c.node, 7, {{big, big, big}, {big, big, big}}, 8);
    c.limit = i % 3 == 0 ? 0.f : (i % 3 == 1 ? 1.f : float(rng.uniform()));
    expect_same(c, "adversarial");
    if (HasFatalFailure()) return;
  }
}

TEST(ChildEntry, TheTwinKeepsWhatTheBoxEntersAndDropsWhatItMisses) {
  Random rng(99);
  std::size_t kept = 0, dropped = 0;
  for (int i = 0; i < 20000; ++i) {
    Capsule capsule;
    Vec3 motion;
    const ChildEntryPlanes planes = random_planes(rng, 20.0, capsule, motion);
    const SweptBox s = make_swept_box(capsule, motion);
    WideNode n = empty_node();
    Aabb boxes[WideNode::kWidth];
    for (int k = 0; k < WideNode::kWidth; ++k) {
      // Along the motion (from a little behind to a little beyond), some off to the side.
      const double u = rng.uniform(-0.2, 1.2);
      const Vec3d along{capsule.a.x + u * motion.x, capsule.a.y + u * motion.y, capsule.a.z + u * motion.z};
      boxes[k] = random_box(rng, along + rng.in_cube(2.0), rng.uniform(0.01, 3.0));
      set_child(n, k, boxes[k], std::uint32_t(k + 1));
    }
    const float limit = rng.chance(0.5) ? 1.f : float(rng.uniform());
    alignas(32) float near[WideNode::kWidth];
    const unsigned bits = child_entry_scalar(planes, n, limit, near);
    for (int k = 0; k < WideNode::kWidth; ++k) {
      double t0, t1;
      exact_entry(planes, s, boxes[k], t0, t1);
      const double slack = 1e-4;  // far above the float test's rounding at these magnitudes
      if (t0 + slack < t1 && t0 + slack < limit) {
        ASSERT_TRUE(bits >> k & 1u) << "case " << i << ": a child the box enters at " << t0 << " was dropped";
        ASSERT_NEAR(near[k], t0, 1e-3) << "case " << i;
        ++kept;
      } else if (t0 > t1 + slack || t0 > limit + slack) {
        ASSERT_FALSE(bits >> k & 1u) << "case " << i << ": a child the box misses was kept";
        ++dropped;
      }
    }
  }
  EXPECT_GT(kept, 1000u);
  EXPECT_GT(dropped, 1000u);
}

TEST(ChildEntry, UnusedSlotsAreNeverReported) {
  // A node whose unused slots' zero boxes lie on the motion's path, and used ones that do not;
  // every mask of used slots, with links up to the largest a leaf or node can have.
  const Capsule capsule{{-1, 0, 0}, {-1, 1, 0}, 0.3f};
  const Vec3 motion{2, 0, 0};
  const ChildEntryPlanes planes = child_entry_planes(make_swept_box(capsule, motion));
  const std::uint32_t links[4] = {1, WideNode::kLeaf, WideNode::kLeaf | 0x7FFFFFFEu, 0x7FFFFFFEu};
  for (unsigned used = 0; used < (1u << WideNode::kWidth); ++used) {
    WideNode n = empty_node();
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (used >> k & 1u) set_child(n, k, {{5, 5, 5}, {6, 6, 6}}, links[(used + unsigned(k)) % 4]);
    }
    for (const ChildEntryVariant& v : child_entry_variants()) {
      alignas(32) float near[WideNode::kWidth];
      ASSERT_EQ(v.fn(planes, n, 1.f, near), 0u) << v.isa << ", used " << used;
    }
    // The same slots used, with boxes on the path: exactly they are reported.
    for (int k = 0; k < WideNode::kWidth; ++k) {
      if (used >> k & 1u) set_child(n, k, {{-0.1f, 0, -0.1f}, {0.1f, 0.5f, 0.1f}}, links[(used + unsigned(k)) % 4]);
    }
    for (const ChildEntryVariant& v : child_entry_variants()) {
      alignas(32) float near[WideNode::kWidth];
      ASSERT_EQ(v.fn(planes, n, 1.f, near), used) << v.isa << ", used " << used;
    }
  }
}

TEST(ChildEntry, TheWalkUsesAVX2WhereTheKernelsDo) {
  const std::string_view isa = best_block_sweep().isa;
  bool avx2 = false;
  for (const ChildEntryVariant& v : child_entry_variants()) avx2 = avx2 || std::string_view(v.isa) == "avx2";
  const ChildEntryFn expected = (isa == "avx2" || isa == "avx512f") && avx2 ? child_entry_avx2 : child_entry_sse2;
  EXPECT_EQ(best_child_entry(), expected) << "the kernels run " << isa;
}

}  // namespace
