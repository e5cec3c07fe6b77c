// World::sweep_ellipsoid: moving ellipsoids against the world. The broad phase walks the BVH
// with the ellipsoid's bounding capsule (which holds it, so no triangle it touches is skipped);
// each candidate triangle that the ellipsoid's own swept box meets goes to the exact eSpace
// kernel (core/sweep_ellipsoid.cpp). Every path therefore runs the same per-triangle function,
// and the best hit is the least by is_better_hit in any order: the paths give the same bytes.
#include <capsweep/world.h>

#include <atomic>
#include <bit>
#include <stdexcept>

#include "parallel/executor.h"

#include "world/contacts_near.h"
#include "world/walk.h"
#include "world/world_arrays.h"
#include <capsweep/sweep.h>
#include "core/body.h"
#include "core/ellipsoid_contact.h"
#include "simd/block_sweep.h"

namespace capsweep {

namespace {

// The axis-aligned box the ellipsoid sweeps: exact for an axis-aligned ellipsoid.
Aabb ellipsoid_reach(const SweepEllipsoidQuery& q) {
  Aabb b;
  const Ellipsoid& e = q.ellipsoid;
  for (const Vec3& c : {e.centre, e.centre + q.motion}) {
    b.grow(c - e.radii);
    b.grow(c + e.radii);
  }
  return b;
}

struct KeepAll {
  bool operator()(SweepHit&) const { return true; }
};

// Keeps the contacts the motion moves into, as sweep_approaching does for capsules: the eSpace
// distance to a triangle is convex along the path, and the sign of the world normal against the
// motion is the sign of the eSpace normal against the eSpace motion (n' / r . d = n' . d / r).
struct KeepApproaching {
  const World& world;
  Vec3 motion;
  float radius;          // the largest radius: the seam rule's bound for any direction
  std::uint32_t layers;  // the walk's mask
  bool operator()(SweepHit& h) const {
    seam_normal(world, h, radius, layers);
    return dot(h.normal, motion) < 0;
  }
};

// Takes triangle i (t, with its box) as a candidate for query q, if it is on the walk's layers.
template <class Keep>
void try_triangle(const WorldArrays& w, const SweepEllipsoidQuery& q, const Aabb& reach, std::uint32_t i,
                  const Triangle& t, const Aabb& box, std::uint32_t layers, SweepHit& best, const Keep& keep) {
  if (!reach.overlaps(box) || !seen(w, i, layers)) return;
  SweepHit h;
  sweep_ellipsoid_triangle_unchecked(q.ellipsoid, q.motion, t, h);
  h.triangle = i;
  if (is_better_hit(h, best) && keep(h)) best = h;
}

// Lane `lane` of a block the walk handed over (a BVH block or a heightfield's).
template <class Keep>
void try_lane(const WorldArrays& w, const SweepEllipsoidQuery& q, const Aabb& reach, const TriangleBlock& block,
              int lane, std::uint32_t layers, SweepHit& best, const Keep& keep) {
  try_triangle(w, q, reach, block.triangle[lane], block.get(lane), lane_box(w, block, lane), layers, best, keep);
}

// `layers`: the query's walk mask, before walk_layers.
template <class Keep = KeepAll>
void sweep_one_ellipsoid(const WorldArrays& w, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                         std::uint32_t layers, const Keep& keep = {}) {
  hit = SweepHit{};
  const Aabb reach = ellipsoid_reach(q);
  layers = walk_layers(w, layers);
  if (path == SweepPath::brute) {
    for (std::uint32_t i = 0; i < w.triangles.size(); ++i) {
      try_triangle(w, q, reach, i, w.triangles[i], w.boxes[i], layers, hit, keep);
    }
    for_each_terrain_triangle_near(w.terrain, reach, [&](std::uint32_t i, const Triangle& t) {
      try_triangle(w, q, reach, i, t, bounds(t), layers, hit, keep);
    });
    return;
  }
  const Capsule bound = bounding_capsule(q.ellipsoid);
  static const BlockSweepVariant kernel = best_block_sweep();
  BlockQuery bq = make_block_query(bound, q.motion);
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w, make_swept_box(bound, q.motion), limit, stats, [&](const TriangleBlock& block) {
    if (path == SweepPath::simd) {
      // The wide rejection stage against the bounding capsule: a rejected lane is farther than
      // the capsule's reach, so the ellipsoid inside it cannot touch it before the limit.
      for (std::uint32_t live = kernel.live(block, bq); live != 0; live &= live - 1) {
        try_lane(w, q, reach, block, std::countr_zero(live), layers, hit, keep);
      }
    } else {
      for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) try_lane(w, q, reach, block, lane, layers, hit, keep);
    }
    if (hit.hit) {
      limit = hit.t;  // a node or lane entered later holds only worse answers
      limit_block_query(bq, hit.t);
    }
    return false;
  }, layers);
}

