// A crowd: agents spawned on walkable ground of a world, walking toward random goals (or in
// random directions), one World::move per tick; on a world whose instances move (issue 37), each
// tick on the frame of that tick's poses. The main job (`capsweep demo`, `capsweep crowd`), the
// movement tests and the benchmarks all run this.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include <capsweep/world.h>
#include "core/body.h"
#include "tools/workloads.h"

namespace capsweep {

// The poses a crowd's world takes, tick by tick: tick t (from 1) moves the agents on the frame
// posed at poses(t, agents) from tick t - 1's frame (one World::posed a tick from the last tick's
// frame, one World::move a frame: the frame-motion contract of World::posed), `agents` standing
// where tick t - 1 left them (a door may wait for them). The world the crowd starts on is tick
// 0's frame. Called once a tick, in order, so it may keep state (each crowd its own copy). Ids
// the world has no instance of are refused (WorldError), as World::posed refuses them.
using PoseSchedule = std::function<std::vector<InstancePose>(std::uint64_t tick, std::span<const Agent> agents)>;

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
  // Keep each agent's neighbourhood of the world between ticks (MoveCache): the same bytes,
  // faster; false moves every tick without one (the bench's comparison).
  bool keep_neighbourhoods = true;
  MoveCacheSettings neighbourhoods;
  // Offer each tick's travelled segments as claims (claims()). The crowd records them either way
  // (segments()): its falls are classified from them.
  bool trace = false;
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
  // Jumps: a grounded agent takes off (Agent::vertical_speed = jump_speed, m/s up) with
  // probability jump_chance per second (per tick: jump_chance x dt), drawn from the agent's own
  // stream after its steering. jump_chance = 0 (the default) draws nothing: crowds without jumps
  // are byte-identical to the crowds before jumps existed.
  float jump_speed = 0;
  float jump_chance = 0;  // per second
  // How the world's instances move (empty: the world stands still, and the crowd is byte for byte
  // the crowd before instances moved).
  PoseSchedule poses;
};

// Two capsules closer than their radii allow, less `tolerance` (negative: kept that far apart).
bool capsules_overlap(const Capsule& a, const Capsule& b, float tolerance);

// Checks of one tick's end state (counted, not thrown: the demo prints them), against the tick's
// frame. An agent that tick's move flagged crushed (kMoveCrushed: a
// moving instance ran into it and it had nowhere to go) stayed where it was, inside the
// instance's new pose, and says so: it is counted as crushed, not as penetrating.
struct CrowdViolations {
  std::size_t penetrating = 0;  // agents not crushed closer to the mesh than skin - tolerance (an
                                // ellipsoid: scaled out by skin - tolerance, it touches the mesh)
  std::size_t overlapping = 0;  // pairs of agents overlapping by more than the tolerance (as the
                                // capsules other agents meet: an ellipsoid's holds it)
};

struct CrowdTotals {
  std::uint64_t ticks = 0, agent_ticks = 0, sweeps = 0;
  std::uint64_t stepped = 0, snapped = 0, depenetrated = 0, held = 0, falling = 0, blocked = 0, wedged = 0;
  std::uint64_t respawned = 0;  // agents that fell off the world and started again: the sum of
  std::uint64_t fell_through_holes = 0;   // nothing of the world was below their path
  std::uint64_t fell_through_cracks = 0;  // their path crossed a triangle (a broken invariant)
  std::uint64_t carried = 0;  // agent-ticks ending grounded on an instance that moved that tick
  std::uint64_t crushed = 0;  // agent-ticks flagged kMoveCrushed
  double pushed = 0;       // metres of depenetration pushes (not travel)
  double move_seconds = 0; // time inside World::move
};

// Why an agent fell off the world: through a hole of the level (its path met no triangle), or
// through a crack between triangles (its own path crossed one: a solver or sweep bug).
enum class FallCause { hole, crack };

struct FallCheck {
  FallCause cause = FallCause::hole;
  std::size_t segment = 0;  // a crack: the first segment of the fall that crossed a triangle
  SweepHit hit;             // and where
};

