// A navigating crowd at work: spawn, goals, figures and invariants (tools/nav_run.h).
#include "tools/nav_run.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

#include "broadphase/agent_grid.h"
#include "core/random.h"
#include "parallel/executor.h"
#include "tools/crowd.h"
#include "tools/workloads.h"

namespace capsweep {

namespace {

Vec3 feet_of(const Capsule& c) { return {c.a.x, std::min(c.a.y, c.b.y) - c.radius, c.a.z}; }

// Agents placed so far, by horizontal cell of `size` metres: spawning adds them one at a time,
// which AgentGrid (built once from a whole crowd) does not.
class Cells {
 public:
  explicit Cells(float size) : size_(size) {}
  std::uint64_t key(const Vec3& p) const {
    const auto x = std::int64_t(std::floor(p.x / size_)), z = std::int64_t(std::floor(p.z / size_));
    return (std::uint64_t(x + (1ll << 31)) << 32) | std::uint64_t(z + (1ll << 31));
  }
  void add(const Vec3& p, std::uint32_t i) { cells_[key(p)].push_back(i); }
  template <class Visit>
  void near(const Vec3& p, Visit&& visit) const {
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dz = -1; dz <= 1; ++dz) {
        const Vec3 q{p.x + float(dx) * size_, p.y, p.z + float(dz) * size_};
        auto it = cells_.find(key(q));
        if (it == cells_.end()) continue;
        for (std::uint32_t j : it->second) visit(j);
      }
    }
  }

 private:
  float size_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> cells_;
};

}  // namespace

World side_by_side(const World& world, int copies) {
  const std::vector<Triangle> mesh = world.mesh_triangles();
  const float step = world.bounds().max.x - world.bounds().min.x + 2.f;
  std::vector<Triangle> all;
  all.reserve(mesh.size() * std::size_t(copies));
  for (int k = 0; k < copies; ++k) {
    for (Triangle t : mesh) {
      for (Vec3& v : t.v) v.x += step * float(k);
      all.push_back(t);
    }
  }
  return World(std::move(all));
}

float percentile(std::vector<float> values, double fraction) {
  if (values.empty()) return 0;
  const std::size_t k = std::min(values.size() - 1, std::size_t(fraction * double(values.size())));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
  return values[k];
}

bool stand_at(const World& world, const Vec3& point, const MoveSettings& move, Capsule& out) {
  const float lift = 0.5f;
  const Vec3 base{point.x, point.y + kPersonRadius + lift, point.z};
  const SweepQuery down{{base, base + Vec3{0, kPersonAxis, 0}, kPersonRadius}, {0, -2 * lift, 0}};
  SweepHit hit;
  world.sweep_one(down, hit);
  if (!hit.hit || hit.t <= 0) return false;
  const float drop = 2 * lift * hit.t - move.skin - move.backoff;
  out = down.capsule;
  out.a.y -= drop;
  out.b.y -= drop;
  return true;
}

std::vector<Capsule> spawn_on_navmesh(const World& world, const NavMesh& navmesh, const MoveSettings& move,
                                      std::size_t count, std::uint64_t seed) {
  const std::vector<Triangle> surface = navmesh.triangles();
  std::vector<double> cumulative;
  double total = 0;
  for (const Triangle& t : surface) {
    total += 0.5 * double(length(cross(t.v[1] - t.v[0], t.v[2] - t.v[0])));
    cumulative.push_back(total);
  }
  if (surface.empty()) throw std::runtime_error("spawn: the navmesh has no polygon");
  Random rng(seed);
  std::vector<Capsule> placed;
  Cells cells(2 * kPersonRadius + 2 * move.skin + 0.01f);
  std::size_t failed = 0;
  while (placed.size() < count) {
    if (failed > 1000 + 100 * count) {
      throw std::runtime_error("spawn: room on the navmesh for " + std::to_string(placed.size()) + " of " +
                               std::to_string(count) + " agents");
    }
    const double pick = rng.uniform() * total;
    const std::size_t k = std::min(std::size_t(std::upper_bound(cumulative.begin(), cumulative.end(), pick) -
                                               cumulative.begin()),
                                   surface.size() - 1);
    double u = rng.uniform(), v = rng.uniform();
    if (u + v > 1) u = 1 - u, v = 1 - v;
    const Triangle& t = surface[k];
    const Vec3 p = t.v[0] + (t.v[1] - t.v[0]) * float(u) + (t.v[2] - t.v[0]) * float(v);
    Capsule c;
    if (!stand_at(world, p, move, c)) {
      ++failed;
      continue;
    }
    bool free = world.is_clear(c, move.skin);
    cells.near(c.a, [&](std::uint32_t j) {
      if (free && capsules_overlap(c, placed[j], -2 * move.skin)) free = false;
    });
    if (!free) {
      ++failed;
      continue;
    }
    cells.add(c.a, std::uint32_t(placed.size()));
    placed.push_back(c);
  }
  return placed;
}

