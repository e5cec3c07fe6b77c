// Values: vectors, shapes, layers, a sweep's answer and a query's status.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

// A 3-vector of float (storage, the public API) or double (inside the exact kernels).

namespace capsweep {

template <class T>
struct Vec3T {
  T x{}, y{}, z{};

  constexpr Vec3T() = default;
  constexpr Vec3T(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
  template <class U>
  constexpr explicit Vec3T(const Vec3T<U>& o) : x(T(o.x)), y(T(o.y)), z(T(o.z)) {}

  constexpr T operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
  constexpr Vec3T operator+(const Vec3T& o) const { return {x + o.x, y + o.y, z + o.z}; }
  constexpr Vec3T operator-(const Vec3T& o) const { return {x - o.x, y - o.y, z - o.z}; }
  constexpr Vec3T operator-() const { return {-x, -y, -z}; }
  constexpr Vec3T operator*(T s) const { return {x * s, y * s, z * s}; }
  constexpr Vec3T operator/(T s) const { return {x / s, y / s, z / s}; }
  constexpr Vec3T& operator+=(const Vec3T& o) { x += o.x; y += o.y; z += o.z; return *this; }
  constexpr Vec3T& operator-=(const Vec3T& o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
  constexpr bool operator==(const Vec3T&) const = default;
};

using Vec3 = Vec3T<float>;
using Vec3d = Vec3T<double>;

template <class T> constexpr Vec3T<T> operator*(T s, const Vec3T<T>& v) { return v * s; }
template <class T> constexpr T dot(const Vec3T<T>& a, const Vec3T<T>& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
template <class T> constexpr Vec3T<T> cross(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T> constexpr T length_sq(const Vec3T<T>& v) { return dot(v, v); }
template <class T> T length(const Vec3T<T>& v) { return std::sqrt(dot(v, v)); }
// Plain compares, not std::fmin/fmax (library calls on hot paths); like them, a NaN in `a`
// yields b's component (inputs are validated before they get here).
template <class T> Vec3T<T> min(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
template <class T> Vec3T<T> max(const Vec3T<T>& a, const Vec3T<T>& b) {
  return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
template <class T> T max_abs_component(const Vec3T<T>& v) {
  const T x = std::fabs(v.x), y = std::fabs(v.y), z = std::fabs(v.z);
  return x > y ? (x > z ? x : z) : (y > z ? y : z);
}
template <class T> bool is_finite(const Vec3T<T>& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

inline Vec3d to_double(const Vec3& v) { return Vec3d(v); }
inline Vec3 to_float(const Vec3d& v) { return Vec3(v); }

}  // namespace capsweep

// The shapes capsweep works with. Units are metres; the scenes are Y up.

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

// What a sweep answers.

namespace capsweep {

// The part of the obstacle that is touched. For a capsule obstacle: edge = its side, vertex = a cap.
enum class Feature : std::uint8_t { none = 0, face = 1, edge = 2, vertex = 3 };

inline constexpr std::uint32_t kNoTriangle = 0xFFFFFFFFu;

struct SweepHit {
  bool hit = false;
  Feature feature = Feature::none;
  float t = 1.f;          // fraction of the motion travelled at first contact, in [0, 1]; 1 on a miss
  Vec3 normal;            // unit, from the obstacle toward the capsule
  Vec3 point;             // contact point on the obstacle
  float depth = 0.f;      // > 0 only when the start overlaps: push-out distance along `normal`
  std::uint32_t triangle = kNoTriangle;  // index of the touched triangle (set by the world)

  // t == 0 on a hit: the capsule touched or overlapped the obstacle where it started.
  bool started_in_contact() const { return hit && t == 0.f; }
};

// Bit-for-bit equality of every field (not of padding): what determinism promises.
inline bool identical(const SweepHit& a, const SweepHit& b) {
  auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.hit == b.hit && a.feature == b.feature && same(a.t, b.t) && same(a.normal, b.normal) &&
         same(a.point, b.point) && same(a.depth, b.depth) && a.triangle == b.triangle;
}

}  // namespace capsweep

// Why a query was refused. Kernels check their inputs and never return a hit for bad ones.

namespace capsweep {

enum class Status : std::uint8_t {
  ok = 0,
  non_finite_capsule,   // NaN or Inf in a capsule endpoint or radius
  bad_radius,           // radius < 0, or 0 where a solid capsule is needed (agents, overlaps, contacts)
  non_finite_motion,    // NaN or Inf in the motion vector
  non_finite_triangle,  // NaN or Inf in a triangle vertex
  out_of_range,         // a coordinate, radius or motion component beyond kMaxCoordinate
  bad_layers,           // a layer mask that sees no layer: 0, or nothing in common with the batch's
};

// Larger magnitudes leave float with less than ~6 cm of resolution; nothing in a game world
// is that far out, so such input is refused rather than answered imprecisely.
inline constexpr float kMaxCoordinate = 1.0e6f;

const char* describe(Status s);

Status check_capsule(const Capsule& c);           // a solid capsule (agent, overlap, contact): radius > 0
Status check_obstacle_capsule(const Capsule& c);  // a static capsule: radius >= 0 (0 = segment)
Status check_motion(const Vec3& motion);
Status check_triangle(const Triangle& t);
// A sweep: radius >= 0 (0 = a ray or a moving segment, see sweep.h), then check_motion.
Status check_sweep(const Capsule& moving, const Vec3& motion);
// A moving ellipsoid: finite, each radius > 0 (bad_radius), within range; then check_motion.
// Its NaN/Inf is reported as non_finite_capsule (the moving shape).
Status check_ellipsoid_sweep(const Ellipsoid& moving, const Vec3& motion);
// An agent's move (World::move, World::validate): check_capsule, then check_motion.
Status check_agent_move(const Capsule& agent, const Vec3& motion);
// A query's, agent's or claim's own layer mask within its batch's (SweepOptions::layers): it
// sees the triangles on `layers & batch_layers`, and a mask that leaves no layer would see
// nothing at all, which is never what a caller means, so it is refused (bad_layers).
inline Status check_layers(std::uint32_t layers, std::uint32_t batch_layers = kAllLayers) {
  return (layers & batch_layers) != 0 ? Status::ok : Status::bad_layers;
}

}  // namespace capsweep
