// Genuine tick streams and the cheats of issue 36, measured: a crowd (capsules and ellipsoids,
// agents colliding, walking 1-3 m/s, jumping now and then) runs World::move tick after tick; a
// server judges each agent's tick as a claim (World::validate, ClaimRule::tick_end) with only what
// it has: the tick's start and end and the state the last verdict carried. Every genuine tick the
// validator flags is a false flag. Every `cheat_every` ticks each agent's genuine claim that was
// ok is turned into one cheat (substituted in that tick's batch, the other claims unchanged) and
// judged again: caught when the verdict is not ok, named when its reason is the class's own.
//
// The cheats and their margins beyond the allowance (`allowed` of the genuine claim's verdict,
// dt the tick, jump the crowd's jump speed, u the horizontal direction of the tick: the one it
// wanted when it ended against a wall, else the one it moved in, else a seeded random one):
//   speed          the horizontal part stretched along its own direction to
//                  max(1.25 allowed.horizontal, allowed.horizontal + 0.1 m); vertical part kept.
//   teleport       5 m added along u to the genuine motion.
//   fly            an airborne tick (the carried state not grounded, and still in the air at its
//                  end) claiming dy = max(0, allowed.up) + 0.05 m: no drop, or rising 5 cm above
//                  what its vertical speed allows; horizontal part kept.
//   super_jump     from the ground (carried grounded, v0 <= 0), not against a wall:
//                  dy = max(1.5 jump dt, allowed.up) + 0.05 m; horizontal part kept.
//   wall_climb     the same rise from the ground, on genuine ticks that ended against a steep
//                  face (a sweep from the end along u meets a face with |n.y| < 0.3 within 5 cm).
//   noclip         those same ticks ending against a wall: the motion continued along u to the
//                  face and p beyond it, p = 0.1 m, or less so that the horizontal part stays
//                  within allowed.horizontal (only the path can catch it); ticks where p would be
//                  under 0.02 m (twice the tolerance) are not used.
//   under_the_map  from the ground: the end 2 m below the start (through the floor), horizontal
//                  part kept.
//   start_in_wall  from the ground: the start (and the claimed end with it) moved 0.3 m down,
//                  into the floor it stood on (30 tolerances deep).
// Every agent offered a cheat gets exactly one: fly when airborne; wall_climb or noclip (in turn)
// when against a wall; else speed, teleport, super_jump, under_the_map, start_in_wall in turn.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <capsweep/validate.h>
#include <capsweep/world.h>

#include "tools/crowd.h"

namespace capsweep {

enum class Cheat : std::uint8_t { speed, teleport, fly, super_jump, wall_climb, noclip, under_the_map, start_in_wall };
inline constexpr std::size_t kCheats = 8;
const char* name(Cheat cheat);
Reason expected_reason(Cheat cheat);
const char* margin_of(Cheat cheat);  // the margin above, in a few words

struct ClaimStreamSettings {
  float rate_hz = 60;  // ticks per second
  std::size_t agents = 300;
  float seconds = 10;  // of crowd time
  std::uint64_t seed = 1;
  float min_speed = 1, max_speed = 3;  // m/s; the validator's limit is 1.1 x max_speed
  float jump_speed = 4;                // m/s (ValidateSettings::jump_speed too)
  float jump_chance = 0.2f;            // per second, per grounded agent
  std::size_t cheat_every = 10;        // ticks between cheat samples (0: no cheats)
  std::size_t examples_kept = 16;      // false flags and missed cheats kept, the first ones
};

// The claim a server sees of agent i's last tick in `crowd`: where it started and ended, over dt,
// with the state the server carries for it.
ClaimedMove tick_claim(const Crowd& crowd, std::size_t i, float dt, const CarriedState& state);

// One judged claim, for a printout: the tick, the agent, the claim and its verdict.
struct JudgedClaim {
  std::uint64_t tick = 0;
  std::size_t agent = 0;
  std::uint8_t flags = 0;  // the MoveResult's flags of the genuine tick
  // The agent's own state at the start of the tick (what the crowd knew; the claim carries what
  // the verdicts carried): a false flag where the two differ is the carried state's.
  float true_vertical_speed = 0;
  bool true_grounded = false;
  ClaimedMove claim;
  Verdict verdict;
};
std::string describe(const JudgedClaim& j);

struct CheatTally {
  std::uint64_t tried = 0, caught = 0, named = 0;
  // Missed cheats whose start the validator found inside the solver's skin (Verdict::in_skin):
  // their allowance grew by the push, 4 (skin + backoff), beyond the genuine claim's.
  std::uint64_t missed_in_skin = 0;
  std::array<std::uint64_t, 11> by_reason{};  // indexed by Reason
  std::vector<JudgedClaim> missed;            // not caught, the first examples_kept
};

struct ClaimStreamReport {
  std::uint64_t genuine = 0, flagged = 0;
  std::array<std::uint64_t, 11> flagged_by_reason{};  // indexed by Reason
  std::vector<JudgedClaim> false_flags;               // the first examples_kept
  std::uint64_t steps = 0, snaps = 0, airborne = 0, jumps = 0, respawns = 0;
  std::array<CheatTally, kCheats> cheats;
  double validate_seconds = 0;  // time inside World::validate on genuine batches
};

// The batches a stream judged, for a benchmark: each tick's genuine claims (with the states
// carried), and each cheat tick's batch (the genuine claims with the cheats substituted).
struct ClaimBatches {
  std::vector<std::vector<ClaimedMove>> genuine, with_cheats;
};

// The settings the stream's claims are judged with: the crowd's movement, max_speed 1.1 x the
// fastest walker, the crowd's jump speed.
ValidateSettings stream_validate_settings(const ClaimStreamSettings& settings);

// Runs the stream on `world` (the crowd spawns up to capacity, at most `agents`); `keep`, when
// given, receives the batches.
ClaimStreamReport run_claim_stream(const World& world, const ClaimStreamSettings& settings, ClaimBatches* keep = nullptr);

}  // namespace capsweep