NavRun::NavRun(const World& world, const NavMesh& navmesh, const NavRunSettings& settings)
    : world_(world), navmesh_(navmesh), settings_(settings), crowd_(world, navmesh, settings.crowd) {
  const std::vector<Capsule> bodies = spawn_on_navmesh(world, navmesh, settings.crowd.move, settings.agents, settings.seed);
  Random speeds(settings.seed ^ 0x5eedull);
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    crowd_.add(bodies[i], float(speeds.uniform(settings.min_speed, settings.max_speed)), std::uint32_t(i));
  }
  goal_tick_.assign(bodies.size(), 0);
  goals_drawn_.assign(bodies.size(), 0);
  shortest_time_.assign(bodies.size(), 0);
  for (std::size_t i = 0; i < bodies.size(); ++i) next_goal(i);
  const Aabb b = world.bounds();
  auto big = [](const Vec3& v) { return std::max({std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)}); };
  tolerance_ = std::max(1e-4f, 4e-7f * std::max(big(b.min), big(b.max)));
}

// A random goal reachable from where agent i stands, drawn from its own stream: at least
// min_goal_distance away along the shortest path.
void NavRun::next_goal(std::size_t i) {
  const NavAgent& a = crowd_.agents()[i];
  const Vec3 feet = feet_of(a.capsule);
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::uint64_t seed = settings_.seed * 0x9E3779B97F4A7C15ull + (std::uint64_t(a.id) << 24) + goals_drawn_[i]++;
    Vec3 goal;
    if (!navmesh_.random_reachable(feet, seed, goal)) break;
    const NavPath path = navmesh_.path(feet, goal);
    if (!path.complete || path.length < settings_.min_goal_distance) continue;
    crowd_.set_goal(i, goal);
    goal_tick_[i] = totals_.ticks;
    shortest_time_[i] = path.length / a.speed;
    return;
  }
  // Nowhere to go from here (off the mesh, or on an island): a goal where it stands.
  crowd_.set_goal(i, feet);
  goal_tick_[i] = totals_.ticks;
  shortest_time_[i] = 0;
}

void NavRun::tick() {
  crowd_.tick();
  ++totals_.ticks;
  const float dt = settings_.crowd.move.dt;
  totals_.planning_seconds += crowd_.times().planning;
  totals_.moving_seconds += crowd_.times().moving;
  const auto agents = crowd_.agents();
  const auto results = crowd_.results();
  for (std::size_t i = 0; i < agents.size(); ++i) {
    ++totals_.agent_ticks;
    const NavStatus s = agents[i].status;
    if (results[i].flags & kMoveBlocked) {
      ++totals_.blocked;
    } else if (s == NavStatus::walking) {
      const Vec3 moved = results[i].moved;
      if (std::hypot(moved.x, moved.z) < 0.1f * agents[i].speed * dt) ++totals_.stalled;
    }
    if (s == NavStatus::walking) ++totals_.walking;
    if (s == NavStatus::no_path) ++totals_.no_path;
    if (s == NavStatus::off_mesh) ++totals_.off_mesh;
    const float taken = float(totals_.ticks - goal_tick_[i]) * dt;
    if (s == NavStatus::arrived) {
      if (shortest_time_[i] > 0) {
        ++totals_.goals_reached;
        totals_.time_ratios.push_back(taken / shortest_time_[i]);
      }
      next_goal(i);
    } else if (s == NavStatus::no_path || (shortest_time_[i] > 0 && taken > 4 * shortest_time_[i] + 10)) {
      ++totals_.goals_given_up;
      next_goal(i);
    }
  }
  check();
}

void NavRun::check() {
  const auto agents = crowd_.agents();
  const float skin = settings_.crowd.move.skin;
  std::vector<std::uint8_t> penetrating(agents.size()), overlapping(agents.size());
  std::vector<Capsule> ends(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i) ends[i] = agents[i].capsule;
  AgentGrid grid;  // as Crowd::check meets the others
  grid.build(ends);
  const auto segments = crowd_.segments();
  std::vector<std::uint32_t> crossing(agents.size()), travelled(agents.size());
  parallel::in_arena(settings_.crowd.batch.threads, [&] {
    parallel::for_ranges<std::size_t>(0, agents.size(), 32, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        const Capsule& c = agents[i].capsule;
        penetrating[i] = !world_.is_clear(c, skin - tolerance_, agents[i].layers);
        grid.for_each_overlapping(swept_bounds(c, {}), [&](std::uint32_t j) {
          if (j > i && capsules_overlap(c, ends[j], tolerance_)) overlapping[i] = 1;
        });
        if (!settings_.check_segments || segments.empty()) continue;
        // The body shrunk by the skin: it meets only what the body went deeper than a skin into.
        for (int k = 0; k < segments[i].count; ++k) {
          const MoveSegments::Segment& s = segments[i].segment[k];
          SweepQuery q{s.capsule, s.motion, agents[i].layers};
          q.capsule.radius -= skin;
          SweepHit hit;
          world_.sweep_one(q, hit, SweepPath::scalar);
          ++travelled[i];
          if (hit.hit && hit.t > 0 && hit.t < 1) ++crossing[i];
        }
      }
    });
  });
  for (std::size_t i = 0; i < agents.size(); ++i) {
    totals_.penetrating += penetrating[i];
    totals_.overlapping += overlapping[i];
    totals_.segments += travelled[i];
    totals_.crossing_segments += crossing[i];
  }
}

std::uint64_t NavRun::state_hash() const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
  };
  for (const NavAgent& a : crowd_.agents()) {
    mix(&a.capsule, sizeof a.capsule);
    mix(&a.velocity, sizeof a.velocity);
    mix(&a.status, sizeof a.status);
  }
  return h;
}

}  // namespace capsweep
