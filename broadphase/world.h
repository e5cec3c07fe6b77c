// A static triangle world and the batch API over it. Built once from a triangle soup, then
// read-only: any number of threads may query it at once.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "broadphase/adjacency.h"
#include "broadphase/bvh.h"
#include "broadphase/validate.h"
#include "core/contact.h"
#include "core/move.h"
#include "core/shapes.h"
#include "core/status.h"
#include "core/sweep_hit.h"

namespace capsweep {

struct SweepQuery {
  Capsule capsule;
  Vec3 motion;
};

// Which code answers a batch. Every path gives answers the exact oracle accepts; scalar and
// brute give identical bytes (same kernel, same tie rule), simd agrees within the tolerance.
enum class SweepPath {
  simd,    // the BVH, with the wide block kernel (best ISA of this CPU)
  scalar,  // the same BVH, with the exact scalar kernel of core/ per triangle
  brute,   // every triangle whose box meets the swept box, with the exact scalar kernel
};
const char* name(SweepPath path);
bool parse_sweep_path(const std::string& text, SweepPath& out);

struct SweepOptions {
  SweepPath path = SweepPath::simd;
  int threads = 0;  // worker threads; 0 = every core
};

// The same for moves and validation (brute is treated as scalar there).
using BatchOptions = SweepOptions;

// A static capsule against the world (World::overlap).
struct OverlapResult {
  bool clear = false;        // farther than the clearance from every triangle
  bool overlapping = false;  // closer than its radius to some triangle: the deepest is below
  Contact deepest;           // the deepest overlap: push-out normal and depth, closest points
  std::uint32_t triangle = kNoTriangle;
};

// Refused input when building a world: names the triangle.
class WorldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The arrays a world answers from, wherever they live: built in memory, or mapped from a
// snapshot file (broadphase/snapshot.h).
struct WorldArrays {
  std::span<const Triangle> triangles;  // the soup, in the caller's order (hits name these indices)
  std::span<const Aabb> boxes;          // one box per triangle
  Aabb bounds;                          // of every triangle
  BvhView bvh;
  std::span<const TriangleLinks> links;  // one per triangle
};

class World {
 public:
  // Throws WorldError for an empty soup or a triangle with a non-finite or out-of-range vertex.
  // Degenerate triangles are kept (the kernels treat them as segments or points). Builds the
  // BVH (in parallel for large meshes).
  explicit World(std::vector<Triangle> triangles);

  // A world over arrays that `owner` keeps alive (a mapped snapshot). The arrays must be
  // consistent; load_snapshot checks every index in them before it calls this.
  World(const WorldArrays& arrays, std::shared_ptr<const void> owner);

  std::size_t triangle_count() const { return triangles_.size(); }
  std::span<const Triangle> triangles() const { return triangles_; }
  const Aabb& bounds() const { return bounds_; }
  const BvhView& bvh() const { return bvh_; }
  std::span<const TriangleLinks> links() const { return links_; }
  WorldArrays arrays() const { return {triangles_, boxes_, bounds_, bvh_, links_}; }

  // Answers queries[i] into hits[i] (sizes must match). The first contact over all triangles
  // wins; among equal t, the deeper start overlap, then the lower triangle index, so answers do
  // not depend on thread count or query order. A refused query gets a miss, and its reason in
  // status[i] when `status` is given (else only the count returned says so).
  // Returns the number of refused queries.
  std::size_t sweep(std::span<const SweepQuery> queries, std::span<SweepHit> hits, const SweepOptions& options = {},
                    std::span<Status> status = {}) const;

  // One query on the calling thread; `stats`, when given, accumulates what the BVH walk touched.
  Status sweep_one(const SweepQuery& query, SweepHit& hit, SweepPath path = SweepPath::simd,
                   TraversalStats* stats = nullptr) const;

  // Whether the capsule is farther than `clearance` from every triangle (surface to surface).
  bool is_clear(const Capsule& capsule, float clearance) const;

  // Static capsules against the world, in parallel (results[i] for capsules[i]): is_clear with
  // `clearance` (finite and >= 0, else std::invalid_argument) and deepest_overlap. A refused
  // capsule (NaN/Inf, radius <= 0, out of range) is neither clear nor overlapping; its status
  // says why. Returns the number refused.
  std::size_t overlap(std::span<const Capsule> capsules, float clearance, std::span<OverlapResult> results,
                      const BatchOptions& options = {}, std::span<Status> status = {}) const;

  // --- Movement (world_move.cpp) ---

  // One tick for a batch of agents (results[i] for agents[i]; `segments`, when not empty,
  // receives each agent's travelled path). Every agent moves against the static world and
  // against the other agents as they stood at the start of the tick; an agent whose end
  // position would overlap another's stays where it was (kMoveHeldByAgents). Results are
  // bit-identical for any thread count and any order of the agents. Agents with bad input
  // (NaN/Inf, radius <= 0, out of range) stay put; their status says why. Returns their count.
  std::size_t move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                   const BatchOptions& options = {}, std::span<MoveSegments> segments = {},
                   std::span<Status> status = {}) const;

  // Judges claimed moves (verdicts[i] for moves[i]); parallel and deterministic like move.
  void validate(std::span<const ClaimedMove> moves, const ValidateSettings& settings, std::span<Verdict> verdicts,
                const BatchOptions& options = {}) const;

  // The movement solver's sweep: the first contact the capsule moves *into*. A contact whose
  // normal does not oppose the motion is passed through: the distance to that triangle is
  // convex along the path, so it cannot shrink from there on. On a seam between coplanar
  // triangles the face normal is used (and reported), where that keeps the exactness tolerance.
  Status sweep_approaching(const SweepQuery& query, SweepHit& hit, SweepPath path = SweepPath::simd,
                           TraversalStats* stats = nullptr) const;

  // Replaces the normal of a contact on a seam (an edge or vertex inside a flat surface) by the
  // face normal, when that keeps the tolerance for a capsule of this radius.
  void seam_normal(SweepHit& hit, float radius) const;

  // The triangle the capsule overlaps deepest (smallest distance < radius; for crossing axes
  // the largest push-out), with the push-out contact. False when it overlaps nothing.
  bool deepest_overlap(const Capsule& capsule, Contact& contact, std::uint32_t& triangle) const;

  // Whether a contact is ground to stand on: its normal is at least `min_up` upward, or, on an
  // edge or vertex, one of the faces meeting there is (the top of a step touched on its rim).
  bool walkable(const SweepHit& hit, float min_up, Vec3& ground_normal) const;

 private:
  // Calls visit(triangle, contact) for every triangle whose box meets the capsule's box grown
  // by `clearance`, with their discrete contact; visit returns true to stop (traverse.h).
  template <class Visit>
  void for_each_contact(const Capsule& capsule, float clearance, Visit&& visit) const;
  void sweep_brute(const SweepQuery& query, SweepHit& hit) const;
  template <class Keep>
  void sweep_scalar(const SweepQuery& query, SweepHit& hit, TraversalStats& stats, const Keep& keep) const;
  template <class Keep>
  void sweep_simd(const SweepQuery& query, SweepHit& hit, TraversalStats& stats, const Keep& keep) const;

  std::shared_ptr<const void> owner_;  // keeps the arrays below alive; a World copies cheaply
  std::span<const Triangle> triangles_;
  std::span<const Aabb> boxes_;
  Aabb bounds_;
  BvhView bvh_;
  std::span<const TriangleLinks> links_;
};

// Orders two answers to the same query: the one a batch keeps.
bool is_better_hit(const SweepHit& a, const SweepHit& b);

}  // namespace capsweep
