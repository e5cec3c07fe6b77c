#include "broadphase/world.h"

#include <atomic>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "core/contact.h"
#include "core/sweep.h"

namespace capsweep {

const char* name(SweepPath path) {
  switch (path) {
    case SweepPath::brute: return "brute";
  }
  return "?";
}

bool parse_sweep_path(const std::string& text, SweepPath& out) {
  if (text == "brute") {
    out = SweepPath::brute;
    return true;
  }
  return false;
}

World::World(std::vector<Triangle> triangles) : triangles_(std::move(triangles)) {
  if (triangles_.empty()) throw WorldError("the mesh has no triangles");
  if (triangles_.size() >= kNoTriangle) throw WorldError("the mesh has more than 2^32 - 2 triangles");
  boxes_.reserve(triangles_.size());
  for (std::size_t i = 0; i < triangles_.size(); ++i) {
    if (Status s = check_triangle(triangles_[i]); s != Status::ok) {
      throw WorldError("triangle " + std::to_string(i) + ": " + describe(s));
    }
    boxes_.push_back(capsweep::bounds(triangles_[i]));
    bounds_.grow(boxes_.back());
  }
}

bool is_better_hit(const SweepHit& a, const SweepHit& b) {
  if (a.hit != b.hit) return a.hit;
  if (!a.hit) return false;
  if (a.t != b.t) return a.t < b.t;
  if (a.depth != b.depth) return a.depth > b.depth;
  return a.triangle < b.triangle;
}

Status World::sweep_one(const SweepQuery& q, SweepHit& hit, SweepPath /*path*/) const {
  hit = SweepHit{};
  if (Status s = check_sweep(q.capsule, q.motion); s != Status::ok) return s;
  const Aabb reach = swept_bounds(q.capsule, q.motion);
  for (std::size_t i = 0; i < triangles_.size(); ++i) {
    if (!reach.overlaps(boxes_[i])) continue;
    SweepHit h;
    sweep_capsule_triangle_unchecked(q.capsule, q.motion, triangles_[i], h);  // checked above and at build
    h.triangle = std::uint32_t(i);
    if (is_better_hit(h, hit)) hit = h;
  }
  return Status::ok;
}

std::size_t World::sweep(std::span<const SweepQuery> queries, std::span<SweepHit> hits, const SweepOptions& options,
                         std::span<Status> status) const {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("World::sweep: queries, hits and status must have the same size");
  }
  std::atomic<std::size_t> refused{0};
  auto run = [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, queries.size(), 64), [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        const Status s = sweep_one(queries[i], hits[i], options.path);
        if (s != Status::ok) ++refused;
        if (!status.empty()) status[i] = s;
      }
    });
  };
  if (options.threads > 0) {
    tbb::task_arena arena(options.threads);
    arena.execute(run);
  } else {
    run();
  }
  return refused.load();
}

bool World::is_clear(const Capsule& capsule, float clearance) const {
  const Aabb reach = swept_bounds({capsule.a, capsule.b, capsule.radius + clearance}, {});
  for (std::size_t i = 0; i < triangles_.size(); ++i) {
    if (!reach.overlaps(boxes_[i])) continue;
    Contact k;
    capsule_triangle_contact(capsule, triangles_[i], k);
    if (k.distance <= capsule.radius + clearance) return false;
  }
  return true;
}

}  // namespace capsweep
