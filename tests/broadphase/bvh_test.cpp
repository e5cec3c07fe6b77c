// The BVH: every triangle sits in exactly one used lane, every box holds what lies below it,
// depth stays bounded on hostile input, and the build does not depend on the thread count.
#include "broadphase/bvh.h"

#include <gtest/gtest.h>
#include "parallel/executor.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include "tools/arena.h"
#if CAPSWEEP_TESTS_READ_FILES
#include <capsweep/files.h>
#endif
#include "core/random.h"

namespace {

using namespace capsweep;

bool contains(const Aabb& outer, const Aabb& inner) {
  return outer.min.x <= inner.min.x && outer.min.y <= inner.min.y && outer.min.z <= inner.min.z &&
         outer.max.x >= inner.max.x && outer.max.y >= inner.max.y && outer.max.z >= inner.max.z;
}

// Walks the tree: every child box contains its subtree, every triangle is seen once.
void check_node(const Bvh& bvh, std::uint32_t index, const std::vector<Triangle>& soup, std::vector<int>& seen,
                std::size_t& nodes) {
  ASSERT_LT(index, bvh.nodes.size());
  ++nodes;
  const WideNode& n = bvh.nodes[index];
  int used = 0;
  for (int k = 0; k < WideNode::kWidth; ++k) {
    if (n.child[k] == WideNode::kEmpty) continue;
    ++used;
    const Aabb box{{n.min_x[k], n.min_y[k], n.min_z[k]}, {n.max_x[k], n.max_y[k], n.max_z[k]}};
    if (n.child[k] & WideNode::kLeaf) {
      const std::uint32_t b = n.child[k] & ~WideNode::kLeaf;
      ASSERT_LT(b, bvh.blocks.size());
      const TriangleBlock& block = bvh.blocks[b];
      ASSERT_TRUE(block.valid(0)) << "empty leaf";
      bool past_used = false;
      for (int lane = 0; lane < kBlockLanes; ++lane) {
        if (!block.valid(lane)) {
          past_used = true;
          continue;
        }
        ASSERT_FALSE(past_used) << "used lanes must come first";
        const std::uint32_t t = block.triangle[lane];
        ASSERT_LT(t, soup.size());
        ++seen[t];
        ASSERT_TRUE(contains(box, bounds(soup[t]))) << "triangle " << t << " outside its leaf box";
        const Triangle back = block.get(lane);
        for (int v = 0; v < 3; ++v) ASSERT_EQ(back.v[v], soup[t].v[v]) << "lane does not hold triangle " << t;
      }
    } else {
      ASSERT_GT(n.child[k], index) << "children are laid out after their parent";
      const WideNode& c = bvh.nodes[n.child[k]];
      for (int j = 0; j < WideNode::kWidth; ++j) {
        if (c.child[j] == WideNode::kEmpty) continue;
        const Aabb inner{{c.min_x[j], c.min_y[j], c.min_z[j]}, {c.max_x[j], c.max_y[j], c.max_z[j]}};
        ASSERT_TRUE(contains(box, inner)) << "node " << n.child[k] << " child " << j << " outside its parent box";
      }
      check_node(bvh, n.child[k], soup, seen, nodes);
    }
  }
  ASSERT_GE(used, 1);
}

void check_bvh(const std::vector<Triangle>& soup) {
  const Bvh bvh = build_bvh(soup);
  std::vector<int> seen(soup.size(), 0);
  std::size_t nodes = 0;
  check_node(bvh, 0, soup, seen, nodes);
  EXPECT_EQ(nodes, bvh.nodes.size()) << "unreachable nodes";
  for (std::size_t i = 0; i < soup.size(); ++i) ASSERT_EQ(seen[i], 1) << "triangle " << i;
  EXPECT_LE(bvh.depth, 64) << "far below kMaxBvhDepth, the deepest tree the traversal stack holds";
}

std::vector<Triangle> random_soup(std::size_t n, std::uint64_t seed, double half) {
  Random rng(seed);
  std::vector<Triangle> soup;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3d c = rng.in_cube(half);
    const double size = rng.log_uniform(1e-3, half / 10);
    soup.push_back({{to_float(c + rng.in_cube(size)), to_float(c + rng.in_cube(size)), to_float(c + rng.in_cube(size))}});
  }
  return soup;
}

TEST(Bvh, HoldsEveryTriangleOnceOnTheArena) { check_bvh(make_arena()); }

