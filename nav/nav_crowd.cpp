// NavCrowd: plan and steer every agent on the navmesh, then move them all with World::move.
//
// A tick in three stages:
//  1. the tick-start state every agent's planning reads: each agent's feet, velocity and last
//     desired velocity, and a grid of them for finding neighbours;
//  2. per agent, in parallel (one dtNavMeshQuery and one dtObstacleAvoidanceQuery per worker's
//     range): plan a path when it has none, was pushed off its corridor or made no progress for
//     replan_seconds; follow the corridor (Detour's dtPathCorridor: movePosition keeps it on the
//     polygons it walks, optimizePathVisibility shortens it); desired velocity toward the next
//     corner, turning early toward the one after; separation from the neighbours and one side in
//     counterflow (as dtCrowd's separation); avoid the neighbours (Detour's
//     dtObstacleAvoidanceQuery, the nearest by distance then id). Each agent writes only its own
//     slots, so the order of agents and the thread count change nothing;
//  3. one World::move with each agent's velocity x dt: the bodies move exactly.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <recastnavigation/DetourCommon.h>
#include <recastnavigation/DetourObstacleAvoidance.h>
#include <recastnavigation/DetourPathCorridor.h>

#include "nav/navmesh_data.h"
#include "parallel/executor.h"

namespace capsweep {

const char* name(NavStatus status) {
  switch (status) {
    case NavStatus::idle: return "idle";
    case NavStatus::walking: return "walking";
    case NavStatus::arrived: return "arrived";
    case NavStatus::no_path: return "no_path";
    case NavStatus::off_mesh: return "off_mesh";
  }
  return "?";
}

namespace {

struct AvoidanceFree {
  void operator()(dtObstacleAvoidanceQuery* q) const { dtFreeObstacleAvoidanceQuery(q); }
};

// What a worker's range plans with: Detour's queries keep search state, so never shared.
struct Planner {
  NavQueryPtr query;
  std::unique_ptr<dtObstacleAvoidanceQuery, AvoidanceFree> avoidance;
};

// Per agent, beside its public NavAgent: its corridor and when it plans again.
struct Walker {
  std::unique_ptr<dtPathCorridor> corridor;
  bool planned = false;            // the corridor leads to the current goal
  std::uint64_t next_check = 0;    // tick of the next progress check (or retry, for no_path)
  Vec3 checkpoint;                 // where it stood at the last check
};

float horizontal_distance(const Vec3& a, const Vec3& b) { return std::hypot(a.x - b.x, a.z - b.z); }

// Feet at the corridor's end: near it across, and within a body's height of it up or down, so
// that an agent passing under a bridge or a gallery its goal is on has not arrived.
bool at_target(const float* target, const Vec3& feet, float arrive_distance, float agent_height) {
  const Vec3 t{target[0], target[1], target[2]};
  return horizontal_distance(t, feet) <= arrive_distance && std::fabs(t.y - feet.y) <= agent_height;
}

Vec3 feet_of(const Capsule& c) {
  const Vec3 low = c.a.y <= c.b.y ? c.a : c.b;
  return {low.x, low.y - c.radius, low.z};
}

// DetourCrowd's avoidance weights (dtCrowd::init's defaults) with RecastDemo's "low" sampling
// (preset 0: 5 directions, 2 rings, 1 refinement: 11 sampled velocities). Exactness is
// World::move's job, so the sampler only needs to pick a side early; finer presets cost 2-4x more
// for little. The horizon is 1 s, not dtCrowd's 2.5 s: in a dense crowd a long one slows agents
// for others far ahead and samples more often, and separation keeps the near ones apart
// (docs/DECISIONS.md).
dtObstacleAvoidanceParams avoidance_params() {
  dtObstacleAvoidanceParams p{};
  p.velBias = 0.4f;
  p.weightDesVel = 2.0f;
  p.weightCurVel = 0.75f;
  p.weightSide = 0.75f;
  p.weightToi = 2.5f;
  p.horizTime = 1.0f;
  p.gridSize = 33;
  p.adaptiveDivs = 5;
  p.adaptiveRings = 2;
  p.adaptiveDepth = 1;
  return p;
}

// Whether an agent at p moving at v meets a neighbour at q moving at w (circles of radius r
// together) within `horizon` seconds: only then is the velocity worth sampling.
bool on_collision_course(const Vec3& p, const Vec3& v, const Vec3& q, const Vec3& w, float r, float horizon) {
  const float dx = q.x - p.x, dz = q.z - p.z;  // where the neighbour is
  const float ux = v.x - w.x, uz = v.z - w.z;  // how fast the agent closes on it
  const float c = dx * dx + dz * dz - r * r;
  if (c <= 0) return true;  // touching already: let the sampler push apart
  const float b = dx * ux + dz * uz;
  if (b <= 0) return false;  // moving apart
  const float a = ux * ux + uz * uz;
  const float disc = b * b - a * c;
  if (disc < 0) return false;  // passes by
  const float t = (b - std::sqrt(disc)) / a;
  return t <= horizon;
}

}  // namespace

struct NavCrowd::State {
  World world;
  NavMesh navmesh;
  NavCrowdSettings settings;
  std::vector<NavAgent> agents;
  std::vector<Walker> walkers;
  std::vector<MoveResult> results;
  std::vector<MoveSegments> segments;
  NavTickTimes times;
  std::uint64_t tick = 0;

