// NearLeaves (broadphase/near_leaves.h): an agent's kept neighbourhood holds exactly the triangles
// whose boxes meet its region, as the world's blocks hold them, under boxes that contain them;
// it refuses a region with too many; and a swept box it covers meets no triangle it does not
// hold, at the origin and 20 km out, at region edges one float step from a triangle.
#include "broadphase/near_leaves.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <vector>

#include "core/random.h"
#include "tools/arena.h"

namespace {

using namespace capsweep;

// The triangles whose box meets the region, by brute force.
std::set<std::uint32_t> meeting(const std::vector<Triangle>& tris, const Aabb& region) {
  std::set<std::uint32_t> out;
  for (std::uint32_t i = 0; i < tris.size(); ++i) {
    if (bounds(tris[i]).overlaps(region)) out.insert(i);
  }
  return out;
}

// What the neighbourhood holds, checked lane by lane against the soup and its root's boxes.
std::set<std::uint32_t> held(const NearLeaves& near, const std::vector<Triangle>& tris,
                             std::span<const std::uint32_t> layers) {
  std::set<std::uint32_t> out;
  const BvhView v = near.view();
  EXPECT_EQ(v.nodes.size(), 1u);
  const WideNode& root = v.nodes[0];
  for (int k = 0; k < WideNode::kWidth; ++k) {
    if (!root.used(k)) continue;
    EXPECT_TRUE(root.child[k] & WideNode::kLeaf);
    const TriangleBlock& b = v.blocks[root.child[k] & ~WideNode::kLeaf];
    std::uint32_t below = 0;
    for (int lane = 0; lane < kBlockLanes && b.valid(lane); ++lane) {
      const std::uint32_t i = b.triangle[lane];
      const Triangle t = b.get(lane);
      EXPECT_EQ(std::memcmp(&t, &tris[i], sizeof t), 0) << "triangle " << i << " as the world holds it";
      const Aabb box = bounds(t);
      EXPECT_TRUE(root.min_x[k] <= box.min.x && root.min_y[k] <= box.min.y && root.min_z[k] <= box.min.z &&
                  box.max.x <= root.max_x[k] && box.max.y <= root.max_y[k] && box.max.z <= root.max_z[k])
          << "the root's box " << k << " contains triangle " << i;
      EXPECT_TRUE(out.insert(i).second) << "triangle " << i << " held once";
      if (!layers.empty()) below |= layers[i];
    }
    if (!layers.empty()) {
      EXPECT_EQ(v.child_layers[std::size_t(k)], below);
    }
  }
  EXPECT_EQ(int(out.size()), near.triangles());
  return out;
}

// Random regions of person size over a soup: what is held is what meets, or, past
// kMaxTriangles, nothing.
void check_regions(const std::vector<Triangle>& tris, std::span<const std::uint32_t> layers, std::uint64_t seed) {
  const Bvh bvh = build_bvh(tris, layers);
  Aabb all;
  for (const Triangle& t : tris) all.grow(bounds(t));
  Random rng(seed);
  int held_some = 0;
  for (int n = 0; n < 400; ++n) {
    const Vec3 c{float(rng.uniform(all.min.x, all.max.x)), float(rng.uniform(all.min.y, all.max.y)),
                 float(rng.uniform(all.min.z, all.max.z))};
    const Vec3 half{float(rng.uniform(0.2, 1.5)), float(rng.uniform(0.5, 2.0)), float(rng.uniform(0.2, 1.5))};
    const Aabb region{c - half, c + half};
    NearLeaves near;
    const std::set<std::uint32_t> want = meeting(tris, region);
    if (want.size() > std::size_t(NearLeaves::kMaxTriangles)) {
      EXPECT_FALSE(near.gather(bvh.view(), layers, kDefaultLayers, region));
      EXPECT_TRUE(near.region().empty());
      EXPECT_FALSE(near.covers(make_swept_box({c, c, 0.1f}, {})));
      continue;
    }
    ASSERT_TRUE(near.gather(bvh.view(), layers, kDefaultLayers, region));
    EXPECT_EQ(held(near, tris, layers), want) << "region " << n;
    held_some += !want.empty();
  }
  EXPECT_GT(held_some, 100);
  // The whole soup is more than a neighbourhood holds.
  NearLeaves near;
  EXPECT_FALSE(near.gather(bvh.view(), layers, kDefaultLayers, all));
  EXPECT_EQ(near.triangles(), 0);
  EXPECT_TRUE(near.region().empty());
}

TEST(NearLeaves, HoldsExactlyTheTrianglesMeetingItsRegion) {
  const std::vector<Triangle> arena = make_arena();
  check_regions(arena, {}, 1);
  // Layers: the root's child layers are the union of its lanes'.
  std::vector<std::uint32_t> layers(arena.size());
  for (std::size_t i = 0; i < layers.size(); ++i) layers[i] = 1u << (i % 5);
  check_regions(arena, layers, 2);
}

TEST(NearLeaves, HoldsExactlyTheTrianglesMeetingItsRegionTwentyKilometresOut) {
  std::vector<Triangle> arena = make_arena();
  for (Triangle& t : arena) {
    for (Vec3& v : t.v) v = v + Vec3{-20000.f, 30.f, 20000.f};
  }
  check_regions(arena, {}, 3);
}

// A region whose face lies on a triangle's box holds it; one float step short of it does not.
// Then a swept box it covers: at the origin and 20 km out.
TEST(NearLeaves, RegionEdgesOneFloatStepFromATriangle) {
  for (const float offset : {0.f, 20000.f}) {
    const Vec3 o{offset, 0.f, offset};
    const std::vector<Triangle> tris{{{o + Vec3{0, 0, 0}, o + Vec3{1, 0, 0}, o + Vec3{0, 0, 1}}},
                                     {{o + Vec3{3, 0, 0}, o + Vec3{4, 0, 0}, o + Vec3{3, 0, 1}}}};
    const Bvh bvh = build_bvh(tris);
    const float edge = o.x + 3.f;  // the second triangle's least x
    NearLeaves near;
    ASSERT_TRUE(near.gather(bvh.view(), {}, kDefaultLayers, {o + Vec3{-1, -1, -1}, Vec3{edge, 1, o.z + 2}}));
    EXPECT_EQ(near.triangles(), 2) << "touching at x = " << edge;
    ASSERT_TRUE(near.gather(bvh.view(), {}, kDefaultLayers,
                            {o + Vec3{-1, -1, -1}, Vec3{std::nextafter(edge, -INFINITY), 1, o.z + 2}}));
    EXPECT_EQ(near.triangles(), 1) << "one float step short of x = " << edge;
    // A capsule well inside is covered; one whose box reaches the region's face is not (the
    // second triangle lies just beyond it).
    const Vec3 c = o + Vec3{1.f, 0.3f, 0.5f};
    EXPECT_TRUE(near.covers(make_swept_box({c, c, 0.2f}, {0.5f, 0, 0})));
    EXPECT_FALSE(near.covers(make_swept_box({c, c, 0.2f}, {1.8f, 0, 0})));
  }
}

// Swept boxes at random: one the neighbourhood covers meets no triangle it does not hold (every
// triangle whose box meets the swept box's bounds is held).
TEST(NearLeaves, ASweptBoxItCoversMeetsOnlyTrianglesItHolds) {
  const std::vector<Triangle> arena = make_arena();
  const Bvh bvh = build_bvh(arena);
  Aabb all;
  for (const Triangle& t : arena) all.grow(bounds(t));
  Random rng(7);
  int covered = 0, not_covered = 0;
  for (int n = 0; n < 300; ++n) {
    const Vec3 c{float(rng.uniform(all.min.x, all.max.x)), float(rng.uniform(all.min.y, all.max.y)),
                 float(rng.uniform(all.min.z, all.max.z))};
    NearLeaves near;
    if (!near.gather(bvh.view(), {}, kDefaultLayers, {c - Vec3{1, 1.5f, 1}, c + Vec3{1, 1.5f, 1}})) continue;
    const std::set<std::uint32_t> have = held(near, arena, {});
    for (int k = 0; k < 20; ++k) {
      const Vec3 a = c + Vec3{float(rng.uniform(-0.8, 0.8)), float(rng.uniform(-1.2, 0.2)), float(rng.uniform(-0.8, 0.8))};
      const Capsule cap{a, a + Vec3{0, float(rng.uniform(0, 1.1)), 0}, float(rng.uniform(0.05, 0.4))};
      const Vec3 d{float(rng.uniform(-0.5, 0.5)), float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.5, 0.5))};
      const SweptBox s = make_swept_box(cap, d);
      if (!near.covers(s)) {
        ++not_covered;
        continue;
      }
      ++covered;
      Aabb reach;
      for (int axis = 0; axis < 3; ++axis) {
        const float end = s.c[axis] + s.d[axis];
        (axis == 0 ? reach.min.x : axis == 1 ? reach.min.y : reach.min.z) = std::min(s.c[axis], end) - s.h[axis];
        (axis == 0 ? reach.max.x : axis == 1 ? reach.max.y : reach.max.z) = std::max(s.c[axis], end) + s.h[axis];
      }
      for (const std::uint32_t i : meeting(arena, reach)) EXPECT_TRUE(have.count(i)) << "triangle " << i;
    }
  }
  EXPECT_GT(covered, 1000);
  EXPECT_GT(not_covered, 100);
}

}  // namespace
