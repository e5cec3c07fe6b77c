// A static triangle world and the batch API over it. Built once from a triangle soup, then
// read-only: any number of threads may query it at once.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "broadphase/bvh.h"
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

// Refused input when building a world: names the triangle.
class WorldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class World {
 public:
  // Throws WorldError for an empty soup or a triangle with a non-finite or out-of-range vertex.
  // Degenerate triangles are kept (the kernels treat them as segments or points). Builds the
  // BVH (in parallel for large meshes).
  explicit World(std::vector<Triangle> triangles);

  std::size_t triangle_count() const { return triangles_.size(); }
  const std::vector<Triangle>& triangles() const { return triangles_; }
  const Aabb& bounds() const { return bounds_; }
  const Bvh& bvh() const { return bvh_; }

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

 private:
  void sweep_brute(const SweepQuery& query, SweepHit& hit) const;
  void sweep_scalar(const SweepQuery& query, SweepHit& hit, TraversalStats& stats) const;
  void sweep_simd(const SweepQuery& query, SweepHit& hit, TraversalStats& stats) const;

  std::vector<Triangle> triangles_;
  std::vector<Aabb> boxes_;
  Aabb bounds_;
  Bvh bvh_;
};

// Orders two answers to the same query: the one a batch keeps.
bool is_better_hit(const SweepHit& a, const SweepHit& b);

}  // namespace capsweep
