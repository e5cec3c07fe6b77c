// A crowd: agents spawned on walkable ground of a world, walking toward random goals (or in
// random directions), one World::move per tick. The main job (`capsweep demo`, `capsweep
// crowd`), the movement tests and the benchmarks all run this.
#pragma once

#include <cstdint>
#include <vector>

#include <capsweep/world.h>
#include "core/body.h"
#include "tools/workloads.h"

namespace capsweep {

enum class Steering {
  goals,       // walk toward a random walkable point; a new one when reached or stuck
  directions,  // every tick a new random horizontal direction, full length (a stress test)
};

struct CrowdSettings {
  std::size_t agents = 2000;
  std::uint64_t seed = 1;
  float min_speed = 1.0f;  // m/s; each agent walks at its own speed in [min, max]
  float max_speed = 2.0f;
  Steering steering = Steering::goals;
  MoveSettings move;
  BatchOptions batch;
  bool trace = false;  // keep each tick's travelled segments (segments())
  bool up_to_capacity = false;  // spawn as many agents as fit, up to `agents`, instead of failing
  // Agent i collides with the layers agent_layers[i % size] (Agent::layers; empty: every layer):
  // it spawns clear of them only, and the invariants hold it to them only.
  std::vector<std::uint32_t> agent_layers;
  // Agent i's body is agent_shapes[i % size] (empty: every agent a capsule): the person's
  // capsule, or an ellipsoid of `ellipsoid_radii` at the capsule's centre.
  std::vector<AgentShape> agent_shapes;
  Vec3 ellipsoid_radii = kPersonEllipsoidRadii;
  // Pass each agent's ground triangle back into its next tick (Agent::ground_triangle), as a
  // game would; false: every tick probes for ground (the solver before the hint existed).
  bool carry_ground = true;
};

// Checks of one tick's end state (counted, not thrown: the demo prints them).
struct CrowdViolations {
  std::size_t penetrating = 0;  // agents closer to the mesh than skin - tolerance (an ellipsoid:
                                // scaled out by skin - tolerance, it touches the mesh)
  std::size_t overlapping = 0;  // pairs of agents overlapping by more than the tolerance (as the
                                // capsules other agents meet: an ellipsoid's holds it)
};

struct CrowdTotals {
  std::uint64_t ticks = 0, agent_ticks = 0, sweeps = 0;
  std::uint64_t stepped = 0, snapped = 0, depenetrated = 0, held = 0, falling = 0, blocked = 0;
  std::uint64_t respawned = 0;  // agents that fell off the world and started again
  double pushed = 0;       // metres of depenetration pushes (not travel)
  double move_seconds = 0; // time inside World::move
};

class Crowd {
 public:
  // Spawns the agents free of the mesh and of each other. Throws std::runtime_error when the
  // scene has too little free walkable ground for them (unless up_to_capacity).
  Crowd(const World& world, const CrowdSettings& settings);

  void tick();
  CrowdViolations check() const;

  const std::vector<Agent>& agents() const { return agents_; }
  const std::vector<MoveResult>& results() const { return results_; }     // of the last tick
  const std::vector<MoveSegments>& segments() const { return segments_; }  // of the last tick
  const std::vector<Agent>& previous() const { return previous_; }         // the last tick's input
  // The last tick's segments as the moves a client would claim (with trace on): each with the
  // tick's dt and the state its agent started the tick in, as a server validating them knows
  // it (the previous result's vertical speed and grounded flag; agents spawn and respawn
  // standing), and the agent's layers. Appended to `out`, agents in order.
  void claims(std::vector<ClaimedMove>& out) const;
  // Whether some agent sees fewer than every layer (its claims need a masked CWSQ version), and
  // whether some agent is an ellipsoid (they need version 7).
  bool masked() const;
  bool has_ellipsoids() const;
  const CrowdTotals& totals() const { return totals_; }
  float tolerance() const { return tolerance_; }

 private:
  void steer();
  void respawn(std::size_t i);
  std::uint32_t sees(std::size_t i) const;  // the layers agent i collides with, within the batch's
  AgentShape shape_of(std::size_t i) const;
  Body body(std::size_t i, const Capsule& person) const;  // agent i standing where `person` stands
  bool clear_of_mesh(const Body& b, float clearance, std::size_t i) const;

  const World& world_;
  CrowdSettings settings_;
  StandingPlaces places_;
  std::vector<Agent> agents_, previous_;
  std::vector<std::uint8_t> grounded_, grounded_before_;  // after the last tick, and before it
  std::vector<MoveResult> results_;
  std::vector<MoveSegments> segments_;
  std::vector<Vec3> goal_;
  std::vector<float> speed_;
  std::vector<std::uint32_t> stuck_;
  std::vector<Random> rng_;
  CrowdTotals totals_;
  float tolerance_;
  float floor_;  // below this an agent has fallen off the world
};

}  // namespace capsweep
