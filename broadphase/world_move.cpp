// World::move and World::validate: the movement solver of core/ (move_agent) run over a batch
// with oneTBB, against the world's BVH and a per-tick grid of the other agents.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "broadphase/agent_grid.h"
#include "broadphase/contacts_near.h"
#include "broadphase/held_agents.h"
#include "broadphase/morton.h"
#include "broadphase/run_in_arena.h"
#include "broadphase/upright_pairs.h"
#include <capsweep/sweep.h>
#include <capsweep/sweep_ellipsoid.h>
#include <capsweep/world.h>

#include "broadphase/world_arrays.h"
#include "core/closest_point.h"
#include "core/face_first.h"
#include "core/move.h"

namespace capsweep {

namespace {

// What other agents meet of an agent at the start of a tick: its capsule, or the smallest capsule
// holding its ellipsoid; a refused ellipsoid (NaN, a radius <= 0, out of range) is not there (a
// NaN capsule, which overlaps nothing).
Capsule start_capsule(const Agent& a) {
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
  WorldCollider(const World& world, SweepPath path, std::uint32_t layers, const AgentGrid* grid,
                std::span<const Agent> agents, std::span<const Capsule> capsules, std::size_t self,
                std::vector<std::uint32_t>* near = nullptr, std::span<const std::uint32_t> members = {})
      : world_(world), path_(path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar), layers_(layers), grid_(grid),
        agents_(agents), capsules_(capsules), members_(members), self_(self), near_(near) {
    if (near_) near_->clear();
  }

  std::uint64_t pair_sweeps() const { return pair_sweeps_; }

  void sweep(const Body& body, const Vec3& motion, MoveHit& out) const override {
    out = MoveHit{};
    if (body.is_capsule()) {
      sweep_approaching(world_, {body.capsule, motion}, out.hit, path_, layers_);
    } else {
      sweep_ellipsoid_approaching(world_, {body.ellipsoid, motion}, out.hit, path_, layers_);
    }
    meet_agents(body, motion, out);
  }

  // The world sweep of a capsule body, as sweep asks it (World::move asks it for many agents at
  // once: sweep_approaching_chunk).
  SweepQuery world_query(const Body& body, const Vec3& motion) const { return {body.capsule, motion, layers_}; }
  SweepPath path() const { return path_; }

  // The rest of sweep, after the world's answer in `out`: the other agents it meets first.
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

  void sweep_triangle(const Body& body, const Vec3& motion, std::uint32_t triangle, MoveHit& out) const override {
    out = MoveHit{};
    const WorldArrays& w = world_.arrays();
    if (triangle >= world_triangle_count(w)) return;
    if (triangle >= w.triangles.size() && terrain_triangle_is_hole(w.terrain, triangle - w.triangles.size())) return;
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
      if (!deepest_overlap_unchecked(world_, body.capsule, k, out.triangle, layers_)) return false;
      out.normal = k.normal;
      out.depth = k.depth;
      return true;
    }
    EllipsoidContact k;
    if (!deepest_ellipsoid_overlap(world_, body.ellipsoid, k, out.triangle, layers_)) return false;
    out.normal = k.normal;
    out.depth = k.depth;
    return true;
  }

  bool walkable(const MoveHit& hit, float min_up, Vec3& ground_normal) const override {
    return hit.agent == kNoAgent && capsweep::walkable(world_, hit.hit, min_up, ground_normal, layers_);
  }

