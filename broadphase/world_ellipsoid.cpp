// World::sweep_ellipsoid: moving ellipsoids against the world. The broad phase walks the BVH
// with the ellipsoid's bounding capsule (which holds it, so no triangle it touches is skipped);
// each candidate triangle that the ellipsoid's own swept box meets goes to the exact eSpace
// kernel (core/sweep_ellipsoid.cpp). Every path therefore runs the same per-triangle function,
// and the best hit is the least by is_better_hit in any order: the paths give the same bytes.
#include <capsweep/world.h>

#include <atomic>
#include <bit>
#include <stdexcept>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "broadphase/run_in_arena.h"
#include "broadphase/walk.h"
#include "broadphase/world_arrays.h"
#include <capsweep/sweep_ellipsoid.h>
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

// Takes triangle i (t, with its box) as a candidate for query q, if it is on the walk's layers.
void try_triangle(const WorldArrays& w, const SweepEllipsoidQuery& q, const Aabb& reach, std::uint32_t i,
                  const Triangle& t, const Aabb& box, std::uint32_t layers, SweepHit& best) {
  if (!reach.overlaps(box) || !seen(w, i, layers)) return;
  SweepHit h;
  sweep_ellipsoid_triangle_unchecked(q.ellipsoid, q.motion, t, h);
  h.triangle = i;
  if (is_better_hit(h, best)) best = h;
}

void try_lane(const WorldArrays& w, const SweepEllipsoidQuery& q, const Aabb& reach, const TriangleBlock& block,
              int lane, std::uint32_t layers, SweepHit& best) {
  try_triangle(w, q, reach, block.triangle[lane], block.get(lane), lane_box(w, block, lane), layers, best);
}

void sweep_one_ellipsoid(const WorldArrays& w, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                         std::uint32_t layers) {
  hit = SweepHit{};
  const Aabb reach = ellipsoid_reach(q);
  layers = walk_layers(w, layers);
  if (path == SweepPath::brute) {
    for (std::uint32_t i = 0; i < w.triangles.size(); ++i) {
      try_triangle(w, q, reach, i, w.triangles[i], w.boxes[i], layers, hit);
    }
    for_each_terrain_triangle_near(w.terrain, reach, [&](std::uint32_t i, const Triangle& t) {
      try_triangle(w, q, reach, i, t, bounds(t), layers, hit);
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
        try_lane(w, q, reach, block, std::countr_zero(live), layers, hit);
      }
    } else {
      for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) try_lane(w, q, reach, block, lane, layers, hit);
    }
    if (hit.hit) {
      limit = hit.t;  // a node or lane entered later holds only worse answers
      limit_block_query(bq, hit.t);
    }
    return false;
  }, layers);
}

}  // namespace

std::size_t World::sweep_ellipsoid(std::span<const SweepEllipsoidQuery> queries, std::span<SweepHit> hits,
                                   const SweepOptions& options, std::span<Status> status) const {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("World::sweep_ellipsoid: queries, hits and status must have the same size");
  }
  std::atomic<std::size_t> refused{0};
  StopCheck stop(options.stop);
  const WorldArrays& w = *arrays_;
  run_in_arena(options.threads, [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, queries.size(), 64), [&](const auto& range) {
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
  stop.throw_if_stopped("World::sweep_ellipsoid");
  return refused.load();
}

}  // namespace capsweep
