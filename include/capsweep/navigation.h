// Crowds that navigate: a Recast navmesh built from a World, and a crowd whose agents follow
// Detour paths to their goals while World::move moves their bodies exactly.
//
// The navmesh says where an agent may go (polygons, paths); the world says where its body is
// (World::move, exact). Recast and Detour stay behind this header: docs/NAVIGATION.md says how
// each navmesh parameter follows MoveSettings and where the two can still disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/move.h>
#include <capsweep/values.h>
#include <capsweep/world.h>

namespace capsweep {

struct SnapshotSection;  // <capsweep/files.h>
// The name of a snapshot's navmesh section (capsweep build --navmesh): a CWNM image.
inline constexpr char kNavMeshSection[] = "navmesh";

// Recast's build parameters, in metres and degrees (never voxels: the build converts). Derive
// them with navmesh_settings(); a field set by hand is checked by check_navmesh_settings().
struct NavMeshSettings {
  float agent_radius = 0.36f;       // the body's radius + the skin: how far polygons keep from walls
  float agent_height = 1.81f;       // the body's height + the skin: the clearance a polygon needs above it
  float climb = 0.35f;              // highest step between walkable spans: MoveSettings::step_height
  float max_slope_degrees = 45.f;   // steepest walkable triangle: MoveSettings::max_slope_degrees
  float cell_size = 0.12f;          // horizontal voxel edge: a third of the radius
  float cell_height = 0.05f;        // vertical voxel edge: fine enough that the climb keeps its value
  int tile_cells = 64;              // a tile's edge, in cells (tiles build in parallel); the build doubles
                                    // it, up to 1024, while the world would need over 4,096 tiles
  std::uint32_t layers = kAllLayers;  // only triangles on these layers are walked on or block
  float max_edge_length = 12.f;     // longest polygon outline edge, metres
  float max_edge_error = 1.3f;      // how far an outline may stray from the voxels, in cells
  float min_region_area = 8.f;      // smaller islands are dropped, m^2 (a table top, a sill)
  float merge_region_area = 20.f;   // smaller regions merge with a neighbour, m^2
  float detail_sample_distance = 6.f;  // height detail sampling, in cells (0: polygons only)
  float detail_max_error = 1.f;     // height detail error, in cell heights
};

// The navmesh that walks what the solver walks, for agents whose body is `body` (a capsule
// standing upright) and moved with `move`, colliding with the triangles on `layers`.
NavMeshSettings navmesh_settings(const MoveSettings& move, const Capsule& body, std::uint32_t layers = kAllLayers);
// Why the settings cannot be built ("" when they can): the first field out of range.
std::string check_navmesh_settings(const NavMeshSettings& settings);

// A navmesh file it refuses (NavMesh::read): the message names the file, the record and why.
class NavMeshError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NavMeshStats {
  std::size_t tiles = 0;  // tiles holding polygons
  std::size_t polygons = 0;
  std::size_t vertices = 0;
  Aabb bounds;            // of the polygons
};

// A path along the navmesh: its corners from start to end (both included).
struct NavPath {
  bool complete = false;  // it reaches the goal (false: it ends as close as the mesh allows)
  std::vector<Vec3> corners;
  float length = 0;       // metres, along the corners
};

// A tiled Recast navmesh: immutable once built or read, shared by copies, safe to read from
// any number of threads.
class NavMesh {
 public:
  // Builds the navmesh of the world's triangles (the mesh, its heightfield's, its instances' at
  // their current poses and its tiles'), those on settings.layers only. Tiles are built in
  // parallel on `threads` workers (0: every core; as BatchOptions::threads): the same bytes for
  // any count. Throws std::invalid_argument for settings check_navmesh_settings refuses.
  static NavMesh build(const World& world, const NavMeshSettings& settings, int threads = 0);
  // A navmesh file (docs/FORMATS.md, CWNM), or a snapshot's navmesh section (capsweep build
  // --navmesh; the whole snapshot is checked). Throws NavMeshError naming the file, the record
  // and the reason for a file it cannot use; never returns a part of one.
  static NavMesh read(const std::string& path);
  // The same from bytes in memory: a CWNM image (`name` names it in errors), or the section
  // kNavMeshSection of a loaded snapshot's (Snapshot::sections, WorldFile::sections).
  static NavMesh from_bytes(const std::string& bytes, const std::string& name);
  // A snapshot's sections: its navmesh, or none when it keeps none (NavMeshError when it is damaged).
  static std::optional<NavMesh> from_snapshot(std::span<const SnapshotSection> sections, const std::string& path);
  // Writes it atomically (a reader never sees half a file). Throws std::runtime_error naming the file.
  void write(const std::string& path) const;
  // The CWNM image write() writes (for a snapshot's section: save_snapshot's `sections`).
  std::string bytes() const;

  const NavMeshSettings& settings() const;
  NavMeshStats stats() const;
  // The point of the mesh nearest `point` within `reach` (half extents of a box around it, each
  // 0 to kMaxNavReach, else std::invalid_argument), or false when no polygon is within it.
  bool nearest(const Vec3& point, const Vec3& reach, Vec3& out) const;
  // The shortest path from the polygon under `from` to the one under `to` (each searched within
  // an agent's radius and two climbs up and down): empty corners when either is off the mesh.
  NavPath path(const Vec3& from, const Vec3& to) const;
  // A random point on the mesh reachable from `from` (a polygon connected to the one under it),
  // drawn from `seed` alone; false when `from` is off the mesh.
  bool random_reachable(const Vec3& from, std::uint64_t seed, Vec3& out) const;
  // The polygons as triangles (their detail meshes), for pictures and checks.
  std::vector<Triangle> triangles() const;