 private:
  const World& world_;
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

// The agents of a worker's range in flight together (World::move): each one's collider, with its
// list of agents within reach, and its tick; the world sweeps they wait for, and the answers.
struct InFlight {
  std::vector<std::uint32_t> near[kSweepChunk];
  std::optional<WorldCollider> colliders[kSweepChunk];
  MoveInFlight ticks[kSweepChunk];
  std::uint32_t live[kSweepChunk];  // the slots whose tick waits
  SweepQuery queries[kSweepChunk];
  SweepHit hits[kSweepChunk];
  std::uint32_t asked[kSweepChunk];  // the slot that asked each query
};

// Ties between agents sharing an id compare capsules byte for byte: seven floats, no padding.
static_assert(sizeof(Capsule) == 7 * sizeof(float));

std::atomic<std::uint64_t> agent_pair_sweeps_total{0};

// More than this many other agents' boxes overlapping an agent's own box is a pile-up (agents
// spawned or pushed onto one spot): no crowd of people standing apart comes near it (a
// person's box is met by at most about eight others that do not overlap it).
constexpr std::size_t kPileUp = 32;

// Whether a claimed displacement lies inside its allowance (compared in double, as computed).
bool within(const Vec3& motion, const MoveAllowance& a) {
  const double h = std::hypot(double(motion.x), double(motion.z)), dy = motion.y;
  return h <= a.horizontal && dy <= a.up && dy >= a.down;
}

// A claim whose start overlaps: its hit is the deepest overlap (a Contact or EllipsoidContact).
template <class StartContact>
SweepHit start_overlap_hit(const StartContact& contact, std::uint32_t triangle) {
  SweepHit h;
  h.normal = contact.normal;
  h.point = contact.point;
  h.depth = contact.depth;
  h.feature = contact.feature;
  h.triangle = triangle;
  return h;
}

// The solver's ground probe (move_agent, stage 2) from outside it: walkable ground within
// `reach` below the body grown by the skin. `ground` and `normal` get what it stands on.
bool ground_below(const World& world, const Body& body, const MoveSettings& m, float reach, SweepPath path,
                  std::uint32_t layers, SweepHit& ground, Vec3& normal) {
  const Body skinned = with_skin(body, m.skin);
  if (skinned.is_capsule()) {
    sweep_approaching(world, {skinned.capsule, Vec3{0, -reach, 0}}, ground, path, layers);
  } else {
    sweep_ellipsoid_approaching(world, {skinned.ellipsoid, Vec3{0, -reach, 0}}, ground, path, layers);
  }
  return walkable(world, ground, std::cos(m.max_slope_degrees * std::numbers::pi_v<float> / 180.f), normal, layers);
}

// A start in the solver's skin, with half the backoff as margin for rounding (World::validate):
// the body grown by skin + backoff / 2 (a capsule) or scaled out so that it reaches at most that
// far beyond the skin in any direction (an ellipsoid: k = 1 + skin / r_min + backoff / (2 r_max);
// an agent resting a backoff beyond its skin is outside it) touches the world.
bool in_skin(const World& world, const Body& body, const MoveSettings& m, std::uint32_t layers) {
  if (body.is_capsule()) return !world.is_clear(body.capsule, m.skin + 0.5f * m.backoff, layers);
  const Ellipsoid& e = body.ellipsoid;
  const float by = m.skin + 0.5f * m.backoff * smallest_radius(e) / largest_radius(e);
  return !ellipsoid_clear(world, scaled_out(e, by), layers);
}

}  // namespace

const char* name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::ok: return "ok";
    case VerdictKind::blocked: return "blocked";
    case VerdictKind::start_overlaps: return "start_overlaps";
    case VerdictKind::too_fast: return "too_fast";
    case VerdictKind::refused: return "refused";
  }
  return "?";
}

namespace {

// Whether every triangle of the flat fan around vertex s of triangle t is on the walk's layers:
// a hidden one opens the fan, and the vertex is then no seam for that walk. The fan is walked
// through the seams as link_triangles closed it (the same steps, vertices matched by position,
// which is what welding matched).
bool fan_seen(const WorldArrays& w, std::uint32_t t, int s, std::uint32_t layers) {
  if (layers == kAllLayers) return true;
  // A heightfield's fans hold its own triangles only, all on its one mask (seen, or t would
  // not have been hit).
  if (t >= w.triangles.size()) return true;
  const Vec3 v = w.triangles[t].v[s];
  std::uint32_t current = t;
  int out_edge = s;
  for (int step = 0; step < 64; ++step) {
    const std::uint32_t next = w.links[current].across[out_edge];
    if (next >= w.triangles.size() || !seen(w, next, layers)) return false;
    if (next == t) return true;
    int at = 0;
    while (at < 3 && !(w.triangles[next].v[at] == v)) ++at;
    if (at == 3) return false;
    const int e_in = w.links[next].across[at] == current ? at : (at + 2) % 3;
    out_edge = e_in == at ? (at + 2) % 3 : at;
    current = next;
  }
  return false;
}

}  // namespace

