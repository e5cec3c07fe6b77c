// The one check of MoveSettings and ValidateSettings, next to nothing but them: World, the C API
// and the service refuse bad settings with the same words.
#include <cmath>
#include <string>

#include <capsweep/move.h>
#include <capsweep/validate.h>

#include "core/body.h"

namespace capsweep {

namespace {

// A setting within [lo, hi] (finite), or why not (the first such field only).
void check_range(std::string& why, const char* name, double value, double lo, double hi) {
  if (why.empty() && !(value >= lo && value <= hi)) {
    why = std::string("settings: ") + name + " must be within [" + std::to_string(lo) + ", " + std::to_string(hi) +
          "], got " + std::to_string(value);
  }
}

}  // namespace

std::string check_settings(const MoveSettings& m) {
  std::string why;
  check_range(why, "skin", m.skin, 0, 1);
  check_range(why, "backoff", m.backoff, 0, 1);
  check_range(why, "max_iterations", m.max_iterations, 1, 16);
  check_range(why, "min_distance", m.min_distance, 1e-7, 1);
  check_range(why, "max_depenetration_iterations", m.max_depenetration_iterations, 0, 16);
  check_range(why, "max_slope_degrees", m.max_slope_degrees, 0, 90);
  check_range(why, "step_height", m.step_height, 0, 100);
  check_range(why, "snap_distance", m.snap_distance, 0, 100);
  check_range(why, "ground_distance", m.ground_distance, 0, 1);
  check_range(why, "gravity", m.gravity, 0, 1000);
  check_range(why, "max_fall_speed", m.max_fall_speed, 0, 10000);
  check_range(why, "dt", m.dt, 1e-6, 10);
  return why;
}

std::string check_settings(const ValidateSettings& v) {
  std::string why;
  check_range(why, "tolerance", v.tolerance, 0, 1);
  // No limit only by name (kNoSpeedLimit): a 0 left by a zero-filled struct is not "none".
  if (why.empty() && !(v.max_speed == kNoSpeedLimit || (v.max_speed > 0 && v.max_speed <= 1e6))) {
    why = "settings: max_speed must be within (0, 1e6] m/s, or kNoSpeedLimit (infinity) for no limit, got " +
          std::to_string(v.max_speed);
  }
  check_range(why, "jump_speed", v.jump_speed, 0, 1e6);
  return why.empty() ? check_settings(v.movement) : why;
}

std::string check_claims(std::span<const ClaimedMove> moves, const ValidateSettings& settings) {
  for (std::size_t i = 0; i < moves.size(); ++i) {
    const ClaimedMove& m = moves[i];
    const float thinnest = m.shape == AgentShape::ellipsoid ? smallest_radius(m.ellipsoid) : m.from.radius;
    // A finite body only: a bad body is the claim's own error (its verdict says so).
    if (std::isfinite(thinnest) && thinnest > 0 && !(settings.tolerance < thinnest)) {
      return "settings: tolerance " + std::to_string(settings.tolerance) + " m is not below claim " + std::to_string(i) +
             "'s radius " + std::to_string(thinnest) + " m";
    }
  }
  return "";
}

}  // namespace capsweep
