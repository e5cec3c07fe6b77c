// What one agent's tick sees of the world and of the other agents: the MoveCollider that
// World::move and World::validate run the solver of core/move.cpp against. Internal.
#pragma once

#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "broadphase/agent_grid.h"
#include "broadphase/upright_pairs.h"
#include "world/closest_hit.h"
#include "world/solver_queries.h"
#include "world/sweeps.h"
#include "world/world_arrays.h"
#include "core/assert.h"
#include "core/face_first.h"
#include "core/move.h"
#include <capsweep/sweep.h>
#include <capsweep/world.h>

namespace capsweep {

// What other agents meet of an agent at the start of a tick: its capsule, or the smallest capsule
// holding its ellipsoid; a refused ellipsoid (NaN, a radius <= 0, out of range) is not there (a
// NaN capsule, which overlaps nothing).
inline Capsule start_capsule(const Agent& a) {
  if (a.shape != AgentShape::ellipsoid) return a.capsule;
  if (check_ellipsoid_sweep(a.ellipsoid, {}) != Status::ok) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    return {{nan, nan, nan}, {nan, nan, nan}, nan};
  }
  return bounding_capsule(a.ellipsoid);
}

// What one agent's tick sees: the world, and the other agents at their tick-start positions.
// Agents meet each other as capsules (start_capsule): an ellipsoid agent sweeps the capsule
// holding its skinned ellipsoid against them, which keeps it at least a skin from what they meet
// (an exact ellipsoid-ellipsoid sweep has no closed form), and never moves it into another.
class WorldCollider final : public MoveCollider {
 public:
  // `capsules[j]` is agent j's start_capsule; `members[k]` is the agent the grid files as k
  // (empty: the grid holds every agent, in order). `near` is scratch for the agents within
  // reach (reused across the agents of a thread). `layers`: the agent's and the batch's layers.
  // `kept`: the agent's neighbourhood of the mesh's BVH (MoveCache), or none; its walks inside
  // it take its tree (WorldArrays::near), with the same answers.
  WorldCollider(const World& world, SweepPath path, std::uint32_t layers, const AgentGrid* grid,
                std::span<const Agent> agents, std::span<const Capsule> capsules, std::size_t self,
                std::vector<std::uint32_t>* near = nullptr, std::span<const std::uint32_t> members = {},
                const NearLeaves* kept = nullptr)
      : world_(world), arrays_(&world.arrays()), path_(solver_path(path)), layers_(layers), grid_(grid),
        agents_(agents), capsules_(capsules), members_(members), self_(self), near_(near) {
    if (near_) near_->clear();
    if (kept) {  // copied only then: 808 bytes an agent-tick otherwise spent for nothing
      arrays_ = &kept_arrays_.emplace(world.arrays());
      kept_arrays_->near = kept;
    }
  }
  // arrays_ may point into the collider itself.
  WorldCollider(const WorldCollider&) = delete;
  WorldCollider& operator=(const WorldCollider&) = delete;

  std::uint64_t pair_sweeps() const { return pair_sweeps_; }

  void sweep(const Body& body, const Vec3& motion, MoveHit& out) const override {
    const Request request{this, &body, motion};
    SweepQuery query;
    SweepHit hit;
    sweep_together({&request, 1}, {&out, 1}, {&query, 1}, {&hit, 1});
  }