// Calls visit(triangle, contact) for every triangle on the walk's layers that may touch the
// ellipsoid (and some that cannot), with their discrete eSpace contact; visit returns true to
// stop. Its callers judge only contacts that touch.
template <class Visit>
void for_each_ellipsoid_contact(const WorldArrays& w, const Ellipsoid& e, std::uint32_t layers, Visit&& visit) {
  static const BlockSweepVariant& kernel = best_block_sweep();
  layers = walk_layers(w, layers);
  const Aabb box = ellipsoid_reach({e, {}});
  const Capsule bound = bounding_capsule(e);
  BlockQuery query;  // made at the first leaf, as for_each_contact does
  bool have_query = false;
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w, make_swept_box(bound, {}), limit, stats, [&](const TriangleBlock& block) {
    if (!have_query) {
      query = standing_query(bound, bound.radius);
      have_query = true;
    }
    // The float stage against the capsule holding the ellipsoid, as its sweeps run it: a lane it
    // rejects lies beyond that capsule, so the ellipsoid neither overlaps nor touches it.
    for (std::uint32_t live = kernel.live(block, query); live != 0; live &= live - 1) {
      const int lane = std::countr_zero(live);
      const std::uint32_t i = block.triangle[lane];
      if (!box.overlaps(lane_box(w, block, lane)) || !seen(w, i, layers)) continue;
      EllipsoidContact k;
      ellipsoid_triangle_contact(e, block.get(lane), k);
      if (visit(i, k)) return true;
    }
    return false;
  }, layers);
}

}  // namespace

Status sweep_ellipsoid_approaching(const World& world, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                                   std::uint32_t layers) {
  hit = SweepHit{};
  if (Status s = check_ellipsoid_sweep(q.ellipsoid, q.motion); s != Status::ok) return s;
  if (Status s = check_layers(q.layers, layers); s != Status::ok) return s;
  const WorldArrays& w = world.arrays();
  const KeepApproaching keep{world, q.motion, largest_radius(q.ellipsoid), walk_layers(w, q.layers & layers)};
  sweep_one_ellipsoid(w, q, hit, path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar, q.layers & layers, keep);
  return Status::ok;
}

Status sweep_ellipsoid_one(const World& world, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                           std::uint32_t layers) {
  hit = SweepHit{};
  if (Status s = check_ellipsoid_sweep(q.ellipsoid, q.motion); s != Status::ok) return s;
  if (Status s = check_layers(q.layers, layers); s != Status::ok) return s;
  sweep_one_ellipsoid(world.arrays(), q, hit, path, q.layers & layers);
  return Status::ok;
}

bool deepest_ellipsoid_overlap(const World& world, const Ellipsoid& e, EllipsoidContact& contact,
                               std::uint32_t& triangle, std::uint32_t layers) {
  bool found = false;
  for_each_ellipsoid_contact(world.arrays(), e, layers, [&](std::uint32_t i, const EllipsoidContact& k) {
    // The largest push, then the lower index: the same whatever order the walk takes.
    if (k.overlapping && (!found || k.depth > contact.depth || (k.depth == contact.depth && i < triangle))) {
      contact = k;
      triangle = i;
      found = true;
    }
    return false;
  });
  return found;
}

bool ellipsoid_clear(const World& world, const Ellipsoid& e, std::uint32_t layers) {
  bool clear = true;
  for_each_ellipsoid_contact(world.arrays(), e, layers, [&](std::uint32_t, const EllipsoidContact& k) {
    clear = k.distance > 1.0;
    return !clear;
  });
  return clear;
}

std::size_t World::sweep_ellipsoid(std::span<const SweepEllipsoidQuery> queries, std::span<SweepHit> hits,
                                   const SweepOptions& options, std::span<Status> status) const {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("World::sweep_ellipsoid: queries, hits and status must have the same size");
  }
  std::atomic<std::size_t> refused{0};
  parallel::StopCheck stop(options.stop);
  const WorldArrays& w = *arrays_;
  parallel::in_arena(options.threads, [&] {
    parallel::for_ranges<std::size_t>(0, queries.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (stop.before(i)) return;
        Status s = check_ellipsoid_sweep(queries[i].ellipsoid, queries[i].motion);
        if (s == Status::ok) s = check_layers(queries[i].layers, options.layers);
        if (s == Status::ok) {
          sweep_one_ellipsoid(w, queries[i], hits[i], options.path, queries[i].layers & options.layers);
        } else {
          hits[i] = SweepHit{};
          ++refused;
        }
        if (!status.empty()) status[i] = s;
      }
    });
  });
  stop.throw_if_stopped<Cancelled>("World::sweep_ellipsoid");
  return refused.load();
}

}  // namespace capsweep