  // The tick-start state (stage 1).
  std::vector<Vec3> feet, velocity, desired;
  // The agents by cell of a grid over their feet (counting sort): cell c holds
  // by_cell[cell_start[c] .. cell_start[c + 1]). Cells are at least neighbour_distance wide, so the
  // 3 x 3 cells around an agent hold every neighbour; the order within a cell never shows, since
  // neighbours are ranked by distance, id and body bytes.
  std::vector<std::uint32_t> by_cell, cell_start;
  std::vector<Vec3> cell_feet;  // feet[by_cell[m]]: the neighbour search reads them in order, not scattered
  float cell_size = 1, cell_x0 = 0, cell_z0 = 0;
  int cells_x = 1, cells_z = 1;
  std::vector<Vec3> next_velocity;           // stage 2's answer

  std::mutex planners_lock;
  std::vector<std::unique_ptr<Planner>> planners;
  MoveCache neighbourhoods;  // each agent's, kept between ticks (the same moves, faster)

  State(World w, NavMesh n, NavCrowdSettings s) : world(std::move(w)), navmesh(std::move(n)), settings(std::move(s)) {}

  std::unique_ptr<Planner> take_planner() {
    {
      std::lock_guard<std::mutex> lock(planners_lock);
      if (!planners.empty()) {
        std::unique_ptr<Planner> p = std::move(planners.back());
        planners.pop_back();
        return p;
      }
    }
    auto p = std::make_unique<Planner>();
    p->query = navmesh.data().query();
    p->avoidance.reset(dtAllocObstacleAvoidanceQuery());
    if (!p->avoidance || !p->avoidance->init(settings.max_neighbours, 0)) {
      throw std::runtime_error("navigation: out of memory for obstacle avoidance");
    }
    return p;
  }
  void give_back(std::unique_ptr<Planner> p) {
    std::lock_guard<std::mutex> lock(planners_lock);
    planners.push_back(std::move(p));
  }

  int cell_x(float x) const { return std::clamp(int((x - cell_x0) / cell_size), 0, cells_x - 1); }
  int cell_z(float z) const { return std::clamp(int((z - cell_z0) / cell_size), 0, cells_z - 1); }