void seam_normal(const World& world, SweepHit& h, float radius, std::uint32_t layers) {
  const WorldArrays& w = world.arrays();
  if (h.triangle >= world_triangle_count(w) || (h.feature != Feature::edge && h.feature != Feature::vertex)) return;
  const TriangleLinks links = links_at(w, h.triangle);
  const Triangle t = triangle_at(w, h.triangle);
  const Vec3d p = to_double(h.point);
  bool seam = false;
  if (h.feature == Feature::edge) {
    // The edge the contact point lies on: the nearest of the three.
    int best = 0;
    double best_d = INFINITY;
    for (int i = 0; i < 3; ++i) {
      const Vec3d a = to_double(t.v[i]), e = to_double(t.v[(i + 1) % 3]) - a;
      const double len_sq = length_sq(e);
      const double s = len_sq > 0 ? std::clamp(dot(p - a, e) / len_sq, 0.0, 1.0) : 0.0;
      const double d = length_sq(p - (a + e * s));
      if (d < best_d) best_d = d, best = i;
    }
    // A neighbour the walk does not see is not there: the edge is an open rim.
    seam = (links.seam_edges >> best & 1) && seen(w, links.across[best], layers);
  } else {
    int best = 0;
    double best_d = INFINITY;
    for (int i = 0; i < 3; ++i) {
      const double d = length_sq(p - to_double(t.v[i]));
      if (d < best_d) best_d = d, best = i;
    }
    seam = (links.flat_vertices >> best & 1) && fan_seen(w, h.triangle, best, layers);
  }
  if (!seam) return;
  Vec3 n = face_normal(t);
  if (dot(n, h.normal) < 0) n = -n;
  // Passing through the seam may bring the capsule closer to its edge than the radius by
  // radius * (1 - cos(angle between the normals)): only trusted while that stays far below the
  // exactness tolerance (exactly coplanar faces: float noise; bent ones: tiny angles).
  const double slack = std::max(2.5e-5, 1e-7 * double(max_abs_component(h.point)));
  if (double(radius) * (1.0 - double(dot(n, h.normal))) <= slack) h.normal = n;
}

std::uint64_t agent_pair_sweeps() { return agent_pair_sweeps_total.load(); }

bool walkable(const World& world, const SweepHit& hit, float min_up, Vec3& ground_normal, std::uint32_t layers) {
  const WorldArrays& w = world.arrays();
  layers = walk_layers(w, layers);
  if (!hit.hit) return false;
  if (hit.normal.y >= min_up) {
    ground_normal = hit.normal;
    return true;
  }
  if (hit.triangle >= world_triangle_count(w) || (hit.feature != Feature::edge && hit.feature != Feature::vertex)) {
    return false;
  }
  // On a rim: the faces meeting there (this triangle, and its neighbours across the edges
  // through the contact point), each seen from the agent's side.
  const Triangle t = triangle_at(w, hit.triangle);
  const TriangleLinks links = links_at(w, hit.triangle);
  std::uint32_t candidates[3] = {hit.triangle, kNoTriangle, kNoTriangle};
  const Vec3d p = to_double(hit.point);
  for (int i = 0, k = 1; i < 3; ++i) {
    const Vec3d a = to_double(t.v[i]), e = to_double(t.v[(i + 1) % 3]) - a;
    const double len_sq = length_sq(e);
    const double s = len_sq > 0 ? std::clamp(dot(p - a, e) / len_sq, 0.0, 1.0) : 0.0;
    const double d = length(p - (a + e * s));
    // Within rounding of the edge (the contact point is computed on it).
    // A neighbour on none of the batch's layers is not there: the rim is an open edge.
    if (d <= 1e-5 * (1.0 + std::sqrt(len_sq)) && k < 3) {
      const std::uint32_t across = links.across[i];
      candidates[k++] = across != kNoTriangle && seen(w, across, layers) ? across : kNoTriangle;
    }
  }
  for (std::uint32_t c : candidates) {
    if (c == kNoTriangle) continue;
    Vec3 n = face_normal(triangle_at(w, c));
    if (dot(n, hit.normal) < 0) n = -n;
    if (n.y >= min_up) {
      ground_normal = n;
      return true;
    }
  }
  return false;
}

