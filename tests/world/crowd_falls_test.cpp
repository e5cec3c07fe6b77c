// Falling off the world is explained (issue 35): a crowd on a floor with a hole in it falls
// through the hole, never through a crack; the classifier calls a fall whose path crosses a
// triangle a crack, and one beside the geometry, or leaving a face it rests on, a hole.
#include <gtest/gtest.h>

#include <capsweep/world.h>
#include "tools/crowd.h"
#include "tests/support/people.h"
#include "tests/support/test_meshes.h"

namespace {

using namespace capsweep;
using testmesh::Mesh;

using people::kAxis;
using people::kR;

// A 20 m floor at y = 0 with a 4 m square hole in its middle.
std::vector<Triangle> floor_with_hole() {
  return Mesh()
      .floor(-10, -10, 10, -2, 1)
      .floor(-10, 2, 10, 10, 1)
      .floor(-10, -2, -2, 2, 1)
      .floor(2, -2, 10, 2, 1)
      .triangles();
}

// A person's body with its bottom sphere's centre at (x, y, z), moving by `motion`.
MoveSegments::Segment capsule_at(float x, float y, float z, const Vec3& motion) {
  return {{{x, y, z}, {x, y + kAxis, z}, kR}, motion, {}};
}

MoveSegments::Segment ellipsoid_at(float x, float y, float z, const Vec3& motion) {
  return {{}, motion, {{x, y, z}, {kR, 0.9f, kR}}};
}

constexpr float kSkin = MoveSettings{}.skin;

FallCheck classify(const World& w, std::vector<MoveSegments::Segment> fall, AgentShape shape = AgentShape::capsule,
                   std::uint32_t layers = kAllLayers) {
  return classify_fall(w, fall, shape, layers, kSkin);
}

TEST(CrowdFalls, ACrowdOnAFloorWithAHoleFallsThroughTheHoleOnly) {
  const World w(floor_with_hole());
  for (const std::vector<AgentShape>& shapes :
       {std::vector{AgentShape::capsule}, std::vector{AgentShape::capsule, AgentShape::ellipsoid}}) {
    SCOPED_TRACE(shapes.size() == 1 ? "capsules" : "capsules and ellipsoids");
    CrowdSettings s;
    s.agents = 60;
    s.seed = 3;
    s.batch.threads = 2;
    s.agent_shapes = shapes;
    Crowd crowd(w, s);
    for (int t = 0; t < 900; ++t) crowd.tick();
    const CrowdTotals& t = crowd.totals();
    EXPECT_GT(t.respawned, 0u) << "no agent walked into the hole";
    EXPECT_EQ(t.fell_through_holes, t.respawned);
    EXPECT_EQ(t.fell_through_cracks, 0u);
    EXPECT_TRUE(crowd.cracks().empty());
    EXPECT_EQ(t.wedged, 0u);  // nothing steep to be held by
  }
}

TEST(CrowdFalls, APathThroughATriangleIsACrackOneBesideItAHole) {
  const World w(Mesh().floor(-5, -5, 5, 5, 1).triangles());
  const Vec3 down{0, -5, 0};
  // From above the floor to below it: through a triangle.
  FallCheck c = classify(w, {capsule_at(0, 1.5f, 0, down)});
  EXPECT_EQ(c.cause, FallCause::crack);
  EXPECT_EQ(c.segment, 0u);
  EXPECT_GT(c.hit.t, 0.f);
  EXPECT_LT(c.hit.t, 1.f);
  EXPECT_NE(c.hit.triangle, kNoTriangle);
  // Beside the floor: nothing below it.
  EXPECT_EQ(classify(w, {capsule_at(8, 1.5f, 0, down)}).cause, FallCause::hole);
  EXPECT_EQ(classify(w, {}).cause, FallCause::hole);
  // The first segment that crossed is named.
  c = classify(w, {capsule_at(8, 1.5f, 0, down), capsule_at(0, 1.5f, 0, {0, -1, 0}), capsule_at(0, 0.5f, 0, down)});
  EXPECT_EQ(c.cause, FallCause::crack);
  EXPECT_EQ(c.segment, 2u);
  // A segment that ends a skin short of the floor, as the solver's do, crossed nothing.
  EXPECT_EQ(classify(w, {capsule_at(0, 1.5f, 0, {0, -(1.5f - kR - kSkin), 0})}).cause, FallCause::hole);
  // An ellipsoid's body the same.
  EXPECT_EQ(classify(w, {ellipsoid_at(0, 1.5f, 0, down)}, AgentShape::ellipsoid).cause, FallCause::crack);
  EXPECT_EQ(classify(w, {ellipsoid_at(8, 1.5f, 0, down)}, AgentShape::ellipsoid).cause, FallCause::hole);
}

TEST(CrowdFalls, AStartInContactIsACrackOnlyWhenItGoesDeeperThanASkin) {
  Mesh m;
  m.floor(-5, -5, 5, 5, 1).wall(1.5f, -2, 1.5f, 2, 3);
  const World w(m.triangles());
  // Resting on the floor (touching it, or within its skin) and leaving it, or sliding along it
  // over the seams of its cells: no crack. Driven down through it: a crack.
  for (const float sink : {0.f, 0.5f * kSkin}) {
    SCOPED_TRACE(sink);
    EXPECT_EQ(classify(w, {capsule_at(0, kR - sink, 0, {0, 1, 0})}).cause, FallCause::hole);
    EXPECT_EQ(classify(w, {capsule_at(-0.5f, kR - sink, 0, {-3, 0, 0.5f})}).cause, FallCause::hole);
    EXPECT_EQ(classify(w, {capsule_at(0, kR - sink, 0, {0, -3, 0})}).cause, FallCause::crack);
    EXPECT_EQ(classify(w, {ellipsoid_at(-0.5f, 0.9f - sink, 0, {-3, 0, 0.5f})}, AgentShape::ellipsoid).cause,
              FallCause::hole);
    EXPECT_EQ(classify(w, {ellipsoid_at(0, 0.9f - sink, 0, {0, -3, 0})}, AgentShape::ellipsoid).cause,
              FallCause::crack);
  }
  // Touching the floor at the start hides nothing it meets later: the wall at x = 1.5.
  const FallCheck c = classify(w, {capsule_at(0, kR, 0, {3, 0, 0})});
  EXPECT_EQ(c.cause, FallCause::crack);
  EXPECT_GT(c.hit.t, 0.f);
  // Deeper than a skin in the floor: leaving it is no crack, going on down is.
  EXPECT_EQ(classify(w, {capsule_at(0, kR - 3 * kSkin, 0, {0, 1, 0})}).cause, FallCause::hole);
  EXPECT_EQ(classify(w, {capsule_at(0, kR - 3 * kSkin, 0, {0, -0.1f, 0})}).cause, FallCause::crack);
}

TEST(CrowdFalls, OnlyTheLayersTheAgentSeesCanBeCrossed) {
  const std::vector<Triangle> tris = Mesh().floor(-5, -5, 5, 5, 1).triangles();
  const World w(tris, std::vector<std::uint32_t>(tris.size(), 2u));
  EXPECT_EQ(classify(w, {capsule_at(0, 1.5f, 0, {0, -5, 0})}, AgentShape::capsule, 1u).cause, FallCause::hole);
  EXPECT_EQ(classify(w, {capsule_at(0, 1.5f, 0, {0, -5, 0})}, AgentShape::capsule, 2u).cause, FallCause::crack);
}

}  // namespace
