#include "core/body.h"

#include <algorithm>
#include <cmath>

namespace capsweep {

namespace {
// The float nearest above x (x itself when it is exact): bounds that must never round inward.
float up(double x) {
  const float f = float(x);
  return double(f) >= x ? f : std::nextafter(f, INFINITY);
}
}  // namespace

Status check_body_move(const Body& b, const Vec3& motion) {
  if (b.is_capsule()) return check_agent_move(b.capsule, motion);
  return check_ellipsoid_sweep(b.ellipsoid, motion);
}

float smallest_radius(const Ellipsoid& e) { return std::min({e.radii.x, e.radii.y, e.radii.z}); }
float largest_radius(const Ellipsoid& e) { return std::max({e.radii.x, e.radii.y, e.radii.z}); }

Ellipsoid scaled_out(const Ellipsoid& e, float by) {
  const double k = 1.0 + double(by) / double(smallest_radius(e));
  return {e.centre, {up(e.radii.x * k), up(e.radii.y * k), up(e.radii.z * k)}};
}

Body moved_by(const Body& b, const Vec3& d) {
  if (b.is_capsule()) return Body::of(Capsule{b.capsule.a + d, b.capsule.b + d, b.capsule.radius});
  return Body::of(Ellipsoid{b.ellipsoid.centre + d, b.ellipsoid.radii});
}

Body with_skin(const Body& b, float skin) {
  if (b.is_capsule()) return Body::of(Capsule{b.capsule.a, b.capsule.b, b.capsule.radius + skin});
  return Body::of(scaled_out(b.ellipsoid, skin));
}

float skin_reach(const Body& b, float skin) {
  if (b.is_capsule()) return skin;
  // |grown u| - |r u| <= |(grown - r) u| <= the largest growth of a radius (skin r_max / r_min,
  // and the rounding up of scaled_out).
  const Ellipsoid& e = b.ellipsoid;
  const Ellipsoid grown = scaled_out(e, skin);
  return up(std::max({double(grown.radii.x) - e.radii.x, double(grown.radii.y) - e.radii.y,
                      double(grown.radii.z) - e.radii.z}));
}

float bottom(const Body& b) {
  if (b.is_capsule()) return std::fmin(b.capsule.a.y, b.capsule.b.y) - b.capsule.radius;
  return b.ellipsoid.centre.y - b.ellipsoid.radii.y;
}

float side_radius(const Body& b) {
  return b.is_capsule() ? b.capsule.radius : std::fmin(b.ellipsoid.radii.x, b.ellipsoid.radii.z);
}

bool under_body(const Body& b, const Vec3& offset, const Vec3& point, float fraction_sq) {
  if (b.is_capsule()) {
    const Capsule& c = b.capsule;
    const Vec3 at = c.a + offset, axis = c.b - c.a;
    const float len_sq = length_sq(axis);
    const float s = len_sq > 0 ? std::clamp(dot(point - at, axis) / len_sq, 0.f, 1.f) : 0.f;
    const Vec3 off = point - (at + axis * s);
    return off.x * off.x + off.z * off.z <= fraction_sq * c.radius * c.radius;
  }
  const Ellipsoid& e = b.ellipsoid;
  const Vec3 off = point - (e.centre + offset);
  const float x = off.x / e.radii.x, z = off.z / e.radii.z;
  return x * x + z * z <= fraction_sq;
}

Capsule agent_capsule(const Body& b) { return b.is_capsule() ? b.capsule : bounding_capsule(b.ellipsoid); }

}  // namespace capsweep
