// The movement solver: collide-and-slide with a skin, a ground model (gravity, walkable slopes,
// stairs, snapping) and bounded depenetration. It sees the world only through a MoveCollider,
// so it knows nothing of BVHs, SIMD or threads; World::move (broadphase/) runs it for a batch
// of agents in parallel. The types it takes and answers are public: <capsweep/move.h>.
#pragma once

#include <capsweep/move.h>

namespace capsweep {

// A hit seen by the solver: a SweepHit against the world or another agent.
struct MoveHit {
  SweepHit hit;
  std::uint32_t agent = kNoAgent;
};

// What the solver asks of the world. Implemented by the world for one agent's tick.
class MoveCollider {
 public:
  virtual ~MoveCollider() = default;
  // The first contact the capsule makes while moving by `motion` *into* an obstacle: contacts
  // whose normal does not oppose the motion are passed through (along them, the distance to
  // that obstacle cannot shrink). Seams between coplanar triangles report the face normal.
  virtual void sweep(const Capsule& capsule, const Vec3& motion, MoveHit& out) const = 0;
  // The deepest overlap of the capsule with the world (distance < radius), if any.
  virtual bool deepest_overlap(const Capsule& capsule, Contact& out, std::uint32_t& triangle) const = 0;
  // Whether `hit` is ground one can stand on: its normal, or on an edge or vertex the face of
  // a triangle there, at least `min_up` upward. Writes that surface's normal.
  virtual bool walkable(const MoveHit& hit, float min_up, Vec3& ground_normal) const = 0;
};

// One agent's tick: depenetrate, probe the ground, walk (collide-and-slide, or step up), then
// snap to the ground or fall. `segments`, when given, receives the path travelled.
void move_agent(const MoveCollider& collider, const Agent& agent, const MoveSettings& settings, MoveResult& result,
                MoveSegments* segments = nullptr);

}  // namespace capsweep