bool World::deepest_overlap(const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                            std::uint32_t layers) const {
  // A refused capsule overlaps nothing (as World::overlap says of it): its contacts would be
  // the refused call's empty ones.
  if (check_capsule(capsule) != Status::ok) return false;
  return deepest_overlap_unchecked(*this, capsule, contact, triangle, layers);
}

bool deepest_overlap_unchecked(const World& world, const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                               std::uint32_t layers) {
  DeepestOverlap deepest;
  for_each_contact(world.arrays(), capsule, 0.f, [&](std::uint32_t i, const Contact& k) {
    deepest.offer(i, k, capsule.radius);
    return false;
  }, layers);
  if (deepest.found) {
    contact = deepest.contact;
    triangle = deepest.triangle;
  }
  return deepest.found;
}

std::size_t World::move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                        const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status) const {
  return move_agents(*this, agents, settings, results, options, segments, status, kSweepChunk);
}

std::size_t move_agents(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
                        std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status, std::size_t in_flight) {
  CAPSWEEP_ASSERT(in_flight >= 1 && in_flight <= kSweepChunk, "1 to kSweepChunk agents in flight");
  if (results.size() != agents.size() || (!segments.empty() && segments.size() != agents.size()) ||
      (!status.empty() && status.size() != agents.size())) {
    throw std::invalid_argument("World::move: agents, results, segments and status must have the same size");
  }
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::move: " + why);
  std::atomic<std::size_t> refused{0};
  StopCheck stop(options.stop);
  run_in_arena(options.threads, [&] {
    // The agents as they stand at the start of the tick. An agent in a pile-up (more than
    // kPileUp others overlap its box) stays where it is this tick, and the others' sweeps do
    // not see it (the end-of-tick check below still keeps them out of it): without this, n
    // agents on one spot would cost n^2 capsule sweeps. Whether an agent is in a pile depends
    // only on positions, never on the order of the batch.
    AgentGrid grid, sweep_grid;
    std::vector<std::uint8_t> piled(agents.size(), 0);
    std::vector<std::uint32_t> members;  // the agents sweep_grid holds, when some are piled
    std::vector<Capsule> capsules;       // what the others meet of each agent (start_capsule)
    if (settings.agents_collide) {
      capsules.resize(agents.size());
      for (std::size_t i = 0; i < agents.size(); ++i) capsules[i] = start_capsule(agents[i]);
      grid.build(capsules);
      std::atomic<bool> any_piled{false};
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, agents.size(), 64), [&](const auto& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          if (grid.overlapped_by_more_than(std::uint32_t(i), kPileUp)) piled[i] = 1, any_piled = true;
        }
      });
      if (any_piled) {
        std::vector<Capsule> standing;
        for (std::size_t i = 0; i < agents.size(); ++i) {
          if (!piled[i]) members.push_back(std::uint32_t(i)), standing.push_back(capsules[i]);
        }
        sweep_grid.build(standing);
      }
    }
    const AgentGrid* others = !settings.agents_collide ? nullptr : members.empty() ? &grid : &sweep_grid;
    // A world larger than the caches is walked in Morton order of the agents, as sweep_batch
    // walks queries: neighbouring agents find the world's nodes and blocks (and the grid's
    // columns) still cached (100,000 agents on the 947k-triangle terrain: about 1.25x). Each
    // agent's move is its own, so the order changes no bit of any result.
    const WorldArrays& w = world.arrays();
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    if (walked_bytes(w) > kSortAboveBytes && agents.size() > 256) {
      order = morton_order(w.bounds, agents.size(), [&](std::size_t i) {
        const Capsule c = capsules.empty() ? start_capsule(agents[i]) : capsules[i];
        return (c.a + c.b) * 0.5f;
      });
    }
    // A tick is a batch: up to kSweepChunk agents of a worker's range are in flight at once, each
    // waiting at its next world sweep (MoveInFlight), and the waiting sweeps go through the engine
    // together (sweep_approaching_chunk: the lanes left at the end of each walk pooled across
    // them); agents drop out as they finish. Every answer is what the agent would get alone, so no
    // bit depends on which agents share a round.
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, agents.size(), kSweepChunk), [&](const auto& range) {
      std::uint64_t pair_sweeps = 0;
      // Kept per worker, so that a range sets up nothing (every tick has ended when a range
      // returns, so nothing of one range reaches the next).
      thread_local InFlight flight;
      auto& [near, colliders, ticks, live, queries, hits, asked] = flight;
      for (std::size_t first = range.begin(); first < range.end(); first += in_flight) {
        const std::size_t last = std::min(first + in_flight, range.end());
        std::size_t waiting = 0;
        for (std::size_t k = first; k != last; ++k) {
          if (stop.before(k)) break;
          const std::size_t i = order.empty() ? k : order[k].second;
          const Agent& a = agents[i];
          MoveSegments* trace = segments.empty() ? nullptr : &segments[i];
          Status s = check_body_move(body_of(a), a.displacement);
          if (s == Status::ok && !std::isfinite(a.vertical_speed)) s = Status::non_finite_motion;
          if (s == Status::ok) s = check_layers(a.layers, options.layers);
          if (!status.empty()) status[i] = s;
          if (s != Status::ok || piled[i]) {
            // Stays where it is: refused, or held in a pile-up.
            results[i] = MoveResult{};
            results[i].capsule = start_capsule(a);
            results[i].shape = a.shape;
            results[i].ellipsoid = a.shape == AgentShape::ellipsoid ? a.ellipsoid : Ellipsoid{};
            results[i].flags = kMoveBlocked;
            if (s != Status::ok) {
              ++refused;
            } else {
              results[i].vertical_speed = a.vertical_speed;
              results[i].flags |= kMoveHeldByAgents;
            }
            if (trace) trace->count = 0;
            continue;
          }
          const std::size_t slot = k - first;
          colliders[slot].emplace(world, options.path, a.layers & options.layers, others, agents, capsules, i,
                                  &near[slot], members);
          if (in_flight == 1) {
            // One agent at a time, each sweep asked of the collider as it comes (the tests' reference).
            move_agent(*colliders[slot], a, settings, results[i], trace);
            continue;
          }
          ticks[slot].start(*colliders[slot], a, settings, results[i], trace);
          if (!ticks[slot].done()) live[waiting++] = std::uint32_t(slot);
        }
        while (waiting > 0) {
          // The capsules' world sweeps together; an ellipsoid's (its own kernel) alone, below.
          std::size_t count = 0;
          for (std::size_t j = 0; j < waiting; ++j) {
            const std::uint32_t slot = live[j];
            if (!ticks[slot].body().is_capsule()) continue;
            queries[count] = colliders[slot]->world_query(ticks[slot].body(), ticks[slot].motion());
            asked[count++] = slot;
          }
          sweep_approaching_chunk(world, std::span(queries, count), std::span(hits, count),
                                  colliders[live[0]]->path());
          std::size_t still = 0;
          for (std::size_t j = 0, q = 0; j < waiting; ++j) {
            const std::uint32_t slot = live[j];
            const WorldCollider& collider = *colliders[slot];
            MoveHit h;
            if (q < count && asked[q] == slot) {
              h.hit = hits[q++];
              collider.meet_agents(ticks[slot].body(), ticks[slot].motion(), h);
            } else {
              collider.sweep(ticks[slot].body(), ticks[slot].motion(), h);
            }
            ticks[slot].answer(h);
            if (!ticks[slot].done()) live[still++] = slot;
          }
          waiting = still;
        }
        for (std::size_t slot = 0; slot < last - first; ++slot) {
          if (colliders[slot]) pair_sweeps += colliders[slot]->pair_sweeps(), colliders[slot].reset();
        }
      }
      agent_pair_sweeps_total.fetch_add(pair_sweeps, std::memory_order_relaxed);
    });
    if (!settings.agents_collide || stop.before(0)) return;

    // Each agent avoided the others' start positions, but two may have moved into the same
    // place: those stay where they started (held_agents.h).
    std::vector<Capsule> ends(agents.size());
    std::vector<std::uint8_t> moved(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ends[i] = results[i].capsule;
      moved[i] = results[i].moved != Vec3{};
    }
    const std::vector<std::uint8_t> held = hold_overlapping_ends(capsules, ends, moved, &stop);
    // Each held agent's result is its own: applied in parallel (its ground probe is a sweep).
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, agents.size(), 64), [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (!held[i]) continue;
        MoveResult& r = results[i];
        r.capsule = capsules[i];
        if (agents[i].shape == AgentShape::ellipsoid) r.ellipsoid = agents[i].ellipsoid;
        r.moved = {};
        r.pushed = 0;
        // The ground found was under the end it does not keep: look under the start it keeps,
        // as the next tick's probe will, so `grounded` stays what the next tick starts from.
        SweepHit g;
        Vec3 ground_normal;
        r.grounded = ground_below(world, body_of(agents[i]), settings, settings.ground_distance,
                                  options.path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar,
                                  agents[i].layers & options.layers, g, ground_normal);
        r.ground_normal = r.grounded ? ground_normal : Vec3{};
        r.ground_triangle = r.grounded ? g.triangle : kNoTriangle;
        r.flags = std::uint8_t((r.flags & ~(kMoveSteppedUp | kMoveSnapped | kMoveDepenetrated | kMoveFalling)) |
                               kMoveBlocked | kMoveHeldByAgents | (r.grounded ? 0 : kMoveFalling));
        if (!segments.empty()) segments[i].count = 0;
      }
    });
  });
  stop.throw_if_stopped("World::move");
  return refused.load();
}