  struct Data;  // internal: the Detour mesh (nav/navmesh_data.h)
  const Data& data() const { return *data_; }

 private:
  explicit NavMesh(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
  std::shared_ptr<const Data> data_;
};

// Where an agent of a NavCrowd stands with its goal.
enum class NavStatus : std::uint8_t {
  idle,      // no goal given yet
  walking,   // following its path
  arrived,   // within NavCrowdSettings::arrive_distance of its goal: it stands until given a new one
  no_path,   // its goal is unreachable from where it stands (or off the mesh): it waits, and plans
             // again every replan_seconds in case it was pushed somewhere the goal can be reached from
  off_mesh,  // no polygon within reach of its feet: see NavAgent::returning
};
const char* name(NavStatus status);

struct NavAgent {
  Capsule capsule;            // its body now (upright: a below b)
  float speed = 1.5f;         // walking speed, m/s
  std::uint32_t id = 0;       // as Agent::id: breaks ties, so when ids are unique the order of agents changes nothing
  std::uint32_t layers = kAllLayers;  // as Agent::layers
  NavStatus status = NavStatus::idle;
  // off_mesh only: true while it walks straight toward the nearest polygon within
  // NavCrowdSettings::return_reach, false when none is that close (it stays where it is).
  bool returning = false;
  Vec3 goal;                  // the goal it was given (its status says whether it is reached)
  Vec3 velocity;              // what it asked World::move for last tick, m/s (horizontal)
  float vertical_speed = 0;   // carried from tick to tick, as Agent::vertical_speed
  std::uint32_t ground_triangle = kNoTriangle;  // carried, as Agent::ground_triangle
  std::uint32_t replans = 0;  // paths planned since its goal was given
};

// The widest a search for the mesh looks (NavMesh::nearest's reach, return_reach), metres:
// Detour visits every tile cell its box covers, so a box of 1e30 m would never return.
inline constexpr float kMaxNavReach = 1000.f;

struct NavCrowdSettings {
  MoveSettings move;     // World::move's (its dt is the tick)
  BatchOptions batch;    // threads and layers for planning and moving alike
  float arrive_distance = 0.4f;   // horizontal distance to the goal that counts as there, metres
  float return_reach = 4.f;       // how far an off-mesh agent looks for the mesh, metres (<= kMaxNavReach)
  bool avoidance = true;          // steer around other agents (Detour's obstacle avoidance)
  float neighbour_distance = 2.0f;  // agents this close are avoided, metres
  int max_neighbours = 4;         // the nearest ones, by distance then id
  float replan_seconds = 1.5f;    // no progress toward the goal for this long: plan again
  int max_path_polygons = 256;    // longest corridor: a longer path is followed to its end, then replanned
  bool trace = false;             // keep each tick's travelled segments (NavCrowd::segments)
};

// What the last tick cost, seconds of wall time.
struct NavTickTimes {
  double planning = 0;  // paths, corridors, corners, avoidance
  double moving = 0;    // World::move
};

// Agents walking to goals on a navmesh: each tick plans and steers every agent (Detour paths
// followed through a path corridor, desired velocity toward its next corner, avoidance of the
// others), then moves them all with one World::move. The tick is bit-identical for any thread
// count and any order of the agents (ids unique): every agent's planning reads only the tick-start state.
class NavCrowd {
 public:
  // Throws std::invalid_argument for settings check_settings refuses, or a navmesh whose agent
  // radius is smaller than the body's it is then given (add).
  NavCrowd(World world, NavMesh navmesh, NavCrowdSettings settings);
  ~NavCrowd();
  NavCrowd(NavCrowd&&) noexcept;
  NavCrowd& operator=(NavCrowd&&) noexcept;

  // Adds an agent standing where `body` is (idle until given a goal); returns its index.
  std::size_t add(const Capsule& body, float speed, std::uint32_t id, std::uint32_t layers = kAllLayers);
  // A new goal for agent i: it plans a path at the next tick (no_path if there is none).
  void set_goal(std::size_t i, const Vec3& goal);
  // What agent i carries into its next tick, as Agent::vertical_speed and Agent::ground_triangle:
  // for an agent whose last tick was another crowd's (the service's Navigate carries them from
  // one request to the next). std::invalid_argument for a vertical speed that is not finite.
  void set_carried(std::size_t i, float vertical_speed, std::uint32_t ground_triangle);
  void tick();

  std::span<const NavAgent> agents() const;
  std::span<const MoveResult> results() const;      // of the last tick, one per agent
  std::span<const MoveSegments> segments() const;   // of the last tick (settings.trace), else empty
  // Agent i's current path corners from its position (at most `max`), for pictures.
  std::vector<Vec3> corners(std::size_t i, int max = 8) const;
  const NavTickTimes& times() const;
  const World& world() const;
  const NavMesh& navmesh() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace capsweep
