// Values: vectors, shapes, layers, a sweep's answer, a query's status, and terrain as a heightfield.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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

// Terrain as a grid of heights: 2 or 4 bytes a sample instead of 100+ a triangle, answered by a
// walk over a min/max height pyramid instead of the BVH. A World may hold one heightfield and
// meshes together (terrain plus buildings) and answers every query kind against both as one.

namespace capsweep {

// A grid of `columns` x `rows` height samples. Sample (row, column) stands at
//   x = origin.x + column * cell_x,  z = origin.z + row * cell_z,  y = origin.y + height,
// each coordinate computed in double and rounded once to float (heightfield_vertex), so the
// same heightfield always gives the same triangles. Rows run along +z, columns along +x.
//
// Cell (row, column), between samples (row, column) and (row + 1, column + 1), holds two
// triangles split along the diagonal from (row, column + 1) to (row + 1, column), both facing +y:
//   half 0: (row, column), (row + 1, column), (row, column + 1)
//   half 1: (row, column + 1), (row + 1, column), (row + 1, column + 1)
// In a World they are triangles  mesh_triangles + 2 * (row * (columns - 1) + column) + half:
// after the world's mesh triangles, cell by cell, row by row (heightfield_triangle).
struct Heightfield {
  std::uint32_t columns = 0;  // samples along +x, >= 2
  std::uint32_t rows = 0;     // samples along +z, >= 2
  float cell_x = 1.f;         // metres between samples along x, > 0
  float cell_z = 1.f;         // and along z
  Vec3 origin;                // where sample (0, 0) stands at height 0

  // The heights, row by row (columns * rows of them), in exactly one of two forms:
  std::vector<float> heights;          // metres, or
  std::vector<std::uint16_t> samples;  // 16-bit samples (a PNG's): height = height_scale * sample
  float height_scale = 1.f;            // metres per sample step, for `samples`

  // Cells with no ground (caves, tunnels under terrain, a hole a building fills), one byte per
  // cell row by row ((columns - 1) * (rows - 1)), non-zero = hole; empty = none. A hole's two
  // triangles keep their indices but are never hit.
  std::vector<std::uint8_t> holes;

  // The layers the terrain's triangles are on (never 0; see SweepOptions::layers).
  std::uint32_t layers = kDefaultLayers;
};

// Why the heightfield cannot be built into a world ("" when it can): the first problem found,
// naming the sample or cell, e.g. "heightfield: sample (row 3, column 7) is not finite".
// Refused: fewer than 2 samples along an axis, heights that are not columns * rows (or both or
// neither form given), a cell size or height scale that is not finite and > 0, a coordinate
// larger in magnitude than 1e6 m, cells too small for float to tell neighbouring samples
// apart, holes that are not one per cell, a layer mask of 0.
std::string check_heightfield(const Heightfield& terrain);

// The height of sample (row, column) in metres above origin.y, as the world uses it.
double heightfield_height(const Heightfield& terrain, std::uint32_t row, std::uint32_t column);

// Where sample (row, column) stands (see Heightfield).
Vec3 heightfield_vertex(const Heightfield& terrain, std::uint32_t row, std::uint32_t column);

// Cells and triangles.
inline std::uint64_t heightfield_cells(const Heightfield& terrain) {
  return terrain.columns < 2 || terrain.rows < 2 ? 0 : std::uint64_t(terrain.columns - 1) * (terrain.rows - 1);
}
// Triangle `half` (0 or 1) of cell (row, column), as a World holds it.
Triangle heightfield_triangle(const Heightfield& terrain, std::uint32_t row, std::uint32_t column, int half);

// The same terrain as a triangle soup: the two triangles of every cell that is not a hole, in
// the world's order, and in `index` (when given) each one's place among the heightfield's
// triangles (2 * (row * (columns - 1) + column) + half). For comparing a heightfield world with
// the mesh world of the same terrain, or exporting it.
std::vector<Triangle> heightfield_mesh(const Heightfield& terrain, std::vector<std::uint32_t>* index = nullptr);

}  // namespace capsweep
