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
#include "world/narrow_phase.h"
#include "world/solver_queries.h"
#include "world/sweeps.h"
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

// An ellipsoid query as the narrow phase sweeps it (narrow_phase.h). The walk prunes with the
// ellipsoid's bounding capsule, which holds it, so no triangle it touches is skipped.
struct EllipsoidSweep {
  const SweepEllipsoidQuery& query;
  Capsule bound = bounding_capsule(query.ellipsoid);
  Aabb reach() const { return ellipsoid_reach(query); }
  SweptBox walk_box() const { return make_swept_box(bound, query.motion); }
  void sweep(const Triangle& t, SweepHit& h) const { sweep_ellipsoid_triangle_unchecked(query.ellipsoid, query.motion, t, h); }
};

// The wide path: the rejection stage against the bounding capsule (a rejected lane is farther
// than the capsule's reach, so the ellipsoid inside it cannot touch it before the limit), then
// each live lane whose box meets the reach swept by the exact eSpace kernel.
template <class Collector>
void sweep_simd(const WorldArrays& w, const EllipsoidSweep& shape, Collector& closest, TraversalStats& stats,
                std::uint32_t layers) {
  static const BlockSweepVariant kernel = best_block_sweep();
  BlockQuery bq = make_block_query(shape.bound, shape.query.motion);
  const Aabb reach = shape.reach();
  float limit = 1.f;
  walk_world(w, shape.walk_box(), limit, stats, [&](const TriangleBlock& block) {
    for (std::uint32_t live = kernel.live(block, bq); live != 0; live &= live - 1) {
      const int lane = std::countr_zero(live);
      const std::uint32_t i = block.triangle[lane];
      if (!reach.overlaps(lane_box(block, lane)) || !seen(w, i, layers)) continue;
      SweepHit h;
      shape.sweep(block.get(lane), h);
      h.triangle = i;
      closest.offer(h);
    }
    if (closest.found()) {
      limit = closest.early_out();  // a node or lane entered later holds only worse answers
      limit_block_query(bq, limit);
    }
    return false;
  }, layers);
}

// One checked ellipsoid query through `path`; `layers`: the query's mask within its batch's,
// before walk_layers.
template <class Keep = KeepAll>
void sweep_one_ellipsoid(const WorldArrays& w, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                         std::uint32_t layers, const Keep& keep = {}) {
  hit = SweepHit{};
  TraversalStats stats;
  sweep_on_path(w, EllipsoidSweep{q}, path, hit, keep, stats, walk_layers(w, layers));
}

// Calls visit(triangle, contact) for every triangle on the walk's layers that may touch the
// ellipsoid (and some that cannot), with their discrete eSpace contact; visit returns true to
// stop. Its callers judge only contacts that touch.
template <class Visit>
void for_each_ellipsoid_contact(const WorldArrays& w, const Ellipsoid& e, std::uint32_t layers, Visit&& visit) {
  layers = walk_layers(w, layers);
  const Aabb box = ellipsoid_reach({e, {}});
  // The float stage against the capsule holding the ellipsoid, as its sweeps run it: a lane it
  // rejects lies beyond that capsule, so the ellipsoid neither overlaps nor touches it.
  for_each_lane_near(w, bounding_capsule(e), 0.f, layers, [&](const TriangleBlock& block, int lane) {
    const std::uint32_t i = block.triangle[lane];
    if (!box.overlaps(lane_box(block, lane)) || !seen(w, i, layers)) return false;
    EllipsoidContact k;
    ellipsoid_triangle_contact(e, block.get(lane), k);
    return bool(visit(i, k));
  });
}

}  // namespace

Status sweep_ellipsoid_approaching(const World& world, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                                   std::uint32_t layers) {
  return sweep_ellipsoid_approaching(world.arrays(), q, hit, path, layers);
}

Status sweep_ellipsoid_approaching(const WorldArrays& w, const SweepEllipsoidQuery& q, SweepHit& hit, SweepPath path,
                                   std::uint32_t layers) {
  hit = SweepHit{};
  if (Status s = check_ellipsoid_sweep(q.ellipsoid, q.motion); s != Status::ok) return s;
  if (Status s = check_layers(q.layers, layers); s != Status::ok) return s;
  const KeepApproaching keep{&w, q.motion, largest_radius(q.ellipsoid), walk_layers(w, q.layers & layers)};
  sweep_one_ellipsoid(w, q, hit, solver_path(path), q.layers & layers, keep);
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
  return deepest_ellipsoid_overlap(world.arrays(), e, contact, triangle, layers);
}

bool deepest_ellipsoid_overlap(const WorldArrays& w, const Ellipsoid& e, EllipsoidContact& contact,
                               std::uint32_t& triangle, std::uint32_t layers) {
  bool found = false;
  for_each_ellipsoid_contact(w, e, layers, [&](std::uint32_t i, const EllipsoidContact& k) {
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

void for_each_ellipsoid_touch(const World& world, const Ellipsoid& e,
                              const std::function<void(std::uint32_t, const EllipsoidContact&)>& visit,
                              std::uint32_t layers) {
  for_each_ellipsoid_contact(world.arrays(), e, layers, [&](std::uint32_t i, const EllipsoidContact& k) {
    if (k.distance <= 1.0) visit(i, k);
    return false;
  });
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
