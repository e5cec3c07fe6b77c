// What a claimed move may cover in its dt (validate.h's MoveAllowance): the movement solver's
// own limits (core/move.cpp), read backwards. Kept beside nothing else so that the validator, the
// CLI's CSV and the tests all use the one formula.
#include <algorithm>
#include <cmath>
#include <numbers>

#include <capsweep/validate.h>

#include "core/body.h"

namespace capsweep {

MoveAllowance allowance(const ClaimedMove& move, const ValidateSettings& settings, const ClaimEnds& ends) {
  MoveAllowance a;
  if (!(move.dt > 0)) return a;  // no duration: nothing to bound
  const MoveSettings& m = settings.movement;
  const double dt = move.dt, v0 = move.vertical_speed;
  // The solver walks a grounded agent whose vertical speed is not upward (it zeroes a downward
  // one); any other falls, or rises, under gravity from v0 (semi-implicit: v0 - g dt, then the
  // drop; a game may integrate before or after, so the window holds v0 dt and (v0 - g dt) dt).
  const bool walking = ends.grounded && v0 <= 0;
  const double v = walking ? 0.0 : v0;
  const double fall = std::min(std::max(v - m.gravity * dt, -double(m.max_fall_speed)) * dt, 0.0);
  // The solver lifts an agent it finds inside its skin back out (restore_skin: at most four
  // times skin plus backoff, in any direction). An ellipsoid's skin reaches up to
  // skin r_max / r_min beyond it (core/body.h).
  const Body body = body_of(move);
  const double skin = body.is_capsule() ? double(m.skin) : double(skin_reach(body, m.skin));
  // Up to four pushes where faces meet (a crease, a wall beside the floor), one on a lone plane.
  const double push = ends.in_skin ? (ends.one_plane ? 1.0 : 4.0) * (skin + m.backoff) : 0.0;
  const double slack = double(settings.tolerance) + skin + m.backoff + push;
  const double up_slack = slack - push * (1.0 - std::clamp(double(ends.push_up), 0.0, 1.0));
  const double h = std::hypot(double(move.motion.x), double(move.motion.z));
  // 90 degrees makes walls walkable: tan is then unbounded, and so is the climb.
  const double slope = m.max_slope_degrees >= 90.f ? INFINITY : std::tan(m.max_slope_degrees * std::numbers::pi / 180);
  const double ramp = h > 0 ? h * slope : 0.0;
  // A snap reaches at least ground_distance (the probe's reach), even with snapping off.
  const double snap = std::max(m.snap_distance, m.ground_distance);
  if (settings.rule == ClaimRule::straight_segment) {
    // A piece of a tick: a step's rise (or a ramp's) ends in the air, above the step it climbs,
    // and a fall's speed is the tick's, so the window is the whole tick's, whatever the ends.
    const double fastest_up = ends.grounded ? std::max(v0, double(settings.jump_speed)) : v0;
    const double rise = std::max(fastest_up, 0.0) * dt;
    a.up = float(rise + ramp + (ends.grounded ? m.step_height : 0.0) + up_slack);
    a.down = float(fall - ramp - (ends.grounded ? double(m.step_height) + snap : 0.0) - slack);
    const double down = std::max(-double(move.motion.y), 0.0);
    const double slide = std::sqrt(down * (-fall + (ends.grounded ? snap : 0.0)));
    if (std::isfinite(settings.max_speed)) {
      a.horizontal = float(double(settings.max_speed) * dt + slide + settings.tolerance + push);
    }
    return a;
  }
  if (walking) {
    // Up a walkable plane, or a step, only onto ground: a rise that ends in the air is a jump's.
    // A jump (the caller sets an upward speed of at most jump_speed) walks without steps, up a
    // walkable plane as any walk (the solver's walk follows planes whatever the speed). A walk
    // follows a walkable plane, or a trough of steep faces whose crease is walkable, and may end
    // against them off the ground: a ramp's rise needs ground or a face at the end.
    const double climb = ends.end_grounded ? ramp + m.step_height : ends.end_touches ? ramp : 0.0;
    const double jump = settings.jump_speed > 0 ? settings.jump_speed * dt + ramp : 0.0;
    a.up = float(std::max(climb, jump) + up_slack);
    a.down = float(fall - ramp - m.step_height - snap - slack);
  } else {
    // In the air only gravity moves it vertically, unless it lands, or ends against a face:
    // ground stops a fall anywhere short of gravity's drop (and its walk follows a walkable plane
    // up); steep faces turn it (a fall slides down them) or hold it (a crease, a wedge).
    const bool stopped = ends.end_grounded || ends.end_touches;
    a.up = float((stopped ? std::max(v, 0.0) * dt + ramp : v * dt) + up_slack);
    // v0 bounds the agent's speed from above (CarriedState: where a fall was turned, the solver's
    // may be lower), so a drop is bounded by terminal speed alone.
    a.down = float(-double(m.max_fall_speed) * dt - ramp - slack);
  }
  // A drop turned sideways by a face steeper than walkable (a fall or a snap sliding down it, a
  // crease, a head) goes sideways at most drop / tan(max_slope). Only a claim ending on ground
  // or against something has it: on open ground a dip buys no speed, and a claim cannot dip
  // below the ground it ends on.
  const double down = std::max(-double(move.motion.y), 0.0);
  const double turned = ends.end_grounded || ends.end_touches ? down / std::max(slope, 1e-6) : 0.0;
  if (std::isfinite(settings.max_speed)) {
    // The push out is sideways only where the start lies in the skin of something beside it, not
    // just of the ground below (which pushes it up).
    const double sideways = ends.in_skin_sideways ? push : 0.0;
    a.horizontal = float(double(settings.max_speed) * dt + turned + settings.tolerance + sideways);
  }
  return a;
}

}  // namespace capsweep
