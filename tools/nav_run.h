// A navigating crowd at work (issue 39): agents spawned on the navmesh, each walking to a
// sequence of random reachable goals, with the figures the main job prints: goals reached, time
// to goal against the shortest path's, blocked agent-ticks, planning and moving time, and the
// movement invariants (no body inside the skin, no overlapping pair, no travelled segment through
// a triangle). `capsweep demo`, the navigation tests and the benchmark run this.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/navigation.h>

namespace capsweep {

struct NavRunSettings {
  std::size_t agents = 2000;
  std::uint64_t seed = 1;
  float min_speed = 1.0f;  // m/s; each agent walks at its own speed in [min, max]
  float max_speed = 2.0f;
  float min_goal_distance = 3.f;  // goals nearer than this along the path are drawn again
  NavCrowdSettings crowd;
  // Sweep every travelled segment (the body shrunk by the skin) against the world: a segment
  // that meets a triangle before its end went through geometry.
  bool check_segments = true;
};

struct NavRunTotals {
  std::uint64_t ticks = 0, agent_ticks = 0, blocked = 0, walking = 0;
  // Walking, not blocked, yet it moved under a tenth of its speed: it stood aside or waited for
  // others (the avoidance asked for little), which the blocked share does not count.
  std::uint64_t stalled = 0;
  std::uint64_t goals_reached = 0, goals_given_up = 0;  // given up: no_path, or not reached in time
  std::uint64_t no_path = 0, off_mesh = 0;              // agent-ticks
  std::uint64_t penetrating = 0, overlapping = 0;       // agent-ticks inside the skin, pairs
  std::uint64_t segments = 0, crossing_segments = 0;
  std::vector<float> time_ratios;  // per goal reached: time taken / (shortest path / speed)
  double planning_seconds = 0, moving_seconds = 0;
};

class NavRun {
 public:
  // Throws std::runtime_error when the navmesh has too little room for the agents.
  NavRun(const World& world, const NavMesh& navmesh, const NavRunSettings& settings);
  void tick();
  const NavCrowd& crowd() const { return crowd_; }
  const NavRunTotals& totals() const { return totals_; }
  // Equal for runs equal bit for bit: every agent's body, velocity and status.
  std::uint64_t state_hash() const;
  float tolerance() const { return tolerance_; }

 private:
  void next_goal(std::size_t i);
  void check();

  World world_;
  NavMesh navmesh_;
  NavRunSettings settings_;
  NavCrowd crowd_;
  std::vector<std::uint64_t> goal_tick_, goals_drawn_;
  std::vector<float> shortest_time_;
  NavRunTotals totals_;
  float tolerance_;
};

// The person (kPersonRadius, kPersonAxis) standing at `point`: swept down onto the world from half
// a metre above it, then lifted by the skin and backoff. False when nothing is within a metre below.
bool stand_at(const World& world, const Vec3& point, const MoveSettings& move, Capsule& out);

// Spawn places on the navmesh: a random walkable point's nearest polygon, the body set down on
// the world there (swept down onto it, then lifted by the skin and backoff), clear of the world
// and of the places before. Throws std::runtime_error when fewer than `count` fit.
std::vector<Capsule> spawn_on_navmesh(const World& world, const NavMesh& navmesh, const MoveSettings& move,
                                      std::size_t count, std::uint64_t seed);

// The world `copies` times side by side along x (2 m apart): room for 10,000 agents on a level
// that holds 2,000 (the demo's and the benchmark's 10,000-agent tick).
World side_by_side(const World& world, int copies);

// Median and 95th percentile of values (0 when empty).
float percentile(std::vector<float> values, double fraction);

}  // namespace capsweep
