// Moving agents: what World::move takes (Agent, MoveSettings) and answers (MoveResult,
// MoveSegments). The solver itself (collide-and-slide with a skin, a ground model and bounded
// depenetration) is internal: core/move.h.
//
// The scenes are Y up: "up" is +Y, and the walking displacement is horizontal (its Y part is
// ignored; height changes come from the ground: slopes, steps, snapping and falling).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <capsweep/sweep.h>
#include <capsweep/values.h>

namespace capsweep {

inline constexpr std::uint32_t kNoAgent = 0xFFFFFFFFu;

// An agent's body: a capsule, or an axis-aligned ellipsoid (Fauerby's collide-and-slide fits one
// to a character's mesh). The solver is the same for both; an ellipsoid is swept, probed and
// pushed out in its eSpace, while slopes, steps, snapping and gravity stay in world space.
// Other agents meet an ellipsoid agent as the smallest capsule that holds it.
enum class AgentShape : std::uint8_t { capsule = 0, ellipsoid = 1 };

struct Agent {
  Capsule capsule;             // a capsule agent's body where it is at the start of the tick
  Vec3 displacement;           // where it wants to walk this tick, metres (horizontal part used)
  float vertical_speed = 0.f;  // m/s, up positive: a falling agent carries it from tick to tick
  std::uint32_t id = 0;        // reported in other agents' contacts and breaks ties between them
                               // (agents sharing an id: their capsules' bytes do), so the order
                               // of agents in a batch changes nothing
  // The layers of triangles this agent collides with (with BatchOptions::layers: both). Its
  // sweeps, ground probes, overlaps and depenetration see nothing else; other agents are not
  // on layers (they always collide). A mask that leaves no layer is refused (bad_layers).
  std::uint32_t layers = kAllLayers;
  AgentShape shape = AgentShape::capsule;  // which of `capsule` and `ellipsoid` is its body
  Ellipsoid ellipsoid{};  // an ellipsoid agent's body at the start of the tick (each radius > 0)
  // The last tick's MoveResult::ground_triangle, passed back with its body (kNoTriangle: not
  // known). A hint, always checked: the tick sweeps the body down against that one triangle
  // instead of probing the whole world for ground (one sweep of the usual three), and probes
  // as before when the triangle is not there, not on the agent's layers, no longer within the
  // ground distance below or not walkable under it, or the start had to be pushed out.
  std::uint32_t ground_triangle = kNoTriangle;
};

// Every tunable, with its unit, default and why.
struct MoveSettings {
  // Smallest gap ever left between an agent and the world or another agent, metres: sweeps
  // use the capsule grown by it, so float rounding never leaves an agent touching or inside
  // geometry. 1 cm is invisible at human scale and 100x the exactness tolerance.
  float skin = 0.01f;
  // How far an agent steps back from a contact beyond the skin, metres (along the path it came,
  // which is known to be free). The surface it then slides along lies out of the next sweep's
  // reach, so that sweep rejects it in the cheap float test instead of resolving a start
  // contact in the exact kernel (about 3x faster per tick); 5 mm is still invisible.
  float backoff = 0.005f;
  // Slide iterations per pass (sweep, advance, clip the motion). 4 resolves a corner (2 planes)
  // and a crease against the floor (3 planes) with one to spare; more only costs sweeps.
  int max_iterations = 4;
  // Remaining motion below this ends a pass, metres: a tenth of a millimetre is far below what
  // anyone sees and saves sweeps that could only move an agent by rounding noise.
  float min_distance = 1e-4f;
  // Pushes out of geometry an agent starts inside of (spawned or pushed there). Each push
  // resolves the deepest overlap; 4 settles a capsule wedged between a floor and two walls.
  int max_depenetration_iterations = 4;
  // Steepest walkable surface, degrees from horizontal. 45 is the common game default: people
  // walk up 30-degree ramps and do not climb 60-degree rock faces.
  float max_slope_degrees = 45.f;
  // Highest step climbed, metres. 0.35 m climbs any stair (0.15-0.3 m risers) and kerb, but not
  // a table or a 0.5 m ledge. 0 turns step climbing off.
  float step_height = 0.35f;
  // Largest drop the agent follows while walking, metres, so that it stays on the ground going
  // down stairs and slopes instead of flying off every edge. Same as step_height: a staircase
  // walked down is the same staircase walked up. 0 turns snapping off.
  float snap_distance = 0.35f;
  // How far below its skin the ground may be for an agent to count as grounded, metres: more
  // than the backoff it rests at, small enough that one lifted by a bump is not grounded.
  float ground_distance = 0.02f;
  // Gravity, m/s^2 downward. Only agents that are not grounded fall.
  float gravity = 9.81f;
  // Fastest fall, m/s (a skydiver's terminal speed): keeps long falls from becoming huge sweeps.
  float max_fall_speed = 55.f;
  // Length of a tick, seconds (60 Hz), for gravity.
  float dt = 1.f / 60.f;
  // Whether agents collide with each other (capsule-capsule sweeps against the other agents'
  // tick-start positions). Off, agents pass through each other.
  bool agents_collide = true;
};

// Why the settings cannot be used ("" when they can): the first field outside its range, e.g.
// "settings: skin must be within [0.000000, 1.000000], got 5.000000". The ranges bound the work
// of one agent (iterations) and keep the solver's arithmetic in the scale it was built for; they
// are far wider than any game needs. World::move, the C API and the service all check with it.
std::string check_settings(const MoveSettings& settings);

inline constexpr int kMaxMoveContacts = 4;

// A contact met during the tick: with a triangle (agent == kNoAgent) or an agent
// (triangle == kNoTriangle).
struct MoveContact {
  Vec3 point;   // on the obstacle
  Vec3 normal;  // unit, from the obstacle toward the agent (the face normal on a seam)
  std::uint32_t triangle = kNoTriangle;
  std::uint32_t agent = kNoAgent;
};

enum MoveFlags : std::uint8_t {
  kMoveBlocked = 1,        // the agent moved less than 90 % of the way it wanted
  kMoveSteppedUp = 2,      // climbed a step
  kMoveSnapped = 4,        // followed the ground down (stairs, slopes)
  kMoveDepenetrated = 8,   // started inside geometry and was pushed out
  kMoveFalling = 16,       // in the air at the end of the tick
  kMoveHeldByAgents = 32,  // its move would have overlapped another agent's: it stayed put
  kMoveWedged = 64,        // held up by steep faces together (a crevice, a slope and a wall): not
                           // on walkable ground, but its fall stopped and its speed is zero
  kMoveCrushed = 128,      // a moving instance ran into it and it had nowhere to go: it stayed
                           // where it was, inside that instance at its new pose (World::posed)
};

struct MoveResult {
  // Where the agent is at the end of the tick: a capsule agent's body, or for an ellipsoid
  // agent the smallest capsule that holds its ellipsoid (what other agents meet).
  Capsule capsule;
  Vec3 moved;                  // the displacement actually made (including pushes and falls)
  float vertical_speed = 0.f;  // to pass back in the next tick's Agent
  bool grounded = false;
  Vec3 ground_normal;          // the walkable surface under the agent, when grounded
  std::uint32_t ground_triangle = kNoTriangle;
  std::uint8_t flags = 0;      // MoveFlags
  std::uint8_t contact_count = 0;
  std::uint16_t sweeps = 0;    // sweeps this agent cost this tick
  float pushed = 0.f;          // total depenetration push, metres
  MoveContact contacts[kMaxMoveContacts];
  AgentShape shape = AgentShape::capsule;  // the agent's
  Ellipsoid ellipsoid;         // an ellipsoid agent's body at the end of the tick (else zero)
};

// Every straight segment an agent travelled in a tick, in order: the body where it starts and
// its displacement. Depenetration pushes are not travel and are not listed.
struct MoveSegments {
  static constexpr int kMax = 32;
  int count = 0;
  struct Segment {
    Capsule capsule;      // a capsule agent's body (an ellipsoid agent's: the capsule holding it)
    Vec3 motion;
    Ellipsoid ellipsoid;  // an ellipsoid agent's body (else zero)
  } segment[kMax];
};

// What each agent met of the world last tick, kept for its next ticks (issue 38; Verlet lists
// with a skin, from molecular dynamics): the leaves of the mesh's BVH within a margin of the
// region one tick can reach, under a small tree of the agent's own. Pass the same cache to each
// World::move of a crowd: an agent's walks that stay inside its region take that tree instead of
// descending from the world's root, and it is gathered again when a tick would leave it. The
// answers are the same bytes with or without a cache, on every thread count (a walk inside the
// region can reach nothing outside it; one that leaves takes the world's tree).
//
// Agent i of a batch keeps slot i: a caller that reorders, adds or drops agents, or teleports one,
// loses speed for a tick, never an answer. The cache holds the last World it moved agents on (so
// the memory its trees point into stays alive); a world with another mesh (not a posed() or
// streamed() frame of the same one) starts every slot afresh. Not thread-safe: one World::move
// at a time per cache.
struct MoveCacheSettings {
  // How far the kept region reaches beyond one tick's reach, metres: larger keeps an agent inside
  // for more ticks and gathers more leaves. Measured per scene (README, Performance).
  float margin = 0.3f;
  // Gather again after this many ticks even while inside (0: only on leaving); tests use 1.
  int refresh_ticks = 0;
};

// What a cache did since it was made (or reset_counts): agent-ticks moved with it, of those the
// ones that gathered their neighbourhood (a refresh), and those left without one (more leaves
// near them than a neighbourhood holds: their walks take the world's tree).
struct MoveCacheCounts {
  std::uint64_t agent_ticks = 0;
  std::uint64_t gathered = 0;
  std::uint64_t uncached = 0;
};

class MoveCache {
 public:
  MoveCache();
  explicit MoveCache(MoveCacheSettings settings);
  ~MoveCache();
  MoveCache(MoveCache&&) noexcept;
  MoveCache& operator=(MoveCache&&) noexcept;

  // Drops every agent's neighbourhood, or agent i's: they are gathered again on their next tick.
  void forget();
  void forget(std::size_t agent);

  MoveCacheCounts counts() const;
  void reset_counts();
  // Bytes it holds: about 3 KB an agent (up to 64 triangles in eight blocks, under one node).
  std::size_t memory_bytes() const;
  const MoveCacheSettings& settings() const;

  struct Slots;  // what World::move keeps here (internal: world/move_cache.h)

 private:
  friend struct MoveCacheAccess;
  std::unique_ptr<Slots> slots_;
};

}  // namespace capsweep
