#include "tests/support/cases.h"

#include <algorithm>
#include <cmath>

namespace cases {

using capsweep::Random;
using capsweep::Vec3;
using capsweep::Vec3d;

const char* name(Kind k) {
  switch (k) {
    case Kind::random: return "random";
    case Kind::at_vertex: return "at_vertex";
    case Kind::at_edge: return "at_edge";
    case Kind::at_face: return "at_face";
    case Kind::slide_on_face: return "slide_on_face";
    case Kind::axis_in_plane: return "axis_in_plane";
    case Kind::parallel_edge: return "parallel_edge";
    case Kind::start_contact: return "start_contact";
    case Kind::count: break;
  }
  return "?";
}

namespace {

Vec3d perpendicular_to(Random& rng, const Vec3d& n) {
  for (;;) {
    const Vec3d u = rng.unit_vector();
    const Vec3d p = u - n * capsweep::dot(u, n);
    const double l = capsweep::length(p);
    if (l > 1e-3) return p / l;
  }
}

struct Geometry {
  Vec3d v[3];
  Vec3d normal;  // unit (a fallback direction for degenerate triangles)
};

Geometry make_triangle(Random& rng, const Vec3d& origin, double size) {
  Geometry g;
  const double style = rng.uniform();
  g.v[0] = origin + rng.in_cube(size);
  if (style < 0.70) {
    g.v[1] = origin + rng.in_cube(size);
    g.v[2] = origin + rng.in_cube(size);
  } else if (style < 0.88) {  // a long thin sliver
    const Vec3d dir = rng.unit_vector();
    g.v[1] = g.v[0] + dir * size;
    // One draw after another, in the order g++ happened to make them (the operands of + and *
    // are unsequenced: clang made them the other way, and drew other cases from the same seed).
    const double thin = std::pow(10.0, -rng.uniform(2, 7));
    const Vec3d across = perpendicular_to(rng, dir);
    const double along = rng.uniform(-0.2, 1.2);
    g.v[2] = g.v[0] + dir * (size * along) + across * (size * thin);
  } else if (style < 0.96) {  // collinear (exactly in double; nearly, once rounded to float)
    g.v[1] = g.v[0] + rng.unit_vector() * size;
    g.v[2] = g.v[0] + (g.v[1] - g.v[0]) * rng.uniform(-0.5, 1.5);
  } else {  // coinciding vertices
    g.v[1] = rng.chance(0.5) ? g.v[0] : origin + rng.in_cube(size);
    g.v[2] = g.v[0];
  }
  const Vec3d n = capsweep::cross(g.v[1] - g.v[0], g.v[2] - g.v[0]);
  g.normal = capsweep::length(n) > 0 ? n / capsweep::length(n) : rng.unit_vector();
  return g;
}

Vec3d point_on_triangle(Random& rng, const Geometry& g) {
  double u = rng.uniform(), v = rng.uniform();
  if (u + v > 1) { u = 1 - u; v = 1 - v; }
  return g.v[0] + (g.v[1] - g.v[0]) * u + (g.v[2] - g.v[0]) * v;
}

double pick_gap(Random& rng, double r) {
  switch (rng.below(6)) {
    case 0: return 0.0;
    case 1: return 1e-5;
    case 2: return -1e-5;
    case 3: return 2e-4;
    case 4: return rng.uniform(-0.5, 0.5) * r;
    default: return rng.uniform(0, 2) * r;
  }
}

Vec3 f(const Vec3d& v) { return capsweep::to_float(v); }

}  // namespace

SweepCase make(Random& rng, Kind kind, Mover mover) {
  const double size = rng.chance(0.1) ? rng.log_uniform(50, 2000) : rng.log_uniform(1e-3, 50);
  const double drawn_r = rng.log_uniform(1e-3, 10);
  const double r = mover == Mover::capsule ? drawn_r : 0.0;
  const Vec3d origin = rng.chance(0.3) ? rng.in_cube(5000) : rng.in_cube(10);
  const Geometry g = make_triangle(rng, origin, size);
  const double drawn_axis = rng.chance(0.1) ? 0.0 : rng.log_uniform(1e-3, 5);
  const double axis_len = mover == Mover::ray ? 0.0 : mover == Mover::segment && drawn_axis == 0 ? 1.0 : drawn_axis;
  const double speed = rng.chance(0.02) ? 0.0 : rng.log_uniform(1e-3, 30);

  Vec3d a, b, d;
  switch (kind) {
    case Kind::random: {
      const Vec3d center = origin + rng.in_cube(size + 2 * r + axis_len);
      const Vec3d dir = rng.unit_vector();
      a = center - dir * (axis_len / 2);
      b = center + dir * (axis_len / 2);
      // Mostly toward the triangle, so that hits are common.
      const Vec3d to_tri = point_on_triangle(rng, g) - center;
      d = rng.chance(0.7) && capsweep::length(to_tri) > 0 ? to_tri / capsweep::length(to_tri) * speed
                                                          : rng.unit_vector() * speed;
      break;
    }
    case Kind::at_vertex:
    case Kind::at_edge:
    case Kind::at_face:
    case Kind::start_contact: {
      // Place the capsule where it would touch a feature point q with separation `gap`, then
      // back it off along the motion, which passes the feature tangentially or approaches it.
      Vec3d q, n;
      const int i = int(rng.below(3));
      if (kind == Kind::at_vertex) {
        q = g.v[i];
        n = rng.unit_vector();
      } else if (kind == Kind::at_edge) {
        q = g.v[i] + (g.v[(i + 1) % 3] - g.v[i]) * rng.uniform();
        n = rng.unit_vector();
      } else {
        q = point_on_triangle(rng, g);
        n = rng.chance(0.5) ? g.normal : -g.normal;
        if (kind == Kind::start_contact && rng.chance(0.5)) n = rng.unit_vector();
      }
      // Starts: touching, barely inside, inside, or with the axis right through the triangle.
      double gap;
      if (kind != Kind::start_contact) {
        gap = pick_gap(rng, r);
      } else if (rng.chance(0.3)) {
        gap = -r - rng.uniform(0, 0.9) * axis_len;
      } else {
        const double inside = rng.uniform(-1.0, 0.0);  // drawn before the scale (see above)
        gap = inside * r * (rng.chance(0.5) ? 1e-4 : 1.0);
      }
      const Vec3d p = q + n * (r + gap);
      Vec3d dir = rng.chance(0.5) ? perpendicular_to(rng, n) : rng.unit_vector();
      if (capsweep::dot(dir, n) < 0) dir = -dir;
      const double at = rng.chance(0.5) ? 0.0 : rng.uniform();  // where on the axis p sits
      a = p - dir * (axis_len * at);
      b = a + dir * axis_len;
      const Vec3d tangent = perpendicular_to(rng, n);
      d = (rng.chance(0.6) ? tangent : (tangent - n * rng.uniform(0, 2))) * speed;
      if (capsweep::length(d) > 0) d = d / capsweep::length(d) * speed;
      const double t0 = kind == Kind::start_contact ? 0.0 : rng.uniform();
      a = a - d * t0;
      b = b - d * t0;
      break;
    }
    case Kind::slide_on_face: {
      const Vec3d n = rng.chance(0.5) ? g.normal : -g.normal;
      const double gap = rng.chance(0.5) ? 0.0 : 1e-5;
      const Vec3d p = point_on_triangle(rng, g) + n * (r + gap);
      const Vec3d dir = rng.chance(0.5) ? perpendicular_to(rng, n) : rng.unit_vector();
      a = p - dir * (capsweep::dot(dir, n) < 0 ? axis_len : 0.0);
      b = a + dir * axis_len;
      if (capsweep::dot(dir, n) < 0) { a = p; b = p - dir * axis_len; }
      d = perpendicular_to(rng, n) * speed;
      break;
    }
    case Kind::axis_in_plane: {
      const Vec3d center = point_on_triangle(rng, g);
      const Vec3d in_plane = perpendicular_to(rng, g.normal);
      const Vec3d start = center - in_plane * (size + r + rng.uniform(0, 2) * r);
      const Vec3d dir = perpendicular_to(rng, g.normal);
      a = start;
      b = start + dir * axis_len;
      d = (in_plane + g.normal * (rng.chance(0.5) ? 0.0 : rng.uniform(-0.1, 0.1))) * speed;
      break;
    }
    case Kind::parallel_edge: {
      const int i = int(rng.below(3));
      const Vec3d edge = g.v[(i + 1) % 3] - g.v[i];
      const double el = capsweep::length(edge);
      const Vec3d dir = el > 0 ? edge / el : rng.unit_vector();
      const double gap = pick_gap(rng, r);  // drawn first (see above)
      const Vec3d off = perpendicular_to(rng, dir) * (r + gap);
      a = g.v[i] + off - dir * (axis_len + rng.uniform(0, 2) * (size + r));
      b = a + dir * axis_len;
      d = (dir + (rng.chance(0.5) ? Vec3d{} : perpendicular_to(rng, dir) * 1e-3)) * speed;
      break;
    }
    case Kind::count: break;
  }
  SweepCase c;
  c.capsule = {f(a), f(b), float(r)};
  c.motion = f(d);
  c.triangle = {{f(g.v[0]), f(g.v[1]), f(g.v[2])}};
  c.kind = kind;
  return c;
}

double largest_coordinate(const SweepCase& c) {
  double m = 0;
  for (const Vec3& v : {c.capsule.a, c.capsule.b, c.capsule.a + c.motion, c.capsule.b + c.motion, c.triangle.v[0],
                        c.triangle.v[1], c.triangle.v[2]}) {
    m = std::max(m, double(capsweep::max_abs_component(v)));
  }
  return m;
}

}  // namespace cases
