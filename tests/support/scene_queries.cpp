#include "tests/support/scene_queries.h"

#include "core/random.h"

namespace cases {

using namespace capsweep;

std::vector<SweepQuery> adversarial_scene_queries(const std::vector<Triangle>& tris, std::size_t count,
                                                  std::uint64_t seed, bool rays) {
  Random rng(seed);
  std::vector<SweepQuery> out;
  out.reserve(count);
  const double gaps[] = {0, 1e-5, -1e-5, 1e-3, -1e-3, 0.05};
  while (out.size() < count) {
    const Triangle& t = tris[rng.below(tris.size())];
    const Vec3d v[3] = {to_double(t.v[0]), to_double(t.v[1]), to_double(t.v[2])};
    const int i = int(rng.below(3));
    const Vec3d face_n = cross(v[1] - v[0], v[2] - v[0]);
    const bool has_face = length(face_n) > 1e-9;
    // The target: a vertex, a point on an edge, or a point inside the face.
    const int target = int(rng.below(3));
    Vec3d q, n;
    if (target == 0) {
      q = v[i];
      n = rng.unit_vector();
    } else if (target == 1 || !has_face) {
      q = v[i] + (v[(i + 1) % 3] - v[i]) * rng.uniform();
      n = rng.unit_vector();
    } else {
      double a = rng.uniform(), b = rng.uniform();
      if (a + b > 1) a = 1 - a, b = 1 - b;
      q = v[0] + (v[1] - v[0]) * a + (v[2] - v[0]) * b;
      n = face_n / length(face_n) * (rng.chance(0.5) ? 1.0 : -1.0);
    }
    const double drawn_r = rng.chance(0.5) ? 0.35 : rng.log_uniform(0.01, 1);
    const double r = rays ? 0.0 : drawn_r;
    const Vec3d drawn_axis = rng.chance(0.5) ? Vec3d{0, 1.1, 0} : rng.unit_vector() * rng.uniform(0, 1.5);
    const Vec3d axis = rays && out.size() % 2 == 0 ? Vec3d{} : drawn_axis;
    // The capsule end nearest the target, at distance r + gap along n when it gets there.
    const double gap = gaps[rng.below(6)];
    const Vec3d contact_end = q + n * (r + gap);
    const Vec3d a = dot(axis, n) >= 0 ? contact_end : contact_end - axis;
    Vec3d d;
    const int motion = int(rng.below(4));
    if (motion == 0) {  // approaching head-on
      d = -n * rng.log_uniform(0.05, 10);
    } else if (motion == 3 && has_face) {  // sliding along the face plane
      const Vec3d fn = face_n / length(face_n);
      Vec3d s = cross(fn, rng.unit_vector());
      if (length(s) < 1e-3) continue;
      d = s / length(s) * rng.log_uniform(0.05, 10);
    } else {  // passing by, tangent to n
      Vec3d s = cross(n, rng.unit_vector());
      if (length(s) < 1e-3) continue;
      d = s / length(s) * rng.log_uniform(0.05, 10);
    }
    // One in eight starts where it would touch (t = 0); the others reach the spot at t0.
    const double t0 = rng.below(8) == 0 ? 0.0 : rng.uniform(0.1, 0.9);
    const Vec3d start = a - d * t0;
    out.push_back({{to_float(start), to_float(start + axis), float(r)}, to_float(d)});
  }
  return out;
}

}  // namespace cases
