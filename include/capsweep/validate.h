// Server-side move validation: was the move a client claims possible?
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <capsweep/move.h>
#include <capsweep/values.h>

namespace capsweep {

// A claimed move: the capsule at its last accepted position and the displacement the client
// claims since then, over dt seconds, with what the server knew of the agent there (its last
// accepted vertical speed and whether it stood on the ground). That state bounds the vertical
// part of the move: a grounded agent climbs steps and slopes and may jump, a falling one only
// follows gravity. A server keeps it from the MoveResult it accepted (vertical_speed, grounded).
struct ClaimedMove {
  Capsule from;  // a capsule agent's body at its last accepted position
  Vec3 motion;
  float dt = 0.f;              // seconds; 0 = unknown (no speed check, horizontal or vertical)
  float vertical_speed = 0.f;  // m/s, up positive, at `from` (MoveResult::vertical_speed)
  bool grounded = false;       // standing at `from` (MoveResult::grounded). False is not
                               // trusted blindly: the validator then probes for ground itself
  std::uint32_t layers = kAllLayers;  // the agent's layers (Agent::layers): what the claim is judged against
  AgentShape shape = AgentShape::capsule;  // which of `from` and `ellipsoid` is the agent's body
  Ellipsoid ellipsoid{};  // an ellipsoid agent's body at its last accepted position
};

struct ValidateSettings {
  // How far a claim may graze into geometry, metres: the straight path is swept with the
  // capsule (or every radius of the ellipsoid) shrunk by this much. Covers client-side float
  // error and skins; 1 cm by default. It must be smaller than every radius of the body.
  float tolerance = 0.01f;
  // Fastest legal walking speed, m/s, over the horizontal part of the move; 0 = no limit.
  float max_speed = 0.f;
  // Fastest take-off of a jump, m/s upward, from the ground; 0 = agents do not jump.
  float jump_speed = 0.f;
  // The movement settings: gravity, max_fall_speed, step_height, snap_distance,
  // max_slope_degrees, skin, backoff and ground_distance bound the vertical part of a move (see
  // MoveAllowance); all of them drive the correction (where collide-and-slide would have got to).
  MoveSettings movement;
};

// Why the settings cannot be used ("" when they can): tolerance within [0, 1] m, max_speed and
// jump_speed within [0, 1e6] m/s, then the movement settings (check_settings of move.h).
std::string check_settings(const ValidateSettings& settings);

// How far a claimed move may go in dt seconds, metres: the horizontal length and the window of
// the vertical part (down <= 0 <= up). Unbounded (infinite) where dt is 0, and horizontally
// where max_speed is 0. With v0 the vertical speed at the start (a grounded agent's may be
// anything up to jump_speed, and never below 0), g gravity, h and y the claim's horizontal
// length and vertical part:
//   horizontal = max_speed dt + sqrt(max(-y, 0) (|fall| + [grounded] snap)) + tolerance + push
//   up         = max(v0, 0) dt + h tan(max_slope) + [grounded] step_height + slack
//   down       = fall - h tan(max_slope) - [grounded] (step_height + snap) - slack
// where fall = min(max(v0 - g dt, -max_fall_speed) dt, 0) is the furthest drop under gravity
// (a fall or a snap sliding down a steep face or crease turns part of its reach f sideways,
// at most sqrt(drop f)), the ramp term is a walk following a walkable plane (in the air too),
// the grounded terms are stairs and following the ground down (a step climbed, then snapped
// down onto; snap = max(snap_distance, ground_distance)), slack = tolerance + skin + backoff + push covers
// the solver leaving the skin it keeps from surfaces, and push = 4 (skin + backoff) only
// `in_skin` (the move starts closer to the world than radius + skin: the solver then lifts the
// agent back out, in any direction; the validator counts a start within skin + backoff / 2,
// short of where agents rest). For an ellipsoid agent, `skin` in slack and push is how far its
// skin reaches, skin r_max / r_min (its skin is the ellipsoid scaled out by 1 + skin / r_min). Both integrators games use (v dt before or after gravity)
// stay inside.
struct MoveAllowance {
  float horizontal = INFINITY;
  float down = -INFINITY;
  float up = INFINITY;
};
MoveAllowance allowance(const ClaimedMove& move, const ValidateSettings& settings, bool grounded, bool in_skin);

enum class VerdictKind : std::uint8_t {
  ok,              // the straight path is free
  blocked,         // the straight path hits geometry: see hit and legal_fraction
  start_overlaps,  // the claimed start is inside geometry
  too_fast,        // outside its MoveAllowance: too far horizontally, or up or down
  refused,         // bad input (NaN/Inf, radius, range): see status
};
const char* name(VerdictKind kind);

struct Verdict {
  VerdictKind kind = VerdictKind::ok;
  Status status = Status::ok;
  SweepHit hit;                // blocked: the first blocking contact (of the shrunk capsule)
  float legal_fraction = 1.f;  // how much of the straight path is free (blocked: hit.t)
  Capsule furthest;            // the capsule at the end of the free part of the straight path
  Capsule corrected;           // where collide-and-slide takes the capsule (ok: the claim itself)
  bool grounded = false;       // whether the move counted as starting on the ground (the claim's
                               // flag, or the validator's own probe found walkable ground)
  bool in_skin = false;        // whether it counted as starting inside the solver's skin
  MoveAllowance allowed;       // what the move could cover (infinite where not checked)
  // For an ellipsoid agent's claim: the ellipsoid at the end of the free part and where
  // collide-and-slide takes it (`furthest` and `corrected` then hold the capsules holding them).
  Ellipsoid furthest_ellipsoid{};
  Ellipsoid corrected_ellipsoid{};
};

}  // namespace capsweep
