// The closest-hit collector every sweep of the world fills (Jolt's ClosestHitCollisionCollector is
// the idea): the best hit so far among the contacts a query keeps, and the early-out time it
// gives the walk. Capsules, rays and ellipsoids, on every path, in the per-query walk and in the
// lane pool, offer their contacts to one of these. Internal to world/.
#pragma once

#include <capsweep/sweep.h>
#include <capsweep/world.h>

#include "world/world_arrays.h"

namespace capsweep {

// Keeps every contact (World::sweep, World::sweep_ellipsoid).
struct KeepAll {
  bool operator()(SweepHit&) const { return true; }
};

// Keeps the contacts a motion moves into (sweep_approaching, sweep_ellipsoid_approaching): the
// distance to a triangle is convex along the path, so a contact whose normal does not oppose the
// motion is passed through. On a seam the face normal replaces the contact's (seam_normal), for a
// body whose radius is `radius` (an ellipsoid's largest: the seam rule's bound for any
// direction; the sign of the world normal against the motion is the sign of the eSpace normal
// against the eSpace motion). `layers`: the walk's mask (walk_layers), so that a neighbour the
// sweep does not see makes no seam.
// (No member initializers: a chunk keeps an uninitialized array of collectors of these.)
struct KeepApproaching {
  const WorldArrays* arrays;  // the world's, or an agent's copy of them (WorldArrays::near)
  Vec3 motion;
  float radius;
  std::uint32_t layers;
  bool operator()(SweepHit& h) const;  // world_collider.cpp, beside seam_normal
};

// One query's closest hit: the least by is_better_hit of the contacts offered that `keep`
// passes, written into the caller's SweepHit as it improves.
template <class Keep>
class ClosestHit {
 public:
  ClosestHit() = default;  // a chunk's slot, set before its walk
  ClosestHit(SweepHit& best, const Keep& keep) : best_(&best), keep_(keep) {}

  void offer(SweepHit& h) {
    if (h.hit && is_better_hit(h, *best_) && keep_(h)) *best_ = h;
  }
  // Whether a lane the full kernel entered at t may still beat the best: its time rounds to no
  // later than the best's (a tie may still win on depth or index).
  bool may_beat(double t) const { return t <= 1.0 && !(best_->hit && round_time_down(t) > best_->t); }
  bool found() const { return best_->hit; }
  // The early-out fraction: a node or lane entered later holds only worse answers.
  float early_out() const { return best_->t; }

 private:
  SweepHit* best_;
  Keep keep_;
};

// The path a solver's sweep takes: brute force checks batches against the walk, so a solver
// asked for it walks the scalar path, which answers the same.
inline SweepPath solver_path(SweepPath path) { return path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar; }

}  // namespace capsweep