  // A sweep one agent's tick waits for (MoveInFlight::body, motion), with the agent's collider.
  struct Request {
    const WorldCollider* collider;
    const Body* body;
    Vec3 motion;
  };
  // The route every sweep of a collider takes, one (sweep) or the waiting sweeps of up to
  // kSweepChunk agents (World::move's agents in flight), all of the same world and path: the
  // capsules' world sweeps through the engine together (sweep_approaching_chunk pools the lanes
  // left at the end of each walk), an ellipsoid's alone (its own kernel), then each agent meets
  // the others. out[j] answers requests[j], the same bytes however many are asked together.
  // `queries` and `hits`: room for the capsules' world sweeps (one each).
  static void sweep_together(std::span<const Request> requests, std::span<MoveHit> out, std::span<SweepQuery> queries,
                             std::span<SweepHit> hits) {
    CAPSWEEP_ASSERT(out.size() == requests.size() && queries.size() >= requests.size() && hits.size() >= requests.size(),
                    "an answer and room for each request");
    CAPSWEEP_ASSERT(!requests.empty(), "a request");
    CAPSWEEP_ASSERT(requests.size() <= kSweepChunk, "at most a chunk of requests");
    const WorldCollider& first = *requests[0].collider;
    const WorldArrays* arrays[kSweepChunk];
    std::size_t count = 0;
    for (const Request& r : requests) {
      CAPSWEEP_ASSERT(&r.collider->world_ == &first.world_ && r.collider->path_ == first.path_, "one world, one path");
      if (!r.body->is_capsule()) continue;
      arrays[count] = r.collider->arrays_;
      queries[count++] = {r.body->capsule, r.motion, r.collider->layers_};
    }
    if (count > 0) {
      sweep_approaching_chunk(std::span(arrays, count), queries.first(count), hits.first(count), first.path_);
    }
    for (std::size_t j = 0, q = 0; j < requests.size(); ++j) {
      const Request& r = requests[j];
      const WorldCollider& c = *r.collider;
      out[j] = MoveHit{};
      if (r.body->is_capsule()) {
        out[j].hit = hits[q++];
      } else {
        sweep_ellipsoid_approaching(*c.arrays_, {r.body->ellipsoid, r.motion}, out[j].hit, c.path_, c.layers_);
      }
      c.meet_agents(*r.body, r.motion, out[j]);
    }
  }

  void sweep_triangle(const Body& body, const Vec3& motion, std::uint32_t triangle, MoveHit& out) const override {
    out = MoveHit{};
    const WorldArrays& w = world_.arrays();
    if (triangle >= world_triangle_count(w)) return;
    if (is_terrain_triangle(w, triangle) && terrain_triangle_is_hole(w.terrain, triangle - w.mesh_count())) return;
    const std::uint32_t walk = walk_layers(w, layers_);
    if (!seen(w, triangle, walk)) return;
    // As sweep_approaching and sweep_ellipsoid_approaching keep a hit: the face normal at a
    // seam, and only a contact the motion moves into.
    SweepHit h;
    float seam_radius;
    if (body.is_capsule()) {
      // Mostly a person over the floor it stands on: its face, told without the full kernel.
      detail::sweep_face_first(body.capsule, motion, triangle_at(w, triangle), h);
      seam_radius = body.capsule.radius;
    } else {
      sweep_ellipsoid_triangle_unchecked(body.ellipsoid, motion, triangle_at(w, triangle), h);
      seam_radius = largest_radius(body.ellipsoid);
    }
    if (!h.hit) return;
    h.triangle = triangle;
    seam_normal(world_, h, seam_radius, walk);
    if (dot(h.normal, motion) < 0) out.hit = h;
  }

  bool deepest_overlap(const Body& body, MoveOverlap& out) const override {
    if (body.is_capsule()) {
      Contact k;
      if (!deepest_overlap_unchecked(*arrays_, body.capsule, k, out.triangle, layers_)) return false;
      out.normal = k.normal;
      out.depth = k.depth;
      return true;
    }
    EllipsoidContact k;
    if (!deepest_ellipsoid_overlap(*arrays_, body.ellipsoid, k, out.triangle, layers_)) return false;
    out.normal = k.normal;
    out.depth = k.depth;
    return true;
  }

  bool walkable(const MoveHit& hit, float min_up, Vec3& ground_normal) const override {
    return hit.agent == kNoAgent && capsweep::walkable(world_, hit.hit, min_up, ground_normal, layers_);
  }

