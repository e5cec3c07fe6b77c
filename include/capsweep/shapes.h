// The shapes capsweep works with. Units are metres; the scenes are Y up.
#pragma once

#include <cstdint>

#include <capsweep/vec3.h>

namespace capsweep {

// Layer filters: each triangle is on one or more of 32 layers (a bit mask, never 0; a world
// built without layers puts every triangle on layer 1, kDefaultLayers), and each batch sees the
// layers of its mask (SweepOptions::layers): a triangle on none of them is not there for it.
inline constexpr std::uint32_t kDefaultLayers = 1u;
inline constexpr std::uint32_t kAllLayers = 0xFFFFFFFFu;

// A capsule: every point within `radius` of the segment [a, b]. a == b makes a sphere.
struct Capsule {
  Vec3 a, b;
  float radius = 0.f;
};

// An axis-aligned ellipsoid: the points x with sum(((x - centre) / radii)^2) <= 1, each radius > 0.
struct Ellipsoid {
  Vec3 centre, radii;
};

// A static triangle. Vertices may be collinear or coincide: the kernels then treat it as the
// segment or point it collapses to.
struct Triangle {
  Vec3 v[3];
};

// An axis-aligned box; an empty box has min > max.
struct Aabb {
  Vec3 min{+INFINITY, +INFINITY, +INFINITY};
  Vec3 max{-INFINITY, -INFINITY, -INFINITY};

  void grow(const Vec3& p) { min = capsweep::min(min, p); max = capsweep::max(max, p); }
  void grow(const Aabb& b) { min = capsweep::min(min, b.min); max = capsweep::max(max, b.max); }
  bool empty() const { return min.x > max.x || min.y > max.y || min.z > max.z; }
  bool overlaps(const Aabb& b) const {
    return min.x <= b.max.x && b.min.x <= max.x && min.y <= b.max.y && b.min.y <= max.y &&
           min.z <= b.max.z && b.min.z <= max.z;
  }
};

inline Aabb bounds(const Triangle& t) {
  Aabb b;
  for (const Vec3& v : t.v) b.grow(v);
  return b;
}

// Everything a capsule may touch while it moves by `motion` (a conservative box).
inline Aabb swept_bounds(const Capsule& c, const Vec3& motion) {
  Aabb b;
  b.grow(c.a);
  b.grow(c.b);
  b.grow(c.a + motion);
  b.grow(c.b + motion);
  const Vec3 r{c.radius, c.radius, c.radius};
  b.min -= r;
  b.max += r;
  return b;
}

}  // namespace capsweep