#if CAPSWEEP_TESTS_READ_FILES  // a scene file needs io
TEST(Bvh, HoldsEveryTriangleOnceOnARealScene) {
  check_bvh(load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj"));
}
#endif

TEST(Bvh, HoldsEveryTriangleOnceOnRandomSoupsOfAnySize) {
  for (std::size_t n : {1, 2, 7, 8, 9, 31, 32, 33, 100, 20000}) {
    SCOPED_TRACE(n);
    check_bvh(random_soup(n, n, 50));
  }
}

TEST(Bvh, ARefitTreeHoldsTheMovedTrianglesInBoxesMadeFromThem) {
  // Refitting an unmoved soup gives the built tree back, byte for byte; refitting a moved one
  // (the top level of a world's instances, World::posed) keeps the shape and bounds every
  // triangle, every box exactly the union of what it holds (check_node), and costs more.
  for (std::size_t n : {1, 9, 300, 5000}) {
    SCOPED_TRACE(n);
    const std::vector<Triangle> soup = random_soup(n, n + 5, 50);
    const Bvh built = build_bvh(soup);
    Bvh same = built;
    EXPECT_DOUBLE_EQ(refit_bvh(same, soup), box_overhead(built.view()));
    ASSERT_EQ(same.nodes.size(), built.nodes.size());
    EXPECT_EQ(std::memcmp(same.nodes.data(), built.nodes.data(), built.nodes.size() * sizeof(WideNode)), 0);
    EXPECT_EQ(std::memcmp(same.blocks.data(), built.blocks.data(), built.blocks.size() * sizeof(TriangleBlock)), 0);
    std::vector<Triangle> moved = soup;
    Random rng(n);
    for (Triangle& t : moved) {
      const Vec3 by = to_float(rng.in_cube(20));
      for (Vec3& v : t.v) v = v + by;
    }
    Bvh refit = built;
    const double overhead = refit_bvh(refit, moved);
    std::vector<int> seen(moved.size(), 0);
    std::size_t nodes = 0;
    check_node(refit, 0, moved, seen, nodes);
    for (std::size_t i = 0; i < moved.size(); ++i) ASSERT_EQ(seen[i], 1) << "triangle " << i;
    for (std::size_t i = 0; i < refit.nodes.size(); ++i) {
      for (int k = 0; k < WideNode::kWidth; ++k) ASSERT_EQ(refit.nodes[i].child[k], built.nodes[i].child[k]) << "the shape is kept";
    }
    if (n > 8) {
      EXPECT_GT(overhead, box_overhead(built.view())) << "scattered neighbours make larger boxes";
    }
  }
}

TEST(Bvh, StaysShallowWhenAllCentroidsCoincide) {
  // 20,000 copies of one triangle: no split separates them, the median fallback must.
  const std::vector<Triangle> copies(20000, Triangle{{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}});
  check_bvh(copies);
}

TEST(Bvh, StaysShallowOnAHugeRangeOfScales) {
  // Clustered triangles inside one enormous spread: SAH splits stay lopsided for many levels.
  std::vector<Triangle> soup = random_soup(5000, 3, 1e-3);
  for (int k = 0; k < 60; ++k) {
    const float s = std::ldexp(1.f, k - 10);
    soup.push_back({{{s, 0, 0}, {s, 1e-3f, 0}, {s, 0, 1e-3f}}});
  }
  check_bvh(soup);
}

TEST(Bvh, BuildDoesNotDependOnTheThreadCount) {
  const std::vector<Triangle> soup = random_soup(60000, 11, 500);
  auto build_on = [&](int threads) {
    Bvh bvh;
    parallel::in_arena(threads, [&] { bvh = build_bvh(soup); });
    return bvh;
  };
  const Bvh one = build_on(1), two = build_on(2);
  ASSERT_EQ(one.nodes.size(), two.nodes.size());
  ASSERT_EQ(one.blocks.size(), two.blocks.size());
  // Compare the data, not the padding.
  constexpr std::size_t node_bytes = offsetof(WideNode, child) + sizeof(WideNode::child);
  constexpr std::size_t block_bytes = offsetof(TriangleBlock, triangle) + sizeof(TriangleBlock::triangle);
  for (std::size_t i = 0; i < one.nodes.size(); ++i) {
    ASSERT_EQ(std::memcmp(&one.nodes[i], &two.nodes[i], node_bytes), 0) << "node " << i;
  }
  for (std::size_t i = 0; i < one.blocks.size(); ++i) {
    ASSERT_EQ(std::memcmp(&one.blocks[i], &two.blocks[i], block_bytes), 0) << "block " << i;
  }
}

}  // namespace
