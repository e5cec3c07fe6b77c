// Triangle adjacency: welding, seams between coplanar faces, flat vertices.
#include <gtest/gtest.h>

#include <bit>
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

// A world keeps its links packed in as few bits as its indices need: every link, seam bit and
// flat bit comes back, at the widest (30 index bits, the largest index that packs) and at a
// narrow width (its own largest index and none side by side); and a floor's packed links are
// its links, in bits_for(triangles) bits an index.
TEST(Adjacency, PackedLinksGiveBackEveryLinkAndBit) {
  for (std::uint32_t index_bits : {30u, 5u}) {
    const std::uint32_t largest = (1u << index_bits) - 2;  // all ones is none
    const std::uint32_t indices[] = {0, 1, 7, largest / 2, largest, kNoTriangle};
    std::vector<TriangleLinks> all;
    for (std::uint32_t a : indices) {
      for (std::uint32_t b : indices) {
        for (unsigned seam = 0; seam < 8; ++seam) {
          for (unsigned flat = 0; flat < 8; ++flat) {
            TriangleLinks l;
            l.across[0] = a, l.across[1] = b, l.across[2] = a;
            l.seam_edges = std::uint8_t(seam);
            l.flat_vertices = std::uint8_t(flat);
            all.push_back(l);
          }
        }
      }
    }
    PackedLinks packed(all.size(), index_bits);
    const LinksView borders = packed.view();
    const TriangleLinks border{};
    for (std::size_t i = 0; i < all.size(); ++i) {
      const TriangleLinks none = borders.unpack(i);
      ASSERT_EQ(std::memcmp(&none, &border, sizeof none), 0) << "unset triangle " << i;
    }
    // Set in an order that is not the values' own, so a write that spills into a neighbour shows.
    for (std::size_t i = 0; i < all.size(); i += 2) packed.set(i, all[i]);
    for (std::size_t i = 1; i < all.size(); i += 2) packed.set(i, all[i]);
    const LinksView view = packed.view();
    ASSERT_EQ(view.size(), all.size());
    ASSERT_EQ(view.index_bits(), index_bits);
    for (std::size_t i = 0; i < all.size(); ++i) {
      const TriangleLinks back = view.unpack(i);
      ASSERT_EQ(std::memcmp(&back, &all[i], sizeof back), 0) << index_bits << " bits, triangle " << i;
      for (int k = 0; k < 3; ++k) ASSERT_EQ(view.across(i, k), all[i].across[k]);
    }
  }
  const std::vector<Triangle> t = Mesh().floor(0, 0, 3, 3, 1).box({0, 0, 0}, {1, 0.3f, 1}).triangles();
  const auto links = link_triangles(t);
  const PackedLinks owner = link_triangles_packed(t);
  const LinksView packed = owner.view();
  ASSERT_EQ(packed.size(), links.size());
  EXPECT_EQ(packed.index_bits(), std::uint32_t(std::bit_width(t.size())));
  EXPECT_EQ(packed.size_bytes(), packed_words(3 * t.size(), packed.index_bits() + 2) * sizeof(std::uint64_t));
  int seams = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const TriangleLinks back = packed.unpack(i);
    ASSERT_EQ(std::memcmp(&back, &links[i], sizeof back), 0) << i;
    seams += bits(back.seam_edges);
  }
  EXPECT_GT(seams, 0);
}

}  // namespace
