// Server-side move validation: was the move a client claims possible?
#pragma once

#include <cstdint>
#include <string>

#include <capsweep/move.h>
#include <capsweep/status.h>
#include <capsweep/sweep_hit.h>

namespace capsweep {

// A claimed move: the capsule at its last accepted position and the displacement the client
// claims since then, over dt seconds.
struct ClaimedMove {
  Capsule from;
  Vec3 motion;
  float dt = 0.f;  // seconds; 0 = unknown (no speed check)
};

struct ValidateSettings {
  // How far a claim may graze into geometry, metres: the straight path is swept with the
  // capsule shrunk by this much. Covers client-side float error and skins; 1 cm by default.
  float tolerance = 0.01f;
  // Fastest legal speed, m/s (over the straight distance); 0 = no limit.
  float max_speed = 0.f;
  // The movement settings of the correction (where collide-and-slide would have got to).
  MoveSettings movement;
};

// Why the settings cannot be used ("" when they can): tolerance within [0, 1] m, max_speed
// within [0, 1e6] m/s, then the movement settings (check_settings of move.h).
std::string check_settings(const ValidateSettings& settings);

enum class VerdictKind : std::uint8_t {
  ok,              // the straight path is free
  blocked,         // the straight path hits geometry: see hit and legal_fraction
  start_overlaps,  // the claimed start is inside geometry
  too_fast,        // longer than max_speed * dt
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
};

}  // namespace capsweep
