// World::validate: a claimed move swept straight and held to what the solver allows, and where
// the solver would have taken it instead.
#include <cmath>

#include "parallel/executor.h"

#include "world/world_collider.h"

namespace capsweep {

namespace {

// Whether a claimed displacement lies inside its allowance (compared in double, as computed).
bool within(const Vec3& motion, const MoveAllowance& a) {
  const double h = std::hypot(double(motion.x), double(motion.z)), dy = motion.y;
  return h <= a.horizontal && dy <= a.up && dy >= a.down;
}

// A claim whose start overlaps: its hit is the deepest overlap (a Contact or EllipsoidContact).
template <class StartContact>
SweepHit start_overlap_hit(const StartContact& contact, std::uint32_t triangle) {
  SweepHit h;
  h.normal = contact.normal;
  h.point = contact.point;
  h.depth = contact.depth;
  h.feature = contact.feature;
  h.triangle = triangle;
  return h;
}

// A start in the solver's skin, with half the backoff as margin for rounding (World::validate):
// the body grown by skin + backoff / 2 (a capsule) or scaled out so that it reaches at most that
// far beyond the skin in any direction (an ellipsoid: k = 1 + skin / r_min + backoff / (2 r_max);
// an agent resting a backoff beyond its skin is outside it) touches the world.
bool in_skin(const World& world, const Body& body, const MoveSettings& m, std::uint32_t layers) {
  if (body.is_capsule()) return !world.is_clear(body.capsule, m.skin + 0.5f * m.backoff, layers);
  const Ellipsoid& e = body.ellipsoid;
  const float by = m.skin + 0.5f * m.backoff * smallest_radius(e) / largest_radius(e);
  return !ellipsoid_clear(world, scaled_out(e, by), layers);
}

}  // namespace

const char* name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::ok: return "ok";
    case VerdictKind::blocked: return "blocked";
    case VerdictKind::start_overlaps: return "start_overlaps";
    case VerdictKind::too_fast: return "too_fast";
    case VerdictKind::refused: return "refused";
  }
  return "?";
}

