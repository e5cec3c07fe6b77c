// An agent's body, as the movement solver and the world see it: a capsule or an axis-aligned
// ellipsoid (AgentShape), and what the solver needs of either. Internal to capsweep.
//
// The skin of an ellipsoid. Growing every radius by the skin s does NOT hold every point within s
// of the ellipsoid: the support function of the grown ellipsoid, |(r + s) u|, is at most
// |r u| + s |u| (the triangle inequality), equal only along the axes, so a flat ellipsoid's
// s-neighbourhood sticks out of it between the axes (tests/core/body_test.cpp finds such points).
// What does hold it is the ellipsoid scaled by k = 1 + s / r_min (Fauerby's eSpace skin, s / r_min
// around the unit sphere): its support function k |r u| exceeds |r u| by (k - 1) |r u| >=
// (k - 1) r_min = s in every direction u. So the solver's skin around an ellipsoid is s along its
// shortest axis and up to s r_max / r_min along its longest (`skin_reach`).
#pragma once

#include <cstdint>

#include <capsweep/move.h>
#include <capsweep/values.h>
#include <capsweep/sweep.h>
#include <capsweep/validate.h>

namespace capsweep {

struct Body {
  AgentShape shape = AgentShape::capsule;
  Capsule capsule;      // shape == capsule
  Ellipsoid ellipsoid;  // shape == ellipsoid

  static Body of(const Capsule& c) { return {AgentShape::capsule, c, {}}; }
  static Body of(const Ellipsoid& e) { return {AgentShape::ellipsoid, {}, e}; }
  bool is_capsule() const { return shape == AgentShape::capsule; }
};

inline Body body_of(const Agent& a) { return a.shape == AgentShape::ellipsoid ? Body::of(a.ellipsoid) : Body::of(a.capsule); }
inline Body body_of(const ClaimedMove& m) {
  return m.shape == AgentShape::ellipsoid ? Body::of(m.ellipsoid) : Body::of(m.from);
}

// An agent's move: a solid body (check_capsule, or check_ellipsoid_sweep) and a motion.
Status check_body_move(const Body& body, const Vec3& motion);

float smallest_radius(const Ellipsoid& e);
float largest_radius(const Ellipsoid& e);

// The ellipsoid scaled about its centre by 1 + by / smallest radius, each radius rounded up, so
// that it holds every point within `by` of `e` (see above). by >= 0.
Ellipsoid scaled_out(const Ellipsoid& e, float by);

// Where the body is: a capsule's first endpoint, an ellipsoid's centre.
inline Vec3 position(const Body& b) { return b.is_capsule() ? b.capsule.a : b.ellipsoid.centre; }
Body moved_by(const Body& b, const Vec3& d);
// The body grown by the skin, which every sweep of the solver uses: a capsule's radius plus the
// skin, an ellipsoid scaled out by it.
Body with_skin(const Body& b, float skin);
// How far the body grown by the skin reaches beyond the body, at most: the skin for a capsule,
// skin r_max / r_min for an ellipsoid (the largest growth of a radius, rounded up).
float skin_reach(const Body& b, float skin);
// The body's lowest point (its feet).
float bottom(const Body& b);
// How far the body reaches sideways from its axis or centre, at least: the radius of a capsule,
// the smaller horizontal radius of an ellipsoid (the solver follows a slope that far per look).
float side_radius(const Body& b);
// Whether `point` lies under the body moved by `offset`: horizontally within sqrt(fraction_sq) of
// its reach from the nearest point of a capsule's axis, or of an ellipsoid's horizontal radii
// from its centre.
bool under_body(const Body& b, const Vec3& offset, const Vec3& point, float fraction_sq);
// What other agents meet: the capsule itself, or the smallest capsule holding the ellipsoid.
Capsule agent_capsule(const Body& b);

}  // namespace capsweep
