// The mesh buffer holds the world's own floats: every triangle, its layers, a heightfield's grid.
#include "viewer/mesh_buffer.h"

#include <gtest/gtest.h>

#include <cstring>

namespace capsweep::viewer {
namespace {

template <class T>
T at(const std::string& b, std::size_t offset) {
  T v;
  std::memcpy(&v, b.data() + offset, sizeof v);
  return v;
}

TEST(MeshBuffer, HoldsTrianglesAndLayersThenTheGrid) {
  Heightfield field;
  field.columns = 4;
  field.rows = 3;
  field.cell_x = 2.f;
  field.cell_z = 0.5f;
  field.origin = {-3, 1, 7};
  for (int i = 0; i < 12; ++i) field.heights.push_back(0.25f * float(i * i % 7));
  field.holes = {0, 0, 1, 0, 0, 0};
  const Heightfield copy = field;
  // Two triangles sharing an edge, and a third apart.
  const std::vector<Triangle> mesh{{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}, {{{1, 0, 0}, {0, 1, 0}, {1, 1, 0}}},
                                   {{{5, 5, 5}, {6, 5, 5}, {5, 6, 5}}}};
  const World world(std::move(field), mesh, {1u, 1u, 6u});
  const std::string b = mesh_buffer(world);
  ASSERT_EQ(at<std::uint32_t>(b, 0), kMeshMagic);
  EXPECT_EQ(at<std::uint32_t>(b, 4), kMeshVersion);
  EXPECT_EQ(at<std::uint32_t>(b, 8), 3u);   // triangles drawn as triangles
  EXPECT_EQ(at<std::uint32_t>(b, 12), 3u);  // the terrain's first index
  EXPECT_EQ(at<std::uint32_t>(b, 16), 12u); // its triangles
  EXPECT_EQ(at<std::uint32_t>(b, 20), 4u);
  EXPECT_EQ(at<std::uint32_t>(b, 24), 3u);
  const std::uint32_t vertices = at<std::uint32_t>(b, 28);
  ASSERT_EQ(vertices, 7u);  // the shared edge's two corners once
  const std::size_t indices = 32 + 12 * vertices, layers = indices + 12 * 3;
  // Every triangle's corners, read through its indices, are the world's floats.
  for (std::uint32_t k = 0; k < 3; ++k) {
    const Triangle t = world.triangle(k);
    for (int j = 0; j < 3; ++j) {
      const std::uint32_t v = at<std::uint32_t>(b, indices + 4 * (3 * k + j));
      ASSERT_LT(v, vertices);
      EXPECT_EQ(at<float>(b, 32 + 12 * v), t.v[j].x);
      EXPECT_EQ(at<float>(b, 32 + 12 * v + 4), t.v[j].y);
      EXPECT_EQ(at<float>(b, 32 + 12 * v + 8), t.v[j].z);
    }
  }
  EXPECT_EQ(at<std::uint32_t>(b, indices + 4 * 1), at<std::uint32_t>(b, indices + 4 * 3));  // (1, 0, 0) shared
  EXPECT_EQ(at<std::uint32_t>(b, layers + 8), 6u);
  std::size_t grid = layers + 12;
  EXPECT_EQ(at<float>(b, grid), -3.f);
  EXPECT_EQ(at<float>(b, grid + 4), 7.f);
  EXPECT_EQ(at<float>(b, grid + 8), 2.f);
  EXPECT_EQ(at<float>(b, grid + 12), 0.5f);
  for (std::uint32_t r = 0; r < 3; ++r) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      EXPECT_EQ(at<float>(b, grid + 16 + 4 * (r * 4 + c)), heightfield_vertex(copy, r, c).y) << r << "," << c;
    }
  }
  const std::size_t holes = grid + 16 + 4 * 12;
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(b[holes + k] != 0, copy.holes[k] != 0) << k;
  EXPECT_EQ(b.size(), holes + 8);
}

}  // namespace
}  // namespace capsweep::viewer
