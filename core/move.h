// The movement solver: collide-and-slide with a skin, a ground model (gravity, walkable slopes,
// stairs, snapping) and bounded depenetration. It sees the world only through a MoveCollider,
// so it knows nothing of BVHs, SIMD or threads; World::move (broadphase/) runs it for a batch
// of agents in parallel. The types it takes and answers are public: <capsweep/move.h>.
#pragma once

#include <capsweep/move.h>

#include "core/body.h"
#include "core/solver_step.h"

namespace capsweep {

// A hit seen by the solver: a SweepHit against the world or another agent.
struct MoveHit {
  SweepHit hit;
  std::uint32_t agent = kNoAgent;
};

// The deepest overlap of a body with the world: the push that clears it.
struct MoveOverlap {
  Vec3 normal;  // unit, from the triangle toward the body
  float depth = 0.f;
  std::uint32_t triangle = kNoTriangle;
};

// What the solver asks of the world. Implemented by the world for one agent's tick. The body is
// a capsule or an ellipsoid (core/body.h); the solver passes it grown by the skin to sweeps.
class MoveCollider {
 public:
  virtual ~MoveCollider() = default;
  // The first contact the body makes while moving by `motion` *into* an obstacle: contacts
  // whose normal does not oppose the motion are passed through (along them, the distance to
  // that obstacle cannot shrink). Seams between coplanar triangles report the face normal.
  virtual void sweep(const Body& body, const Vec3& motion, MoveHit& out) const = 0;
  // The same sweep against world triangle `triangle` alone (no other triangle, no agent); no
  // hit when that triangle is not there for this agent (out of range, a hole, not on its layers).
  virtual void sweep_triangle(const Body& body, const Vec3& motion, std::uint32_t triangle, MoveHit& out) const = 0;
  // The deepest overlap of the body with the world (a capsule: distance < radius; an
  // ellipsoid: its eSpace distance < 1), if any.
  virtual bool deepest_overlap(const Body& body, MoveOverlap& out) const = 0;
  // Whether `hit` is ground one can stand on: its normal, or on an edge or vertex the face of
  // a triangle there, at least `min_up` upward. Writes that surface's normal.
  virtual bool walkable(const MoveHit& hit, float min_up, Vec3& ground_normal) const = 0;
};

// One agent's tick that stops at each world sweep and waits for its answer, so that a batch can
// answer the waiting sweeps of many agents together (World::move sweeps them through the
// engine's pooled lanes; core/solver_step.h). Everything else the tick asks of the collider
// (one-triangle sweeps, overlaps, walkable) it asks at once. Answering each wait with
// collider.sweep(body(), motion(), hit) is move_agent: the same bytes whoever answers, as long as
// the answers are the same.
class MoveInFlight {
 public:
  MoveInFlight() = default;
  MoveInFlight(const MoveInFlight&) = delete;  // its tick's stages point at it
  MoveInFlight& operator=(const MoveInFlight&) = delete;

  // Resets `result` (and `segments`) and runs the tick to its first world sweep, or to its end.
  // Everything passed must outlive the tick. What the tick throws (std::bad_alloc, from a trace's
  // scratch) start() or answer() throws, and the tick has then ended.
  void start(const MoveCollider& collider, const Agent& agent, const MoveSettings& settings, MoveResult& result,
             MoveSegments* segments = nullptr);
  bool done() const { return tick_.done(); }
  // The sweep it waits for, as MoveCollider::sweep takes it: the body grown by the skin.
  const Body& body() const { return wait_.body; }
  const Vec3& motion() const { return wait_.motion; }
  // The sweep's answer: the tick runs on to its next world sweep, or to its end.
  void answer(const MoveHit& hit);
  // Ends a waiting tick without its answers (its result is left half written): a driver leaving
  // by an exception. Nothing when it has ended.
  void abandon() { tick_ = {}; }

  // Where a waiting tick keeps its question and its answer (the solver's side).
  struct Wait {
    Body body;
    Vec3 motion;
    MoveHit answer;
    std::coroutine_handle<> resume;  // the stage waiting for the answer
  };
  // Room for the tick's solver (core/move.cpp checks that it fits).
  struct alignas(8) SolverBytes {
    unsigned char bytes[64];
  };

 private:
  void finish_if_done();  // frees an ended tick's frame; rethrows what it threw

  Wait wait_;
  SolverBytes solver_;
  detail::Step<void> tick_;
};

// One agent's tick: depenetrate, probe the ground (or check the ground it carries), walk (collide-and-slide, or step up), then
// snap to the ground or fall. `segments`, when given, receives the path travelled.
void move_agent(const MoveCollider& collider, const Agent& agent, const MoveSettings& settings, MoveResult& result,
                MoveSegments* segments = nullptr);

}  // namespace capsweep