  void snapshot();
  void plan(std::size_t i, Planner& planner);
  void find_path(std::size_t i, Planner& planner, dtPolyRef start, const float* start_point);
  void steer(std::size_t i, Planner& planner);
  struct Near {
    float d2;
    std::uint32_t id, index;
  };
  int neighbours(std::size_t i, Near* nearest) const;
  Vec3 separate(std::size_t i, const Near* nearest, int count, const Vec3& v) const;
  void avoid(std::size_t i, Planner& planner, const Near* nearest, int count, Vec3& v);
  void settle(std::size_t i);
};

void NavCrowd::State::snapshot() {
  const std::size_t n = agents.size();
  feet.resize(n);
  velocity.resize(n);
  desired.resize(n);
  next_velocity.assign(n, Vec3{});
  for (std::size_t i = 0; i < n; ++i) {
    feet[i] = feet_of(agents[i].capsule);
    const Vec3 moved = results.empty() ? Vec3{} : results[i].moved;
    velocity[i] = Vec3{moved.x, 0, moved.z} * (1.f / settings.move.dt);
    desired[i] = agents[i].velocity;
  }
  // The grid: no more cells than 4 per agent (and 1024), however spread out the agents are.
  float lo_x = 0, hi_x = 0, lo_z = 0, hi_z = 0;
  bool first = true;
  for (const Vec3& f : feet) {
    if (!std::isfinite(f.x) || !std::isfinite(f.z)) continue;
    lo_x = first ? f.x : std::min(lo_x, f.x);
    hi_x = first ? f.x : std::max(hi_x, f.x);
    lo_z = first ? f.z : std::min(lo_z, f.z);
    hi_z = first ? f.z : std::max(hi_z, f.z);
    first = false;
  }
  const float extent = std::max({hi_x - lo_x, hi_z - lo_z, 1e-3f});
  const float most = std::sqrt(float(4 * n + 1024));
  cell_size = std::max(settings.neighbour_distance, extent / most);
  cell_x0 = lo_x;
  cell_z0 = lo_z;
  cells_x = std::min(int(most) + 1, int((hi_x - lo_x) / cell_size) + 1);
  cells_z = std::min(int(most) + 1, int((hi_z - lo_z) / cell_size) + 1);
  const std::size_t cells = std::size_t(cells_x) * std::size_t(cells_z);
  cell_start.assign(cells + 1, 0);
  std::vector<std::uint32_t> cell_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    cell_of[i] = std::uint32_t(cell_z(feet[i].z)) * std::uint32_t(cells_x) + std::uint32_t(cell_x(feet[i].x));
    ++cell_start[cell_of[i] + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) cell_start[c + 1] += cell_start[c];
  by_cell.resize(n);
  std::vector<std::uint32_t> fill(cell_start.begin(), cell_start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) by_cell[fill[cell_of[i]]++] = std::uint32_t(i);
  cell_feet.resize(n);
  for (std::size_t m = 0; m < n; ++m) cell_feet[m] = feet[by_cell[m]];
}

// A path from where agent i stands to its goal: walking along a new corridor, or no_path.
void NavCrowd::State::find_path(std::size_t i, Planner& planner, dtPolyRef start, const float* start_point) {
  NavAgent& a = agents[i];
  Walker& w = walkers[i];
  const NavMesh::Data& d = navmesh.data();
  const Vec3 reach = d.reach() * 2.f;
  dtPolyRef end = 0;
  float end_point[3];
  ++a.replans;
  w.planned = false;
  w.checkpoint = feet[i];
  w.next_check = tick + std::uint64_t(std::max(1.f, settings.replan_seconds / settings.move.dt));
  if (!dtStatusSucceed(planner.query->findNearestPoly(&a.goal.x, &reach.x, &d.filter(), &end, end_point)) || end == 0) {
    a.status = NavStatus::no_path;
    return;
  }
  std::vector<dtPolyRef> path(std::size_t(settings.max_path_polygons));
  int count = 0;
  const dtStatus status =
      planner.query->findPath(start, end, start_point, end_point, &d.filter(), path.data(), &count, int(path.size()));
  // A partial path ends where the goal is nearest without reaching it: the goal is unreachable
  // (or beyond what the query's nodes can search). A path cut by max_path_polygons is followed.
  if (dtStatusFailed(status) || count == 0 || dtStatusDetail(status, DT_PARTIAL_RESULT)) {
    a.status = NavStatus::no_path;
    return;
  }
  w.corridor->reset(start, start_point);
  w.corridor->setCorridor(end_point, path.data(), count);
  w.planned = true;
  a.status = NavStatus::walking;
}

void NavCrowd::State::plan(std::size_t i, Planner& planner) {
  NavAgent& a = agents[i];
  Walker& w = walkers[i];
  const NavMesh::Data& d = navmesh.data();
  a.returning = false;
  if (a.status == NavStatus::idle || a.status == NavStatus::arrived) return;
  if (a.status == NavStatus::no_path && tick < w.next_check) return;  // waits, retries now and then

  const Vec3 reach = d.reach();
  if (w.planned && a.status == NavStatus::walking) {
    // Keep the corridor on the polygons the body walked to; pushed somewhere the corridor cannot
    // follow (farther than a radius from where it ends up), or no progress: plan again.
    w.corridor->movePosition(&feet[i].x, planner.query.get(), &d.filter());
    const float* pos = w.corridor->getPos();
    bool replan = horizontal_distance(Vec3{pos[0], pos[1], pos[2]}, feet[i]) > reach.x ||
                  std::fabs(pos[1] - feet[i].y) > reach.y;
    if (tick >= w.next_check) {
      if (horizontal_distance(w.checkpoint, feet[i]) < 0.5f) replan = true;
      w.checkpoint = feet[i];
      w.next_check = tick + std::uint64_t(std::max(1.f, settings.replan_seconds / settings.move.dt));
    }
    if (!replan) return;
  }
  dtPolyRef here = 0;
  float here_point[3];
  // Detour's nearest polygon is the nearest of those whose boxes meet the search box: it may lie
  // farther than the box reaches. Farther than a radius away, the agent is not on it.
  if (!dtStatusSucceed(planner.query->findNearestPoly(&feet[i].x, &reach.x, &d.filter(), &here, here_point)) ||
      here == 0 || horizontal_distance(Vec3{here_point[0], here_point[1], here_point[2]}, feet[i]) > reach.x) {
    // Off the mesh: walk straight to the nearest polygon within return_reach, or stay.
    a.status = NavStatus::off_mesh;
    w.planned = false;
    const Vec3 far{settings.return_reach, settings.return_reach, settings.return_reach};
    dtPolyRef near = 0;
    float p[3];
    if (dtStatusSucceed(planner.query->findNearestPoly(&feet[i].x, &far.x, &d.filter(), &near, p)) && near != 0) {
      a.returning = true;
      const Vec3 to{p[0] - feet[i].x, 0, p[2] - feet[i].z};
      const float dist = length(to);
      if (dist > 0) next_velocity[i] = to * (std::min(a.speed, dist / settings.move.dt) / dist);
    }
    return;
  }
  find_path(i, planner, here, here_point);
}

void NavCrowd::State::steer(std::size_t i, Planner& planner) {
  NavAgent& a = agents[i];
  Walker& w = walkers[i];
  if (a.status != NavStatus::walking || !w.planned) return;
  const NavMesh::Data& d = navmesh.data();
  const float* target = w.corridor->getTarget();
  if (at_target(target, feet[i], settings.arrive_distance, d.settings.agent_height)) {
    a.status = NavStatus::arrived;
    return;
  }
  constexpr int kCorners = 3;
  float corners[3 * kCorners];
  unsigned char flags[kCorners];
  dtPolyRef polys[kCorners];
  int n = w.corridor->findCorners(corners, flags, polys, kCorners, planner.query.get(), &d.filter());
  // Shorten the corridor toward the corner after next now and then (every 12 ticks, staggered
  // by id), as DetourCrowd does: a raycast costs about a path search's step.
  if (n > 0 && (tick + a.id) % 12 == 0) {
    const float* next = &corners[3 * std::min(1, n - 1)];
    w.corridor->optimizePathVisibility(next, 30 * d.settings.agent_radius, planner.query.get(), &d.filter());
    n = w.corridor->findCorners(corners, flags, polys, kCorners, planner.query.get(), &d.filter());
  }
  if (n == 0) {
    a.status = NavStatus::arrived;
    return;
  }
  const Vec3 corner{corners[0], corners[1], corners[2]};
  Vec3 to{corner.x - feet[i].x, 0, corner.z - feet[i].z};
  float dist = length(to);
  if (dist < 1e-4f) return;
  // Full speed toward the corner; at the last one, no farther than it.
  float speed = a.speed;
  if (n == 1 && (flags[0] & DT_STRAIGHTPATH_END)) speed = std::min(speed, dist / settings.move.dt);
  Vec3 v = to * (speed / dist);
  // Anticipated turns (dtCrowd's calcSmoothSteerDirection): toward the first corner, bent away
  // from the second in proportion to how near the first is, so the agent cuts into the turn.
  if (n >= 2) {
    Vec3 to1{corners[3] - feet[i].x, 0, corners[5] - feet[i].z};
    const float len1 = length(to1);
    if (len1 > 1e-3f) {
      const Vec3 bent = to - to1 * (0.5f * dist / len1);
      const float lb = length(bent);
      if (lb > 1e-4f) v = bent * (speed / lb);
    }
  }
  if (settings.avoidance) {
    Near nearest[32];
    const int count = neighbours(i, nearest);
    v = separate(i, nearest, count, v);
    avoid(i, planner, nearest, count, v);
  }
  next_velocity[i] = v;
}

// The max_neighbours agents nearest agent i within neighbour_distance and a body height up or
// down, nearest first (by distance, then id, then body bytes: a total order).
int NavCrowd::State::neighbours(std::size_t i, Near* nearest) const {
  const float range = settings.neighbour_distance;
  const float height = navmesh.settings().agent_height;
  int count = 0;
  const int cx = cell_x(feet[i].x), cz = cell_z(feet[i].z);
  for (int z = std::max(0, cz - 1); z <= std::min(cells_z - 1, cz + 1); ++z) {
    for (int x = std::max(0, cx - 1); x <= std::min(cells_x - 1, cx + 1); ++x) {
      const std::size_t c = std::size_t(z) * std::size_t(cells_x) + std::size_t(x);
      for (std::uint32_t m = cell_start[c]; m < cell_start[c + 1]; ++m) {
        const Vec3& f = cell_feet[m];
        const float dx = f.x - feet[i].x, dz = f.z - feet[i].z, d2 = dx * dx + dz * dz;
        if (d2 > range * range || std::fabs(f.y - feet[i].y) > height) continue;
        const std::uint32_t j = by_cell[m];
        if (j == i) continue;
        const Near cand{d2, agents[j].id, j};
        auto before = [&](const Near& p, const Near& q) {
          if (p.d2 != q.d2) return p.d2 < q.d2;
          if (p.id != q.id) return p.id < q.id;
          return std::memcmp(&agents[p.index].capsule, &agents[q.index].capsule, sizeof(Capsule)) < 0;
        };
        // Insert in order, keeping the nearest max_neighbours.
        int k;
        if (count < settings.max_neighbours) {
          k = count++;
        } else if (before(cand, nearest[count - 1])) {
          k = count - 1;
        } else {
          continue;
        }
        nearest[k] = cand;
        for (; k > 0 && before(nearest[k], nearest[k - 1]); --k) std::swap(nearest[k], nearest[k - 1]);
      }
    }
  }
  return count;
}

// DetourCrowd's separation (dtCrowd::update, DT_CROWD_SEPARATION): each neighbour within
// neighbour_distance pushes the desired velocity away from it, weighted by 1 - (d / range)^2,
// averaged over the neighbours; the result is no faster than the agent walks. Plus a consistent
// side in counterflow: a neighbour ahead walking toward the agent pushes it to its right, so
// opposite streams pass each other on one side instead of meeting head on.
Vec3 NavCrowd::State::separate(std::size_t i, const Near* nearest, int count, const Vec3& v) const {
  constexpr float weight = 1.f;  // half RecastDemo's separationWeight: 2 slowed the crowd (docs/DECISIONS.md)
  constexpr float right = 1.f;   // as strong as the separation from one neighbour at arm's length
  if (count == 0) return v;
  const float range = settings.neighbour_distance;
  const float speed = length(v);
  if (speed < 1e-4f) return v;
  const Vec3 dir = v * (1.f / speed);
  const Vec3 side{-dir.z, 0, dir.x};  // the agent's right, y up
  Vec3 push{};
  for (int k = 0; k < count; ++k) {
    const std::uint32_t j = nearest[k].index;
    const Vec3 diff{feet[i].x - feet[j].x, 0, feet[i].z - feet[j].z};
    const float d2 = nearest[k].d2;
    if (d2 < 1e-10f) continue;
    const float d = std::sqrt(d2);
    const float falloff = 1.f - d2 / (range * range);
    push = push + diff * (weight * falloff / d);
    const float ahead = -(diff.x * dir.x + diff.z * dir.z) / d;           // cosine of where j is
    const float toward = -(desired[j].x * dir.x + desired[j].z * dir.z);  // j's speed against ours
    if (ahead > 0.3f && toward > 0.3f * length(desired[j])) push = push + side * (right * falloff * ahead);
  }
  Vec3 out = v + push * (speed / float(count));
  const float len = length(out);
  if (len > speed) out = out * (speed / len);
  return out;
}

// Detour's sampled velocity obstacles against the nearest neighbours, all as they stood at the
// start of the tick.
void NavCrowd::State::avoid(std::size_t i, Planner& planner, const Near* nearest, int count, Vec3& v) {
  if (count == 0) return;
  static const dtObstacleAvoidanceParams params = avoidance_params();
  const float own = agents[i].capsule.radius + settings.move.skin;
  bool course = false;
  for (int k = 0; k < count && !course; ++k) {
    const std::uint32_t j = nearest[k].index;
    course = on_collision_course(feet[i], v, feet[j], velocity[j], own + agents[j].capsule.radius + settings.move.skin,
                                 params.horizTime);
  }
  if (!course) return;
  dtObstacleAvoidanceQuery& q = *planner.avoidance;
  q.reset();
  for (int k = 0; k < count; ++k) {
    const std::uint32_t j = nearest[k].index;
    q.addCircle(&feet[j].x, agents[j].capsule.radius + settings.move.skin, &velocity[j].x, &desired[j].x);
  }
  float out[3];
  q.sampleVelocityAdaptive(&feet[i].x, agents[i].capsule.radius + settings.move.skin, agents[i].speed, &velocity[i].x,
                           &v.x, out, &params);
  v = {out[0], 0, out[2]};
}

// After the move: arrived when the body reached its corridor's end.
void NavCrowd::State::settle(std::size_t i) {
  NavAgent& a = agents[i];
  if (a.status != NavStatus::walking || !walkers[i].planned) return;
  const float* target = walkers[i].corridor->getTarget();
  const Vec3 f = feet_of(a.capsule);
  if (at_target(target, f, settings.arrive_distance, navmesh.settings().agent_height)) {
    a.status = NavStatus::arrived;
  }
}

NavCrowd::NavCrowd(World world, NavMesh navmesh, NavCrowdSettings settings)
    : state_(std::make_unique<State>(std::move(world), std::move(navmesh), std::move(settings))) {
  if (const std::string problem = check_settings(state_->settings.move); !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const NavCrowdSettings& s = state_->settings;
  if (!(s.max_neighbours >= 1 && s.max_neighbours <= 32) || !(s.max_path_polygons >= 2 && s.max_path_polygons <= 4096) ||
      !(s.arrive_distance > 0) || !(s.return_reach >= 0 && s.return_reach <= kMaxNavReach) ||
      !(s.neighbour_distance > 0) || !(s.replan_seconds > 0)) {
    throw std::invalid_argument(
        "navigation: crowd settings out of range (max_neighbours 1-32, max_path_polygons 2-4096, arrive_distance, "
        "neighbour_distance and replan_seconds > 0, return_reach 0 to 1000 m)");
  }
}
NavCrowd::~NavCrowd() = default;
NavCrowd::NavCrowd(NavCrowd&&) noexcept = default;
NavCrowd& NavCrowd::operator=(NavCrowd&&) noexcept = default;

std::size_t NavCrowd::add(const Capsule& body, float speed, std::uint32_t id, std::uint32_t layers) {
  State& s = *state_;
  if (!(speed > 0) || !std::isfinite(speed)) throw std::invalid_argument("navigation: an agent's speed must be > 0");
  if (body.radius > s.navmesh.settings().agent_radius) {
    throw std::invalid_argument("navigation: the body is wider than the navmesh's agent radius: build it with "
                                "navmesh_settings for this body");
  }
  NavAgent a;
  a.capsule = body;
  a.speed = speed;
  a.id = id;
  a.layers = layers;
  a.goal = feet_of(body);
  s.agents.push_back(a);
  Walker w;
  w.corridor = std::make_unique<dtPathCorridor>();
  if (!w.corridor->init(s.settings.max_path_polygons)) throw std::runtime_error("navigation: out of memory");
  s.walkers.push_back(std::move(w));
  s.results.clear();
  return s.agents.size() - 1;
}

void NavCrowd::set_carried(std::size_t i, float vertical_speed, std::uint32_t ground_triangle) {
  NavAgent& a = state_->agents.at(i);
  if (!std::isfinite(vertical_speed)) throw std::invalid_argument("navigation: a vertical speed must be finite");
  a.vertical_speed = vertical_speed;
  a.ground_triangle = ground_triangle;
}

void NavCrowd::set_goal(std::size_t i, const Vec3& goal) {
  NavAgent& a = state_->agents.at(i);
  a.goal = goal;
  a.status = NavStatus::walking;
  a.replans = 0;
  state_->walkers[i].planned = false;
}

void NavCrowd::tick() {
  State& s = *state_;
  const std::size_t n = s.agents.size();
  const auto t0 = std::chrono::steady_clock::now();
  s.snapshot();
  parallel::in_arena(s.settings.batch.threads, [&] {
    parallel::for_ranges(std::size_t(0), n, std::size_t(16), [&](parallel::Range<std::size_t> r) {
      std::unique_ptr<Planner> planner = s.take_planner();
      for (std::size_t i = r.begin(); i < r.end(); ++i) {
        s.plan(i, *planner);
        s.steer(i, *planner);
      }
      s.give_back(std::move(planner));
    });
  });
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<Agent> batch(n);
  for (std::size_t i = 0; i < n; ++i) {
    NavAgent& a = s.agents[i];
    a.velocity = s.next_velocity[i];
    Agent& m = batch[i];
    m.capsule = a.capsule;
    m.displacement = a.velocity * s.settings.move.dt;
    m.vertical_speed = a.vertical_speed;
    m.id = a.id;
    m.layers = a.layers;
    m.ground_triangle = a.ground_triangle;
  }
  s.results.resize(n);
  s.segments.resize(s.settings.trace ? n : 0);
  s.world.move(batch, s.settings.move, s.results, s.neighbourhoods, s.settings.batch, s.segments);
  const auto t2 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < n; ++i) {
    NavAgent& a = s.agents[i];
    a.capsule = s.results[i].capsule;
    a.vertical_speed = s.results[i].vertical_speed;
    a.ground_triangle = s.results[i].ground_triangle;
    s.settle(i);
  }
  ++s.tick;
  s.times.planning = std::chrono::duration<double>(t1 - t0).count();
  s.times.moving = std::chrono::duration<double>(t2 - t1).count();
}

std::span<const NavAgent> NavCrowd::agents() const { return state_->agents; }
std::span<const MoveResult> NavCrowd::results() const { return state_->results; }
std::span<const MoveSegments> NavCrowd::segments() const { return state_->segments; }
const NavTickTimes& NavCrowd::times() const { return state_->times; }
const World& NavCrowd::world() const { return state_->world; }
const NavMesh& NavCrowd::navmesh() const { return state_->navmesh; }

std::vector<Vec3> NavCrowd::corners(std::size_t i, int max) const {
  State& s = *state_;
  std::vector<Vec3> out;
  const Walker& w = s.walkers.at(i);
  if (!w.planned || max <= 0) return out;
  NavQueryPtr q = s.navmesh.data().query();
  std::vector<float> c(3 * std::size_t(max));
  std::vector<unsigned char> flags(static_cast<std::size_t>(max));
  std::vector<dtPolyRef> polys(static_cast<std::size_t>(max));
  const int n = w.corridor->findCorners(c.data(), flags.data(), polys.data(), max, q.get(), &s.navmesh.data().filter());
  for (int k = 0; k < n; ++k) out.push_back({c[3 * std::size_t(k)], c[3 * std::size_t(k) + 1], c[3 * std::size_t(k) + 2]});
  return out;
}

}  // namespace capsweep
