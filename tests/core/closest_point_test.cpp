// Closest points against the oracle's independent distances, on random and degenerate input.
#include "core/closest_point.h"

#include <gtest/gtest.h>

#include "core/random.h"
#include "tests/support/oracle.h"

namespace {

using namespace capsweep;

Vec3d random_point(Random& rng, double size) { return rng.in_cube(size); }

TEST(ClosestPoint, SegmentTriangleDistanceMatchesOracle) {
  Random rng(7);
  for (int i = 0; i < 200000; ++i) {
    const double size = rng.log_uniform(0.01, 100);
    Vec3d v[3] = {random_point(rng, size), random_point(rng, size), random_point(rng, size)};
    if (i % 10 == 0) v[2] = v[0] + (v[1] - v[0]) * rng.uniform(-1, 2);  // collinear
    if (i % 23 == 0) v[1] = v[0];                                        // coinciding
    const Vec3d p0 = random_point(rng, size), p1 = i % 7 == 0 ? p0 : random_point(rng, size);
    const TriangleShape shape = classify_triangle(v);
    const ClosestSegmentTriangle c = closest_segment_triangle(p0, p1, v, shape);
    const oracle::Gap g = oracle::segment_triangle(p0, p1, v);
    ASSERT_NEAR(c.distance, g.distance, 1e-9 * size) << "case " << i;
    ASSERT_NEAR(length(c.on_segment - c.on_triangle), c.distance, 1e-9 * size);
    // The reported points lie on the segment and on the triangle.
    ASSERT_LT(oracle::point_segment(c.on_segment, p0, p1).distance, 1e-9 * size);
    ASSERT_LT(oracle::point_triangle(c.on_triangle, v).distance, 1e-9 * size);
  }
}

TEST(ClosestPoint, SegmentPiercingTriangleHasDistanceZeroAtCrossing) {
  const Vec3d v[3] = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};
  const ClosestSegmentTriangle c = closest_segment_triangle({0.2, -1, 0.2}, {0.2, 3, 0.2}, v, classify_triangle(v));
  EXPECT_EQ(c.distance, 0.0);
  EXPECT_NEAR(c.on_triangle.y, 0.0, 1e-15);
  EXPECT_EQ(c.feature, Feature::face);
}

TEST(ClosestPoint, FeatureOfClosestPointOnTriangle) {
  const Vec3d v[3] = {{0, 0, 0}, {0, 0, 1}, {1, 0, 0}};
  const TriangleShape shape = classify_triangle(v);
  EXPECT_EQ(closest_point_triangle({0.2, 1, 0.2}, v, shape).feature, Feature::face);
  EXPECT_EQ(closest_point_triangle({-1, 1, 0.5}, v, shape).feature, Feature::edge);
  EXPECT_EQ(closest_point_triangle({-1, 1, -1}, v, shape).feature, Feature::vertex);
}

TEST(ClosestPoint, DegenerateTrianglesCollapseToSegmentOrPoint) {
  const Vec3d line[3] = {{0, 0, 0}, {2, 0, 0}, {1, 0, 0}};
  TriangleShape s = classify_triangle(line);
  ASSERT_EQ(s.kind, TriangleShape::segment);
  EXPECT_DOUBLE_EQ(length(line[s.seg_to] - line[s.seg_from]), 2.0);  // the longest edge
  const Vec3d dot3[3] = {{1, 2, 3}, {1, 2, 3}, {1, 2, 3}};
  EXPECT_EQ(classify_triangle(dot3).kind, TriangleShape::point);
  const ClosestSegmentTriangle c = closest_segment_triangle({0, 0, 0}, {0, 4, 0}, dot3, classify_triangle(dot3));
  EXPECT_NEAR(c.distance, std::sqrt(1.0 + 9.0), 1e-12);
  EXPECT_EQ(c.feature, Feature::vertex);
}

TEST(ClosestPoint, ParallelSegmentsGiveAClosestPairAtTheRightDistance) {
  const ClosestSegmentSegment c = closest_segment_segment({0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {3, 1, 0});
  EXPECT_NEAR(length(c.on_first - c.on_second), 1.0, 1e-15);
}

}  // namespace
