// Server-side move validation: was the move a client claims possible?
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string>

#include <capsweep/move.h>
#include <capsweep/values.h>

namespace capsweep {

// A claimed move: where the agent was at the end of its last accepted tick, where it claims to
// be now (`from` moved by `motion`), over dt seconds, with the state the server carries from that
// tick (the last verdict's `next`, or the MoveResult it accepted): vertical speed, grounded and
// the ground triangle. That state bounds the vertical part of the move: a grounded agent climbs
// steps and slopes and may jump, an airborne one follows gravity.
struct ClaimedMove {
  Capsule from;  // a capsule agent's body at its last accepted position
  Vec3 motion;
  float dt = 0.f;              // seconds; 0 = unknown (no speed check, horizontal or vertical)
  float vertical_speed = 0.f;  // m/s, up positive, at `from` (CarriedState::vertical_speed)
  bool grounded = false;       // standing at `from` (CarriedState::grounded). False is not
                               // trusted blindly: the validator then probes for ground itself
  std::uint32_t layers = kAllLayers;  // the agent's layers (Agent::layers): what the claim is judged against
  AgentShape shape = AgentShape::capsule;  // which of `from` and `ellipsoid` is the agent's body
  Ellipsoid ellipsoid{};  // an ellipsoid agent's body at its last accepted position
  // The triangle it stood on at `from` (CarriedState::ground_triangle), or kNoTriangle. A hint,
  // as Agent::ground_triangle is: checked, never trusted.
  std::uint32_t ground_triangle = kNoTriangle;
};

// How a claim's path is judged (ValidateSettings::rule; docs/VALIDATION.md says it precisely).
enum class ClaimRule : std::uint8_t {
  // The claim is where a tick ended, which is what a server sees: ok when the movement solver
  // could have got there, along any path of the moves it makes (the straight line; walk then
  // snap or fall; rise then walk; step up, walk, step down; its own collide-and-slide from the
  // start, then a straight piece to the claim).
  tick_end,
  // The claim is one straight piece the client travelled (a client that sends its segments,
  // MoveSegments): ok only when that straight path is free.
  straight_segment,
};

// A horizontal speed limit that is no limit, asked for by name (ValidateSettings::max_speed).
inline constexpr float kNoSpeedLimit = INFINITY;
// The default limit, m/s: a sprinting person's 6 m/s and a sixth for the clients' own rounding
// and timing. A game sets its own (its fastest legal speed, with its own margin).
inline constexpr float kDefaultMaxSpeed = 7.f;

struct ValidateSettings {
  // How far a claim may graze into geometry, metres: paths are swept with the capsule (or every
  // radius of the ellipsoid) shrunk by this much. Covers client-side float error and skins; 1 cm
  // by default. It must be smaller than every radius of the body (else World::validate throws).
  float tolerance = 0.01f;
  // Fastest legal speed over the horizontal part of the move, m/s (> 0). kNoSpeedLimit for none.
  float max_speed = kDefaultMaxSpeed;
  // Fastest take-off of a jump, m/s upward, from the ground; 0 = agents do not jump.
  float jump_speed = 0.f;
  ClaimRule rule = ClaimRule::tick_end;
  // The movement settings: gravity, max_fall_speed, step_height, snap_distance,
  // max_slope_degrees, skin, backoff and ground_distance bound the vertical part of a move (see
  // MoveAllowance); all of them drive the correction (where collide-and-slide would have got to).
  MoveSettings movement;
};

// Why the settings cannot be used ("" when they can): tolerance within [0, 1] m, max_speed within
// (0, 1e6] m/s or kNoSpeedLimit, jump_speed within [0, 1e6] m/s, then the movement settings
// (check_settings of move.h).
std::string check_settings(const ValidateSettings& settings);

// Why these settings cannot judge these claims ("" when they can): the tolerance must leave each
// claim a body to sweep, so it must be below every finite capsule radius and ellipsoid's smallest
// radius. The message names the first claim that has none. World::validate throws it; the
// service refuses the batch with it before judging any claim.
std::string check_claims(std::span<const ClaimedMove> moves, const ValidateSettings& settings);

// What the validator found at the two ends of a claim, which the allowance depends on.
struct ClaimEnds {
  bool grounded = false;      // the start stood on walkable ground (the claim's flag or a probe)
  bool in_skin = false;       // the start lay inside the solver's skin (it then pushes out)
  bool end_grounded = false;  // walkable ground lies under the claimed end (it landed or stepped)
  bool end_touches = false;   // the claimed end touches geometry (a face stopped or turned it)
  bool in_skin_sideways = false;  // in_skin, and not only the ground's below: pushed sideways too
  // in_skin: the largest upward part (n.y, at most 1) of the normals of the faces whose skin the
  // start lies in, which bounds how far the push lifts it (a wall's pushes it sideways only).
  float push_up = 1.f;
  // in_skin: every face within the push's reach (4 (skin + backoff) + skin) lies in one plane,
  // so the solver's push is one, at most skin + backoff deep (else up to four times that).
  bool one_plane = false;
};

// How far a claimed move may go in dt seconds, metres: the horizontal length and the window of
// the vertical part. Unbounded (infinite) where dt is 0, and horizontally under kNoSpeedLimit.
// With v0 the vertical speed at the start, g gravity, h and y the claim's horizontal length and
// vertical part, ramp = h tan(max_slope), snap = max(snap_distance, ground_distance),
// fall(v) = min(max(v - g dt, -max_fall_speed) dt, 0) the furthest drop under gravity, and
// slack = tolerance + skin + backoff + push, under ClaimRule::tick_end:
//   walking (grounded, v0 <= 0; the solver stands it still vertically):
//     up   = max([end_grounded] (ramp + step_height) or [end_touches] ramp, [jump_speed > 0] (jump_speed dt +
//            ramp)) + slack
//     down = fall(0) - ramp - step_height - snap - slack
//   in the air (not grounded, or rising):
//     up   = v0 dt + slack, or where something stopped or turned the fall (end_grounded or
//            end_touches: ground, or steep faces it slides down or is held by) max(v0, 0) dt + ramp + slack
//     down = -max_fall_speed dt - ramp - slack (v0, what the verdicts carry, bounds the speed from
//            above: after a fall was turned the solver's may be lower, so only terminal speed bounds a drop)
//   horizontal = max_speed dt + [end_grounded or end_touches] max(-y, 0) / tan(max_slope) + tolerance
//                + [in_skin_sideways] push
// A climb (a ramp's or a step's) needs ground under the end: a rise ending in the air is a
// jump's, and one from the air is what its speed gives, so fly and phantom steps are caught away
// from geometry (a claim ending against a face may have been held there: not a fly). A drop
// turned by a face steeper than walkable goes sideways at most drop / tan(max_slope): only a
// claim ending on ground or against something has it, so a dip in open air buys no speed.
// Under ClaimRule::straight_segment (a piece of a tick, whose ends say nothing of its tick) the
// window is the whole tick's: up = max([grounded] max(v0, jump_speed), v0, 0) dt + ramp +
// [grounded] step_height + slack, down = fall - ramp - [grounded] (step_height + snap) - slack, and
// the slide always counts.
// push = 4 (skin + backoff) only `in_skin` (the solver lifts the agent back out, in any
// direction), or skin + backoff where `one_plane`. For an ellipsoid agent, `skin` is how far its
// skin reaches, skin r_max / r_min.
// Both integrators games use (v dt before or after gravity) stay inside.
struct MoveAllowance {
  float horizontal = INFINITY;
  float down = -INFINITY;
  float up = INFINITY;
};
MoveAllowance allowance(const ClaimedMove& move, const ValidateSettings& settings, const ClaimEnds& ends);

enum class VerdictKind : std::uint8_t {
  ok,              // the solver could have got there (tick_end), or the straight path is free
  blocked,         // no free path: see hit and legal_fraction (the straight path's first contact)
  start_overlaps,  // the claimed start is inside geometry
  too_fast,        // outside its MoveAllowance: too far horizontally, or up or down
  refused,         // bad input (NaN/Inf, radius, range): see status
};
const char* name(VerdictKind kind);

// Why a claim is not ok, in the terms of the cheats a server logs (docs/VALIDATION.md). Each
// names the number that decided it: Verdict::claimed against Verdict::limit.
enum class Reason : std::uint8_t {
  none,           // ok
  speed,          // too_fast: horizontally farther than allowed (metres)
  teleport,       // too_fast: farther than allowed by more than 1 m and the allowance again (metres)
  fly,            // too_fast: airborne and higher than gravity allows (the vertical part, metres)
  super_jump,     // too_fast: from the ground, higher than a jump or a step allows, ending in the air
  wall_climb,     // too_fast: from the ground, higher than allowed, ending against a steep face
  fast_fall,      // too_fast: lower than terminal speed, or a walk and the ground, allow (metres)
  noclip,         // blocked: through geometry (the free fraction of the straight path against 1)
  under_the_map,  // blocked: ending inside geometry, or below the world with no free path there
  start_in_wall,  // start_overlaps: the start is inside geometry (its depth against the tolerance)
  bad_input,      // refused: see Verdict::status
};
const char* name(Reason reason);

// What a server carries from an accepted tick into the next claim (ClaimedMove's vertical_speed,
// grounded and ground_triangle): where the tick ends, as the solver would end it.
struct CarriedState {
  float vertical_speed = 0.f;  // m/s, up positive
  bool grounded = false;
  std::uint32_t ground_triangle = kNoTriangle;
};

struct Verdict {
  VerdictKind kind = VerdictKind::ok;
  Status status = Status::ok;
  Reason reason = Reason::none;
  float claimed = 0.f;         // the claimed quantity that decided a verdict not ok (see Reason)
  float limit = 0.f;           // and its limit
  SweepHit hit;                // blocked: the straight path's first contact (of the shrunk body)
  float legal_fraction = 1.f;  // how much of the straight path is free (blocked: hit.t)
  Capsule furthest;            // the capsule at the end of the free part of the straight path
  Capsule corrected;           // where collide-and-slide takes the capsule (ok: the claim itself)
  bool grounded = false;       // whether the move counted as starting on the ground (the claim's
                               // flag, or the validator's own probe found walkable ground)
  bool in_skin = false;        // whether it counted as starting inside the solver's skin
  MoveAllowance allowed;       // what the move could cover (infinite where not checked)
  // The state to carry into the next claim: at the claimed end (ok), or at `corrected` (any
  // other verdict, where a server puts the agent back).
  CarriedState next;
  // For an ellipsoid agent's claim: the ellipsoid at the end of the free part and where
  // collide-and-slide takes it (`furthest` and `corrected` then hold the capsules holding them).
  Ellipsoid furthest_ellipsoid{};
  Ellipsoid corrected_ellipsoid{};
};

}  // namespace capsweep
