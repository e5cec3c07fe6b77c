// The agents the movement tests stand on their small worlds: a 1.8 m person (radius 0.35 m,
// 1.1 m axis) 2 cm above the ground, moving alone.
#pragma once

#include <capsweep/move.h>

namespace people {

inline constexpr float kR = 0.35f;
inline constexpr float kAxis = 1.1f;

// A person whose bottom sphere is 2 cm above the height `ground` at (x, z).
inline capsweep::Agent person(float x, float ground, float z, const capsweep::Vec3& walk = {}) {
  capsweep::Agent a;
  a.capsule = {{x, ground + kR + 0.02f, z}, {x, ground + kR + 0.02f + kAxis, z}, kR};
  a.displacement = walk;
  return a;
}

// The movement settings with other agents not colliding (one agent per test, or passing through).
inline capsweep::MoveSettings alone() {
  capsweep::MoveSettings s;
  s.agents_collide = false;
  return s;
}

}  // namespace people