 private:
  // The rest of a sweep, after the world's answer in `out`: the other agents it meets first.
  void meet_agents(const Body& body, const Vec3& motion, MoveHit& out) const {
    if (!grid_) return;
    const Capsule capsule = agent_capsule(body);
    const Aabb box = swept_bounds(capsule, motion);
    // The grid is asked once per agent-tick for everyone within reach of the first sweep (the
    // short sweeps of a walk that follow it usually stay inside), and again only when a sweep
    // leaves that reach. The agents met are the same as asking per sweep; ties go by id (then by
    // capsule bytes), so the order they are met in never shows.
    if (!(reach_.min.x <= box.min.x && reach_.min.y <= box.min.y && reach_.min.z <= box.min.z &&
          box.max.x <= reach_.max.x && box.max.y <= reach_.max.y && box.max.z <= reach_.max.z)) {
      reach_ = {box.min - Vec3{kReach, kReachDown, kReach}, box.max + Vec3{kReach, kReach, kReach}};
      near_->clear();
      grid_->for_each_overlapping(reach_, [&](std::uint32_t k) { near_->push_back(k); });
    }
    const float scale = moving_scale(capsule, motion);
    for (const std::uint32_t k : *near_) {
      if (!grid_->box(k).overlaps(box)) continue;
      const std::size_t j = members_.empty() ? k : members_[k];
      if (j == self_) continue;
      if (apart_upright(capsule, motion, capsules_[j], scale)) continue;
      ++pair_sweeps_;
      SweepHit h;
      sweep_capsule_capsule(capsule, motion, capsules_[j], h);
      if (!h.hit || !(dot(h.normal, motion) < 0)) continue;
      // Earliest wins; at equal times the world, then the lower agent id, then (agents sharing an
      // id, as agents left at the default 0 do) the capsule whose bytes compare lower, so that
      // the order agents are met in, and so their order in the batch, never shows.
      const std::uint32_t id = agents_[j].id;
      if (out.hit.hit) {
        if (h.t > out.hit.t) continue;
        if (h.t == out.hit.t) {
          if (out.agent == kNoAgent || id > out.agent) continue;
          if (id == out.agent && std::memcmp(&capsules_[j], &capsules_[met_], sizeof(Capsule)) >= 0) continue;
        }
      }
      out.hit = h;
      out.hit.triangle = kNoTriangle;
      out.agent = id;
      met_ = j;
    }
  }

  const World& world_;
  const WorldArrays* arrays_;  // the world's, or kept_arrays_
  std::optional<WorldArrays> kept_arrays_;  // the world's with the agent's kept neighbourhood
  SweepPath path_;
  std::uint32_t layers_;
  const AgentGrid* grid_;
  std::span<const Agent> agents_;
  std::span<const Capsule> capsules_;
  std::span<const std::uint32_t> members_;
  std::size_t self_;
  std::vector<std::uint32_t>* near_;
  // How far beyond the first sweep's box the reach extends, metres: enough that the short
  // sweeps after it (a slide, a snap) mostly stay inside, little enough that every sweep skips
  // few agents it cannot meet. Downwards it reaches further: the snap and the fall sweep down,
  // and the columns are vertical, so that costs a query no more boxes (only agents on a floor
  // below). Instructions of the arena crowd (2,000 agents), with 1.9 m columns: 0.5 m cost 2 %
  // more than 0.1 m, and 0 m (asking the grid again for every sweep that leaves) 1.2 % more;
  // with 0.7 m columns, 0.03 m and 1 m down cost 0.7 % less than 0.1 m (the dungeon's 0.9 %).
  static constexpr float kReach = 0.03f;
  static constexpr float kReachDown = 1.0f;
  mutable Aabb reach_;  // empty: nothing asked yet
  mutable std::size_t met_ = 0;  // the agent whose hit the last sweep kept, if it kept one
  mutable std::uint64_t pair_sweeps_ = 0;
};

// Ties between agents sharing an id compare capsules byte for byte: seven floats, no padding.
static_assert(sizeof(Capsule) == 7 * sizeof(float));

// The solver's ground probe (move_agent, stage 2) from outside it: walkable ground within
// `reach` below the body grown by the skin. `ground` and `normal` get what it stands on.
bool ground_below(const World& world, const Body& body, const MoveSettings& m, float reach, SweepPath path,
                  std::uint32_t layers, SweepHit& ground, Vec3& normal);

}  // namespace capsweep
