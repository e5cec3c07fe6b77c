// Triangle adjacency: welding, seams between coplanar faces, flat vertices.
#include <gtest/gtest.h>

#include <cstring>

#include "broadphase/adjacency.h"
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;
using testmesh::Mesh;

int bits(unsigned v) { return __builtin_popcount(v); }

TEST(Adjacency, FloorEdgesInsideAreSeamsAndItsBorderIsNot) {
  const std::vector<Triangle> t = Mesh().floor(0, 0, 3, 3, 1).triangles();  // 3x3 cells, 18 triangles
  const auto links = link_triangles(t);
  int seams = 0, flat = 0;
  for (const TriangleLinks& l : links) {
    seams += bits(l.seam_edges);
    flat += bits(l.flat_vertices);
  }
  // Edges: 12 inner grid edges + 9 diagonals, each seen from both sides.
  EXPECT_EQ(seams, 2 * (12 + 9));
  // The 4 inner grid vertices are flat; each has 6 or 3 triangle corners around it.
  int corners = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      const Vec3& p = t[i].v[k];
      if (p.x > 0 && p.x < 3 && p.z > 0 && p.z < 3) ++corners;
    }
  }
  EXPECT_EQ(flat, corners);
}

TEST(Adjacency, AStepEdgeIsNotASeam) {
  const std::vector<Triangle> t = Mesh().box({0, 0, 0}, {1, 0.3f, 1}).triangles();
  const auto links = link_triangles(t);
  for (std::size_t i = 0; i < t.size(); ++i) {
    // Each box face is two triangles: only their shared diagonal is a seam.
    EXPECT_EQ(bits(links[i].seam_edges), 1) << i;
    EXPECT_EQ(links[i].flat_vertices, 0) << i;
    for (std::uint32_t across : links[i].across) EXPECT_NE(across, kNoTriangle);
  }
}

TEST(Adjacency, WeldsEqualPositionsOnly) {
  std::vector<Triangle> t{{{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}}, {{{1, 0, 0}, {1, 0, 1}, {0, 0, 1}}}};
  EXPECT_EQ(bits(link_triangles(t)[0].seam_edges), 1);
  t[1].v[0].x = 1.0001f;  // a crack: no longer one edge
  EXPECT_EQ(bits(link_triangles(t)[0].seam_edges), 0);
  t[1].v[0].x = 1;
  t[0].v[0] = {-0.f, 0, -0.f};  // -0 welds with +0 (nothing else changes)
  EXPECT_EQ(bits(link_triangles(t)[0].seam_edges), 1);
}

TEST(Adjacency, BentFacesAreSeamsOnlyBelowTheSeamAngle) {
  auto pair = [](float degrees) {
    const float y = std::tan(degrees * 3.14159265f / 180.f);
    return std::vector<Triangle>{{{{0, 0, 0}, {0, 0, 1}, {-1, 0, 0}}}, {{{0, 0, 0}, {1, y, 0}, {0, 0, 1}}}};
  };
  EXPECT_EQ(bits(link_triangles(pair(1)).at(0).seam_edges), 1);
  EXPECT_EQ(bits(link_triangles(pair(5)).at(0).seam_edges), 0);
}

// A world keeps its links packed in 12 bytes: every link, seam bit and flat bit comes back, for
// the largest index that packs and for none at all; and a floor's packed links are its links.
TEST(Adjacency, PackedLinksGiveBackEveryLinkAndBit) {
  const std::uint32_t indices[] = {0, 1, 7, 1u << 20, std::uint32_t(kMaxPackedTriangles - 1), kNoTriangle};
  for (std::uint32_t a : indices) {
    for (std::uint32_t b : indices) {
      for (unsigned seam = 0; seam < 8; ++seam) {
        for (unsigned flat = 0; flat < 8; ++flat) {
          TriangleLinks l;
          l.across[0] = a, l.across[1] = b, l.across[2] = a;
          l.seam_edges = std::uint8_t(seam);
          l.flat_vertices = std::uint8_t(flat);
          const TriangleLinks back = pack_links(l).unpack();
          ASSERT_EQ(std::memcmp(&back, &l, sizeof l), 0) << a << " " << b << " " << seam << " " << flat;
          for (int k = 0; k < 3; ++k) ASSERT_EQ(pack_links(l).across(k), l.across[k]);
        }
      }
    }
  }
  const std::vector<Triangle> t = Mesh().floor(0, 0, 3, 3, 1).box({0, 0, 0}, {1, 0.3f, 1}).triangles();
  const auto links = link_triangles(t);
  const auto packed = link_triangles_packed(t);
  ASSERT_EQ(packed.size(), links.size());
  int seams = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const TriangleLinks back = packed[i].unpack();
    ASSERT_EQ(std::memcmp(&back, &links[i], sizeof back), 0) << i;
    seams += bits(back.seam_edges);
  }
  EXPECT_GT(seams, 0);
}

}  // namespace
