#include <capsweep/values.h>

#include <cmath>

namespace capsweep {

const char* describe(Status s) {
  switch (s) {
    case Status::ok: return "ok";
    case Status::non_finite_capsule: return "capsule has a NaN or infinite coordinate or radius";
    case Status::bad_radius: return "capsule radius must be positive (only a sweep takes 0: a ray or a segment)";
    case Status::non_finite_motion: return "motion has a NaN or infinite component";
    case Status::non_finite_triangle: return "triangle has a NaN or infinite vertex";
    case Status::out_of_range: return "a coordinate, radius or motion component exceeds 1e6 m";
    case Status::bad_layers:
      return "the layer mask sees no layer (it is 0, or shares no layer with the batch's mask): it would see nothing";
  }
  return "unknown status";
}

namespace {
bool in_range(const Vec3& v) { return max_abs_component(v) <= kMaxCoordinate; }

Status check_capsule_with_min_radius(const Capsule& c, bool allow_zero) {
  if (!is_finite(c.a) || !is_finite(c.b) || !std::isfinite(c.radius)) return Status::non_finite_capsule;
  if (c.radius < 0.f || (!allow_zero && c.radius == 0.f)) return Status::bad_radius;
  if (!in_range(c.a) || !in_range(c.b) || c.radius > kMaxCoordinate) return Status::out_of_range;
  return Status::ok;
}
}  // namespace

Status check_capsule(const Capsule& c) { return check_capsule_with_min_radius(c, false); }
Status check_obstacle_capsule(const Capsule& c) { return check_capsule_with_min_radius(c, true); }

Status check_motion(const Vec3& m) {
  if (!is_finite(m)) return Status::non_finite_motion;
  if (!in_range(m)) return Status::out_of_range;
  return Status::ok;
}

Status check_sweep(const Capsule& moving, const Vec3& motion) {
  // Every query of a batch comes here: one pass over the ten numbers answers the common case (a
  // NaN fails both compares); only a refused query pays for finding its reason.
  const float v[10] = {moving.a.x, moving.a.y, moving.a.z, moving.b.x, moving.b.y,
                       moving.b.z, moving.radius, motion.x, motion.y, motion.z};
  bool fine = moving.radius >= 0.f;
  for (const float x : v) fine &= (x >= -kMaxCoordinate) & (x <= kMaxCoordinate);
  if (fine) return Status::ok;
  if (Status s = check_capsule_with_min_radius(moving, true); s != Status::ok) return s;
  return check_motion(motion);
}

Status check_ellipsoid_sweep(const Ellipsoid& e, const Vec3& motion) {
  if (!is_finite(e.centre) || !is_finite(e.radii)) return Status::non_finite_capsule;
  if (!(e.radii.x > 0.f && e.radii.y > 0.f && e.radii.z > 0.f)) return Status::bad_radius;
  if (!in_range(e.centre) || !in_range(e.radii)) return Status::out_of_range;
  return check_motion(motion);
}

Status check_agent_move(const Capsule& agent, const Vec3& motion) {
  if (Status s = check_capsule(agent); s != Status::ok) return s;
  return check_motion(motion);
}

Status check_triangle(const Triangle& t) {
  for (const Vec3& v : t.v) {
    if (!is_finite(v)) return Status::non_finite_triangle;
    if (!in_range(v)) return Status::out_of_range;
  }
  return Status::ok;
}

}  // namespace capsweep