void World::validate(std::span<const ClaimedMove> moves, const ValidateSettings& settings, std::span<Verdict> verdicts,
                     const BatchOptions& options) const {
  if (verdicts.size() != moves.size()) throw std::invalid_argument("World::validate: moves and verdicts differ in size");
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::validate: " + why);
  const SweepPath path = options.path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar;
  StopCheck stop(options.stop);
  // Where a body is, in the verdict: a capsule; an ellipsoid and the capsule holding it.
  const auto place = [](const Body& b, Capsule& capsule, Ellipsoid& ellipsoid) {
    capsule = b.is_capsule() ? b.capsule : bounding_capsule(b.ellipsoid);
    if (!b.is_capsule()) ellipsoid = b.ellipsoid;
  };
  run_in_arena(options.threads, [&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, moves.size(), 16), [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (stop.before(i)) return;
        const ClaimedMove& m = moves[i];
        const Body body = body_of(m);
        Verdict& v = verdicts[i];
        v = Verdict{};
        v.status = check_body_move(body, m.motion);
        if (v.status == Status::ok && !(std::isfinite(m.dt) && m.dt >= 0 && std::isfinite(m.vertical_speed))) {
          v.status = Status::non_finite_motion;
        }
        if (v.status == Status::ok && !(m.dt <= 1e6f && std::fabs(m.vertical_speed) <= 1e6f)) v.status = Status::out_of_range;
        const float thinnest = body.is_capsule() ? m.from.radius : smallest_radius(m.ellipsoid);
        if (v.status == Status::ok && !(settings.tolerance >= 0 && settings.tolerance < thinnest)) {
          v.status = Status::bad_radius;  // the tolerance must leave a body to sweep
        }
        if (v.status == Status::ok) v.status = check_layers(m.layers, options.layers);
        const std::uint32_t layers = m.layers & options.layers;  // what this claim is judged against
        if (v.status != Status::ok) {
          v.kind = VerdictKind::refused;
          v.legal_fraction = 0;
          v.furthest = v.corrected = body.is_capsule() ? m.from : Capsule{};
          v.furthest_ellipsoid = v.corrected_ellipsoid = body.is_capsule() ? Ellipsoid{} : m.ellipsoid;
          continue;
        }
        // The straight path, swept with the body shrunk by the tolerance (an ellipsoid: each
        // radius), which the body itself overlaps by at most the tolerance.
        const float tol = settings.tolerance;
        bool overlapping = false;
        if (body.is_capsule()) {
          const Capsule shrunk{m.from.a, m.from.b, m.from.radius - tol};
          Contact contact;
          std::uint32_t triangle;
          overlapping = deepest_overlap(shrunk, contact, triangle, layers);
          if (overlapping) {
            v.hit = start_overlap_hit(contact, triangle);
          } else {
            sweep_one({shrunk, m.motion}, v.hit, path, layers);
          }
        } else {
          const Ellipsoid& e = m.ellipsoid;
          const Ellipsoid shrunk{e.centre, {e.radii.x - tol, e.radii.y - tol, e.radii.z - tol}};
          EllipsoidContact contact;
          std::uint32_t triangle;
          overlapping = deepest_ellipsoid_overlap(*this, shrunk, contact, triangle, layers);
          if (overlapping) {
            v.hit = start_overlap_hit(contact, triangle);
          } else {
            sweep_ellipsoid_one(*this, {shrunk, m.motion}, v.hit, path, layers);
          }
        }
        if (overlapping) {
          v.kind = VerdictKind::start_overlaps;
          v.legal_fraction = 0;
          v.hit.hit = true;
          v.hit.t = 0;
        } else {
          v.legal_fraction = v.hit.hit ? v.hit.t : 1.f;
          // The allowance's looser cases are looked for only when the claim is outside the
          // tighter one: most claims cost no sweep beyond their path.
          v.grounded = m.grounded;
          v.allowed = allowance(m, settings, v.grounded, false);
          // An agent the server did not call grounded may still stand on the ground (a fall
          // that ended a hair above it): look, as the solver does at the start of its tick.
          SweepHit ground;
          Vec3 normal;
          if (!v.grounded && !within(m.motion, v.allowed) &&
              ground_below(*this, body, settings.movement, settings.movement.ground_distance + settings.tolerance, path,
                           layers, ground, normal)) {
            v.grounded = true;
            v.allowed = allowance(m, settings, true, false);
          }
          // A start inside the skin the solver keeps from surfaces: it lifts the agent back out.
          // Agents rest skin + backoff away; halfway to that still counts as inside (rounding),
          // an agent at rest does not (else every resting claim would get the push as slack).
          if (!within(m.motion, v.allowed) && in_skin(*this, body, settings.movement, layers)) {
            v.in_skin = true;
            v.allowed = allowance(m, settings, v.grounded, true);
          }
          const bool too_fast = !within(m.motion, v.allowed);
          v.kind = too_fast ? VerdictKind::too_fast : v.hit.hit ? VerdictKind::blocked : VerdictKind::ok;
        }
        place(moved_by(body, m.motion * v.legal_fraction), v.furthest, v.furthest_ellipsoid);
        if (v.kind == VerdictKind::ok) {
          place(moved_by(body, m.motion), v.corrected, v.corrected_ellipsoid);
          continue;
        }
        // Where the agent would have got: one tick of the movement solver on the claim.
        MoveSettings ms = settings.movement;
        ms.agents_collide = false;
        if (m.dt > 0 && m.dt <= 10) ms.dt = m.dt;  // gravity over the claim's own duration
        const WorldCollider collider(*this, path, layers, nullptr, {}, {}, 0);
        Agent agent{m.from, m.motion, m.vertical_speed, 0};
        agent.shape = m.shape;
        agent.ellipsoid = m.ellipsoid;
        MoveResult r;
        move_agent(collider, agent, ms, r);
        v.corrected = r.capsule;
        v.corrected_ellipsoid = r.ellipsoid;
      }
    });
  });
  stop.throw_if_stopped("World::validate");
}

}  // namespace capsweep
