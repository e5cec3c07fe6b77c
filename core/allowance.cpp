// What a claimed move may cover in its dt (validate.h's MoveAllowance): the movement solver's
// own limits, read backwards. Kept beside nothing else so that the validator, the CLI's CSV and
// the tests all use the one formula.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <capsweep/validate.h>

#include "core/body.h"

namespace capsweep {

MoveAllowance allowance(const ClaimedMove& move, const ValidateSettings& settings, bool grounded, bool in_skin) {
  MoveAllowance a;
  if (!(move.dt > 0)) return a;  // no duration: nothing to bound
  const MoveSettings& m = settings.movement;
  const double dt = move.dt, v0 = move.vertical_speed;
  // A grounded agent may take off at up to jump_speed; resting on the ground stops a fall
  // (the solver sets a grounded agent's downward speed to 0).
  const double fastest_up = grounded ? std::max(v0, double(settings.jump_speed)) : v0;
  const double slowest = grounded && v0 <= 0 ? 0.0 : v0;
  const double fall = std::min(std::max(slowest - m.gravity * dt, -double(m.max_fall_speed)) * dt, 0.0);
  const double rise = std::max(fastest_up, 0.0) * dt;
  // The solver lifts an agent it finds inside its skin back out (restore_skin: at most four
  // times skin plus backoff; a crease slide's lift is bounded the same way in practice). An
  // ellipsoid's skin reaches up to skin r_max / r_min beyond it (core/body.h).
  const Body body = body_of(move);
  const double skin = body.is_capsule() ? double(m.skin) : double(skin_reach(body, m.skin));
  const double push = in_skin ? 4.0 * (skin + m.backoff) : 0.0;
  const double slack = double(settings.tolerance) + skin + m.backoff + push;
  const double h = std::hypot(double(move.motion.x), double(move.motion.z));
  // 90 degrees makes walls walkable: tan is then unbounded, and so is the climb.
  const double slope = m.max_slope_degrees >= 90.f ? INFINITY : std::tan(m.max_slope_degrees * std::numbers::pi / 180);
  const double ramp = h > 0 ? h * slope : 0.0;
  // The walk follows any walkable plane it meets, in the air too; steps and snaps need ground.
  // A snap reaches at least ground_distance (the probe's reach), even with snapping off.
  const double snap = std::max(m.snap_distance, m.ground_distance);
  const double climb = ramp + (grounded ? m.step_height : 0.0);
  const double descend = ramp + (grounded ? double(m.step_height) + snap : 0.0);
  a.up = float(rise + climb + slack);
  a.down = float(fall - descend - slack);
  // A fall of reach f (gravity's, or the snap's for a grounded agent) that slides down a face
  // at angle b from the vertical travels f cos b, of which f cos b sin b sideways and f cos^2 b
  // down: the sideways part is sqrt(down (f - down)), below sqrt(down f) for any face or crease.
  const double down = std::max(-double(move.motion.y), 0.0);
  const double slide = std::sqrt(down * (-fall + (grounded ? snap : 0.0)));
  if (settings.max_speed > 0) a.horizontal = float(double(settings.max_speed) * dt + slide + settings.tolerance + push);
  return a;
}

}  // namespace capsweep