// Classifies a fall from the segments its agent travelled, in order, each swept with the agent's
// exact body (no skin) on the scalar path (byte-identical to brute force), against the layers it
// sees. A segment crosses the world when it meets a triangle before its end (0 < t < 1). One
// that starts in contact (t = 0: touching, or within the skin of a face) crosses only what it
// goes deeper than a skin into: resting on a face and leaving it, or sliding along it, is no
// crack. Every travelled segment ends a skin short of what it met, so a correct solver's falls
// are all holes.
FallCheck classify_fall(const World& world, std::span<const MoveSegments::Segment> fall, AgentShape shape,
                        std::uint32_t layers, float skin, int threads = 1);

// A fall through a crack, for diagnostics: the agent, the tick (from 0) of the segment that
// crossed the world, the segment and its hit.
struct FallThroughCrack {
  std::size_t agent = 0;
  std::uint64_t tick = 0;
  MoveSegments::Segment segment;
  SweepHit hit;
};

class Crowd {
 public:
  // Spawns the agents free of the mesh and of each other. Throws std::runtime_error when the
  // scene has too little free walkable ground for them (unless up_to_capacity). The crowd keeps
  // its own copy of the world (a World copies cheaply) and of each frame it moves on.
  Crowd(const World& world, const CrowdSettings& settings);
  // Its spawn places refer to its own frame: a copy would refer to the original's.
  Crowd(const Crowd&) = delete;
  Crowd& operator=(const Crowd&) = delete;

  void tick();
  CrowdViolations check() const;

  const std::vector<Agent>& agents() const { return agents_; }
  // The frame the last tick moved the agents on (before the first tick, the world it started on).
  const World& frame() const { return frame_; }
  const MoveCache& neighbourhoods() const { return cache_; }
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
  // The first falls through cracks (up to kCracksKept), in the order they were found.
  static constexpr std::size_t kCracksKept = 16;
  const std::vector<FallThroughCrack>& cracks() const { return cracks_; }
  float tolerance() const { return tolerance_; }

 private:
  void pose();  // the next tick's frame (CrowdSettings::poses), and which instances it moved
  void steer();
  void jump(std::size_t i);  // agent i may take off (CrowdSettings::jump_chance)
  void respawn(std::size_t i);
  void record_fall(std::size_t i);    // this tick's segments, while agent i is in the air
  void end_fall(std::size_t i);       // classifies it, as agent i leaves the world
  std::uint32_t sees(std::size_t i) const;  // the layers agent i collides with, within the batch's
  AgentShape shape_of(std::size_t i) const;
  Body body(std::size_t i, const Capsule& person) const;  // agent i standing where `person` stands
  bool clear_of_mesh(const Body& b, float clearance, std::size_t i) const;

  World frame_;  // the world the crowd started on, then the frame of its last tick
  MoveCache cache_;  // each agent's neighbourhood (settings_.keep_neighbourhoods)
  std::vector<std::uint8_t> instance_moved_;  // by instance order: moved into frame_ by its tick
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
  // Each agent's fall since it last stood (or was wedged): a ring of its last kFallSegments
  // travelled segments and their ticks, oldest at fall_head_ once full. A drop to 50 m below the
  // world takes a free fall of one segment a tick over 3 s or more, so the ring holds the drop
  // and what came before it (at 32 segments a tick, the most a tick has, still 32 ticks). Only
  // agents that have been in the air hold memory, 68 KB each at most; a respawn gives it back.
  static constexpr std::size_t kFallSegments = 1024;
  std::vector<std::vector<MoveSegments::Segment>> fall_;
  std::vector<std::vector<std::uint32_t>> fall_ticks_;
  std::vector<std::uint32_t> fall_head_;
  std::vector<FallThroughCrack> cracks_;
  CrowdTotals totals_;
  float tolerance_;
  float floor_;  // below this an agent has fallen off the world
};

}  // namespace capsweep
