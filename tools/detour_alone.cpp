// DetourCrowd alone, checked by the exact oracle (tools/detour_alone.h).
#include "tools/detour_alone.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <stdexcept>

#include <recastnavigation/DetourCrowd.h>

#include "core/random.h"
#include "nav/navmesh_data.h"
#include "parallel/executor.h"
#include "tools/workloads.h"

namespace capsweep {

namespace {

struct CrowdFree {
  void operator()(dtCrowd* c) const { dtFreeCrowd(c); }
};

// The person standing with its feet at p (Detour's position is on the detail mesh).
Capsule body_at(const float* p, float lift) {
  const Vec3 base{p[0], p[1] + kPersonRadius + lift, p[2]};
  return {base, base + Vec3{0, kPersonAxis, 0}, kPersonRadius};
}

}  // namespace

DetourAloneTotals run_detour_alone(const World& world, const NavMesh& navmesh, const NavRunSettings& settings,
                                   std::size_t ticks) {
  const std::vector<Capsule> bodies =
      spawn_on_navmesh(world, navmesh, settings.crowd.move, settings.agents, settings.seed);
  std::unique_ptr<dtCrowd, CrowdFree> crowd(dtAllocCrowd());
  auto* mesh = const_cast<dtNavMesh*>(navmesh.data().mesh.get());  // dtCrowd::init takes it non-const; it only reads
  if (!crowd || !crowd->init(int(bodies.size()), navmesh.settings().agent_radius, mesh)) {
    throw std::runtime_error("DetourCrowd: init failed");
  }
  crowd->getEditableFilter(0)->setIncludeFlags(kWalkablePolygon);
  Random speeds(settings.seed ^ 0x5eedull);
  const float skin = settings.crowd.move.skin;
  std::vector<std::uint64_t> drawn(bodies.size(), 0);
  std::vector<Vec3> goal(bodies.size());
  auto next_goal = [&](std::size_t i, const Vec3& from) {
    for (int attempt = 0; attempt < 16; ++attempt) {
      const std::uint64_t seed = settings.seed * 0x9E3779B97F4A7C15ull + (std::uint64_t(i) << 24) + drawn[i]++;
      Vec3 g;
      if (!navmesh.random_reachable(from, seed, g)) break;
      const NavPath path = navmesh.path(from, g);
      if (!path.complete || path.length < settings.min_goal_distance) continue;
      goal[i] = g;
      dtPolyRef ref = 0;
      float nearest[3];
      const Vec3 reach = navmesh.data().reach();
      crowd->getNavMeshQuery()->findNearestPoly(&g.x, &reach.x, crowd->getFilter(0), &ref, nearest);
      crowd->requestMoveTarget(int(i), ref, nearest);
      return;
    }
  };
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    dtCrowdAgentParams p{};
    p.radius = navmesh.settings().agent_radius;
    p.height = navmesh.settings().agent_height;
    p.maxSpeed = float(speeds.uniform(settings.min_speed, settings.max_speed));
    p.maxAcceleration = 8.f * p.maxSpeed;  // RecastDemo's: reaches full speed in an eighth of a second
    p.collisionQueryRange = p.radius * 12;
    p.pathOptimizationRange = p.radius * 30;
    p.separationWeight = 2;
    p.updateFlags = DT_CROWD_ANTICIPATE_TURNS | DT_CROWD_OBSTACLE_AVOIDANCE | DT_CROWD_SEPARATION |
                    DT_CROWD_OPTIMIZE_VIS | DT_CROWD_OPTIMIZE_TOPO;
    p.obstacleAvoidanceType = 1;
    const Vec3 feet{bodies[i].a.x, bodies[i].a.y - bodies[i].radius, bodies[i].a.z};
    if (crowd->addAgent(&feet.x, &p) != int(i)) throw std::runtime_error("DetourCrowd: addAgent failed");
    next_goal(i, feet);
  }
  DetourAloneTotals totals;
  std::vector<Vec3> before(bodies.size());
  std::vector<std::uint8_t> inside(bodies.size()), through(bodies.size());
  for (std::size_t t = 0; t < ticks; ++t) {
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      const float* p = crowd->getAgent(int(i))->npos;
      before[i] = {p[0], p[1], p[2]};
    }
    const auto start = std::chrono::steady_clock::now();
    crowd->update(settings.crowd.move.dt, nullptr);
    totals.update_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    parallel::in_arena(settings.crowd.batch.threads, [&] {
      parallel::for_ranges<std::size_t>(0, bodies.size(), 32, [&](const auto& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          const float* p = crowd->getAgent(int(i))->npos;
          // Standing a skin above where Detour put its feet: inside only by more than the skin.
          const Capsule now = body_at(p, skin);
          inside[i] = !world.is_clear(now, 0.f, kAllLayers) ? 1 : 0;
          SweepQuery q{body_at(&before[i].x, skin), Vec3{p[0], p[1], p[2]} - before[i]};
          q.capsule.radius -= skin;
          SweepHit hit;
          world.sweep_one(q, hit, SweepPath::scalar);
          through[i] = hit.hit && hit.t > 0 && hit.t < 1 ? 1 : 0;
        }
      });
    });
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      ++totals.agent_ticks;
      totals.inside += inside[i];
      totals.through += through[i];
      const float* p = crowd->getAgent(int(i))->npos;
      if (std::hypot(p[0] - goal[i].x, p[2] - goal[i].z) <= settings.crowd.arrive_distance) {
        ++totals.goals_reached;
        next_goal(i, Vec3{p[0], p[1], p[2]});
      }
    }
  }
  return totals;
}

}  // namespace capsweep