void World::validate(std::span<const ClaimedMove> moves, const ValidateSettings& settings, std::span<Verdict> verdicts,
                     const BatchOptions& options) const {
  if (verdicts.size() != moves.size()) throw std::invalid_argument("World::validate: moves and verdicts differ in size");
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::validate: " + why);
  const SweepPath path = options.path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar;
  parallel::StopCheck stop(options.stop);
  // Where a body is, in the verdict: a capsule; an ellipsoid and the capsule holding it.
  const auto place = [](const Body& b, Capsule& capsule, Ellipsoid& ellipsoid) {
    capsule = b.is_capsule() ? b.capsule : bounding_capsule(b.ellipsoid);
    if (!b.is_capsule()) ellipsoid = b.ellipsoid;
  };
  parallel::in_arena(options.threads, [&] {
    parallel::for_ranges<std::size_t>(0, moves.size(), 16, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (stop.before(i)) return;
        const ClaimedMove& m = moves[i];
        const Body body = body_of(m);
        Verdict& v = verdicts[i];
        v = Verdict{};
        v.status = check_body_move(body, m.motion);
        if (v.status == Status::ok && !(std::isfinite(m.dt) && m.dt >= 0 && std::isfinite(m.vertical_speed))) {
          v.status = Status::non_finite_motion;
        }
        if (v.status == Status::ok && !(m.dt <= 1e6f && std::fabs(m.vertical_speed) <= 1e6f)) v.status = Status::out_of_range;
        const float thinnest = body.is_capsule() ? m.from.radius : smallest_radius(m.ellipsoid);
        if (v.status == Status::ok && !(settings.tolerance >= 0 && settings.tolerance < thinnest)) {
          v.status = Status::bad_radius;  // the tolerance must leave a body to sweep
        }
        if (v.status == Status::ok) v.status = check_layers(m.layers, options.layers);
        const std::uint32_t layers = m.layers & options.layers;  // what this claim is judged against
        if (v.status != Status::ok) {
          v.kind = VerdictKind::refused;
          v.legal_fraction = 0;
          v.furthest = v.corrected = body.is_capsule() ? m.from : Capsule{};
          v.furthest_ellipsoid = v.corrected_ellipsoid = body.is_capsule() ? Ellipsoid{} : m.ellipsoid;
          continue;
        }
        // The straight path, swept with the body shrunk by the tolerance (an ellipsoid: each
        // radius), which the body itself overlaps by at most the tolerance.
        const float tol = settings.tolerance;
        bool overlapping = false;
        if (body.is_capsule()) {
          const Capsule shrunk{m.from.a, m.from.b, m.from.radius - tol};
          Contact contact;
          std::uint32_t triangle;
          overlapping = deepest_overlap(shrunk, contact, triangle, layers);
          if (overlapping) {
            v.hit = start_overlap_hit(contact, triangle);
          } else {
            sweep_one({shrunk, m.motion}, v.hit, path, layers);
          }
        } else {
          const Ellipsoid& e = m.ellipsoid;
          const Ellipsoid shrunk{e.centre, {e.radii.x - tol, e.radii.y - tol, e.radii.z - tol}};
          EllipsoidContact contact;
          std::uint32_t triangle;
          overlapping = deepest_ellipsoid_overlap(*this, shrunk, contact, triangle, layers);
          if (overlapping) {
            v.hit = start_overlap_hit(contact, triangle);
          } else {
            sweep_ellipsoid_one(*this, {shrunk, m.motion}, v.hit, path, layers);
          }
        }
        if (overlapping) {
          v.kind = VerdictKind::start_overlaps;
          v.legal_fraction = 0;
          v.hit.hit = true;
          v.hit.t = 0;
        } else {
          v.legal_fraction = v.hit.hit ? v.hit.t : 1.f;
          // The allowance's looser cases are looked for only when the claim is outside the
          // tighter one: most claims cost no sweep beyond their path.
          v.grounded = m.grounded;
          v.allowed = allowance(m, settings, v.grounded, false);
          // An agent the server did not call grounded may still stand on the ground (a fall
          // that ended a hair above it): look, as the solver does at the start of its tick.
          SweepHit ground;
          Vec3 normal;
          if (!v.grounded && !within(m.motion, v.allowed) &&
              ground_below(*this, body, settings.movement, settings.movement.ground_distance + settings.tolerance, path,
                           layers, ground, normal)) {
            v.grounded = true;
            v.allowed = allowance(m, settings, true, false);
          }
          // A start inside the skin the solver keeps from surfaces: it lifts the agent back out.
          // Agents rest skin + backoff away; halfway to that still counts as inside (rounding),
          // an agent at rest does not (else every resting claim would get the push as slack).
          if (!within(m.motion, v.allowed) && in_skin(*this, body, settings.movement, layers)) {
            v.in_skin = true;
            v.allowed = allowance(m, settings, v.grounded, true);
          }
          const bool too_fast = !within(m.motion, v.allowed);
          v.kind = too_fast ? VerdictKind::too_fast : v.hit.hit ? VerdictKind::blocked : VerdictKind::ok;
        }
        place(moved_by(body, m.motion * v.legal_fraction), v.furthest, v.furthest_ellipsoid);
        if (v.kind == VerdictKind::ok) {
          place(moved_by(body, m.motion), v.corrected, v.corrected_ellipsoid);
          continue;
        }
        // Where the agent would have got: one tick of the movement solver on the claim.
        MoveSettings ms = settings.movement;
        ms.agents_collide = false;
        if (m.dt > 0 && m.dt <= 10) ms.dt = m.dt;  // gravity over the claim's own duration
        const WorldCollider collider(*this, path, layers, nullptr, {}, {}, 0);
        Agent agent{m.from, m.motion, m.vertical_speed, 0};
        agent.shape = m.shape;
        agent.ellipsoid = m.ellipsoid;
        MoveResult r;
        move_agent(collider, agent, ms, r);
        v.corrected = r.capsule;
        v.corrected_ellipsoid = r.ellipsoid;
      }
    });
  });
  stop.throw_if_stopped<Cancelled>("World::validate");
}

}  // namespace capsweep
