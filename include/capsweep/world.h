// A world of triangles (and a heightfield, values.h) and its batches.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/values.h>
#include <capsweep/instances.h>
#include <capsweep/sweep.h>
#include <capsweep/move.h>
#include <capsweep/validate.h>

// A static triangle world and the batch API over it. Built once from a triangle soup, then
// read-only: any number of threads may query it at once.

namespace capsweep {

struct SweepQuery {
  Capsule capsule;
  Vec3 motion;
  // The layers this query sees: the triangles on `layers & SweepOptions::layers` (kAllLayers:
  // every triangle its batch sees). A mask that leaves no layer is refused (Status::bad_layers).
  std::uint32_t layers = kAllLayers;
};

// An axis-aligned ellipsoid moving by `motion` (World::sweep_ellipsoid, <capsweep/sweep.h>).
struct SweepEllipsoidQuery {
  Ellipsoid ellipsoid;
  Vec3 motion;
  std::uint32_t layers = kAllLayers;  // as SweepQuery::layers
};

// Which code answers a batch. Every path gives answers the exact oracle accepts; scalar and
// brute give identical bytes (same kernel, same tie rule), simd agrees within the tolerance.
enum class SweepPath {
  simd,    // the BVH, with the wide block kernel (best ISA of this CPU)
  scalar,  // the same BVH, with the exact scalar kernel of core/ per triangle
  brute,   // every triangle whose box meets the swept box, with the exact scalar kernel
};
const char* name(SweepPath path);
bool parse_sweep_path(const std::string& text, SweepPath& out);

// The most worker threads a batch may ask for (SweepOptions::threads, the C API's and Python's
// `threads`, the CLI's --threads, the service's ServerConfig::threads). oneTBB crashes on arenas
// past 65,536; 1024 is above the hardware threads of today's largest servers, and workers beyond
// the cores only add switching. More, or a negative count, throws std::invalid_argument.
inline constexpr int kMaxThreads = 1024;

struct SweepOptions {
  SweepPath path = SweepPath::simd;
  int threads = 0;  // worker threads, 0 to kMaxThreads; 0 = every core
  // The layers this batch sees: triangles on none of them are not there for any of its queries,
  // agents or claims, on every path (kAllLayers: every triangle; see kDefaultLayers). Each query,
  // agent and claim also has a mask of its own: it sees the layers of both.
  std::uint32_t layers = kAllLayers;
  // Asked now and then during a batch (every few dozen queries or agents, from any worker
  // thread); once it returns true the batch stops and the call throws Cancelled: a caller whose
  // deadline passed stops costing anything, and never gets a partial answer. Empty: never asked.
  std::function<bool()> stop;
};

inline SweepOptions on_path(SweepPath path, int threads = 0) {
  SweepOptions o;
  o.path = path;
  o.threads = threads;
  return o;
}

// A batch that SweepOptions::stop stopped: no answer was written that a caller may use.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The same for moves and validation (brute is treated as scalar there).
using BatchOptions = SweepOptions;

// A static capsule against the world (World::overlap).
struct OverlapResult {
  bool clear = false;        // farther than the clearance from every triangle
  bool overlapping = false;  // closer than its radius to some triangle: the deepest is below
  Contact deepest;           // the deepest overlap: push-out normal and depth, closest points
  std::uint32_t triangle = kNoTriangle;
};

// Refused input when building a world: names the triangle.
class WorldError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Tile;  // <capsweep/tiles.h>

// The arrays a world answers from (triangles, BVH, adjacency), wherever they live: built
// in memory or mapped from a snapshot. Internal: world/world_arrays.h.
struct WorldArrays;

// What a world is made of (World::stats): for tools, logs and monitoring.
struct WorldStats {
  std::size_t triangles = 0;              // triangle_count(): the mesh's and the heightfield's
  std::size_t mesh_triangles = 0;
  std::uint32_t heightfield_columns = 0;  // samples; 0: no heightfield
  std::uint32_t heightfield_rows = 0;
  std::size_t heightfield_triangles = 0;  // two per cell, a hole's included
  std::size_t instances = 0;              // placed prototypes (World's instance constructor)
  std::size_t instance_triangles = 0;     // theirs, after the mesh's and the heightfield's
  std::size_t prototypes = 0;
  std::size_t tiles = 0;                  // streamed in (World::streamed)
  std::size_t tile_triangles = 0;         // theirs, after the instances'
  std::size_t bvh_nodes = 0;              // 8-wide nodes over the mesh's triangles
  std::size_t triangle_blocks = 0;        // the BVH's leaves, up to 8 triangles each
  int bvh_depth = 0;
  std::size_t memory_bytes = 0;           // memory_bytes()
};

// The SIMD variant the batches' kernels run on this CPU ("avx2", "sse4_2", "sse2", "avx512f"):
// CAPSWEEP_ISA's when set to one the CPU runs; else the widest up to AVX2, or AVX-512 where it
// ran faster than AVX2 on a built-in batch timed at first use (a few milliseconds, once).
// Every variant gives the same answers, bit for bit.
const char* kernel_isa();
// Why kernel_isa() is that variant, in one line (the timing, where one was made).
const char* kernel_isa_reason();
// Why CAPSWEEP_ISA cannot be honoured ("" when it is unset or names a variant this CPU runs):
// kernel_isa() then ignores it, so a tool should refuse it up front.
std::string kernel_isa_problem();

class World {
 public:
  // Throws WorldError for an empty soup or a triangle with a non-finite or out-of-range vertex.
  // Degenerate triangles are kept (the kernels treat them as segments or points). Builds the
  // BVH (in parallel for large meshes).
  explicit World(std::vector<Triangle> triangles);
  // With a layer mask per triangle (each != 0; see kDefaultLayers in shapes.h): the filters of
  // SweepOptions::layers hide the triangles on none of a batch's layers.
  World(std::vector<Triangle> triangles, std::vector<std::uint32_t> layers);
  // Terrain as a heightfield (<capsweep/world.h>), with a mesh on it or none (buildings,
  // props): one world, every query answered against both. The mesh's triangles keep their
  // indices; the terrain's follow them (heightfield.h says which is which). Throws WorldError
  // with check_heightfield's message for a heightfield it refuses.
  explicit World(Heightfield terrain, std::vector<Triangle> triangles = {}, std::vector<std::uint32_t> layers = {});
  // Parts that move (<capsweep/instances.h>): a static part (any world without instances) and
  // prototypes (each a world of a mesh alone, built once however often it is placed), placed by
  // `instances` under a top-level BVH of their boxes; every query walks both. An instance's
  // triangles are its prototype's, placed (placed()) and on the instance's layers; they follow
  // the static part's triangles, instance after instance in the order given, so the world
  // answers every sweep and overlap, on every path, exactly as the world with those triangles
  // baked in. (Movement and validation also read the adjacency, which stays within each
  // instance: no seam is welded between an instance and anything else.)
  // Throws WorldError naming the instance or prototype it refuses (an id used twice, no such
  // prototype, check_pose's reasons, a mask of 0, placed beyond kMaxCoordinate).
  World(const World& static_part, std::vector<World> prototypes, std::vector<Instance> instances);

  // The same world with new poses for some of its instances (the others keep theirs): a new
  // frame, built beside this one, which stays as it was, so batches running on it answer against
  // one frame throughout. The new frame remembers how the instances it posed moved from this one:
  // World::move on it carries and pushes agents by that motion. So make each tick's frame with
  // one posed() from the last tick's frame, and move once per frame (a frame posed from a
  // template, or several posed() calls in one tick, would move agents by other motions). Throws WorldError naming the row of `poses` it refuses (an id the
  // world has no instance of, an id twice, check_pose's reasons, placed beyond kMaxCoordinate);
  // nothing is applied then.
  World posed(std::span<const InstancePose> poses) const;
  // The instances at this frame, in triangle order (empty for a world without them). Valid while
  // this frame lives (not on a temporary: keep the World).
  std::span<const Instance> instances() const;
  // The instance that triangle i belongs to, or nullptr for the static part's and the tiles'
  // triangles; valid while this frame lives.
  const Instance* instance_of(std::uint32_t i) const;

  // The same world with the tiles (<capsweep/tiles.h>) named in `removed` gone, then `added` in:
  // a new frame, as posed() makes one (this one stays as it was; a tile's memory goes with the
  // last frame that holds it). Any world takes tiles: it becomes the static part, with its
  // instances. A tile's triangles follow the instances', tile after tile by id; a frame made
  // here moved no instance (in a tick that does both, stream first, then pose). Publishing costs
  // the top tree's rebuild, not the tiles' BVHs: build each tile's mesh beforehand, on any thread.
  // Throws WorldError naming the tile and row it refuses (a removed id the world has no tile of,
  // or named twice; an added id in use and not removed, or added twice; a mesh that is not a
  // mesh alone, a layer mask of 0, an origin not finite or placing it beyond kMaxCoordinate);
  // nothing is applied then.
  World streamed(std::span<const Tile> added, std::span<const std::uint32_t> removed = {}) const;
  // The tiles of this frame, by id; valid while this frame lives.
  std::span<const Tile> tiles() const;
  // The tile that triangle i belongs to, or nullptr; valid while this frame lives.
  const Tile* tile_of(std::uint32_t i) const;

  // Every triangle index: the mesh's, then the terrain's (a hole's two included).
  std::size_t triangle_count() const;
  // A copy of the mesh, in the caller's order: hits name these indices. (The world keeps one copy,
  // in its BVH's blocks; triangle(i) reads one.)
  std::vector<Triangle> mesh_triangles() const;
  // Triangle i and its layers, from the mesh or the terrain (std::out_of_range past the end).
  // A terrain hole's triangles are the ones its cell would hold, on no layer (0): not there.
  Triangle triangle(std::uint32_t i) const;
  std::uint32_t layers_of(std::uint32_t i) const;
  bool has_terrain() const;
  const Aabb& bounds() const;
  // Bytes the world answers from: triangles, the BVH and its triangle blocks, the adjacency, the
  // layer masks (none where the mesh is all on one mask), and the heightfield's samples, holes
  // and height pyramid.
  std::size_t memory_bytes() const;
  // What the world is made of, for tools, logs and monitoring.
  WorldStats stats() const;

  // Answers queries[i] into hits[i] (sizes must match). The first contact over all triangles
  // wins; among equal t, the deeper start overlap, then the lower triangle index, so answers do
  // not depend on thread count or query order. A refused query gets a miss, and its reason in
  // status[i] when `status` is given (else only the count returned says so).
  // Returns the number of refused queries.
  std::size_t sweep(std::span<const SweepQuery> queries, std::span<SweepHit> hits, const SweepOptions& options = {},
                    std::span<Status> status = {}) const;

  // One query on the calling thread (it sees query.layers & layers).
  Status sweep_one(const SweepQuery& query, SweepHit& hit, SweepPath path = SweepPath::simd,
                   std::uint32_t layers = kAllLayers) const;

  // The same batch contract for moving ellipsoids: each answer is exact in the capsule sense (its t
  // lies between the contact times of the ellipsoid shrunk and grown by the tolerance), in world
  // space, and bit-identical on every path, thread count and order. The broad phase walks the
  // bounding capsule (on `simd`, with the wide rejection stage); each candidate triangle goes to
  // the exact eSpace kernel. A refused query (NaN/Inf, a radius <= 0, out of range) gets a miss.
  std::size_t sweep_ellipsoid(std::span<const SweepEllipsoidQuery> queries, std::span<SweepHit> hits,
                              const SweepOptions& options = {}, std::span<Status> status = {}) const;

  // Whether the capsule is farther than `clearance` from every triangle (surface to surface): every
  // triangle's Contact::distance, as capsule_triangle_contact gives it, above radius + clearance.
  // A refused capsule (NaN/Inf, a radius <= 0, out of range) is not clear; a clearance that is
  // not finite and >= 0 throws std::invalid_argument.
  bool is_clear(const Capsule& capsule, float clearance, std::uint32_t layers = kAllLayers) const;

  // The triangle the capsule overlaps deepest (smallest distance < radius; for crossing axes
  // the largest push-out), with the push-out contact. False when it overlaps nothing, and for a
  // refused capsule.
  bool deepest_overlap(const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                       std::uint32_t layers = kAllLayers) const;

  // Static capsules against the world, in parallel (results[i] for capsules[i]): is_clear with
  // `clearance` (finite and >= 0, else std::invalid_argument) and deepest_overlap. A refused
  // capsule (NaN/Inf, radius <= 0, out of range) is neither clear nor overlapping; its status
  // says why. Returns the number refused.
  std::size_t overlap(std::span<const Capsule> capsules, float clearance, std::span<OverlapResult> results,
                      const BatchOptions& options = {}, std::span<Status> status = {}) const;

  // One tick for a batch of agents (results[i] for agents[i]; `segments`, when not empty,
  // receives each agent's travelled path). Every agent, a capsule or an ellipsoid (AgentShape),
  // moves against the static world it sees (its layers and the batch's) and against the other
  // agents as they stood at the start of the tick (an ellipsoid as the capsule holding it); an
  // agent whose end position would overlap another's stays where it was (kMoveHeldByAgents).
  // Results are bit-identical for any thread count and any order of the agents. Agents with bad
  // input (NaN/Inf, a radius <= 0, out of range, layers that see nothing) stay put; their status
  // says why. Returns their count.
  // Settings that check_settings refuses throw std::invalid_argument with its message.
  std::size_t move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                   const BatchOptions& options = {}, std::span<MoveSegments> segments = {},
                   std::span<Status> status = {}) const;
  // The same tick with each agent's neighbourhood kept in `cache` between ticks (MoveCache, in
  // <capsweep/move.h>): the same bytes, faster while agents stay near where they were.
  std::size_t move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                   MoveCache& cache, const BatchOptions& options = {}, std::span<MoveSegments> segments = {},
                   std::span<Status> status = {}) const;

  // Judges claimed moves of capsule and ellipsoid agents (verdicts[i] for moves[i]); parallel and
  // deterministic like move.
  // Settings that check_settings refuses throw std::invalid_argument with its message.
  void validate(std::span<const ClaimedMove> moves, const ValidateSettings& settings, std::span<Verdict> verdicts,
                const BatchOptions& options = {}) const;

  // Internal (snapshots, the service, tests): a world over arrays that `owner` keeps alive,
  // and the arrays a world answers from. load_snapshot checks every index before it calls this.
  World(const WorldArrays& arrays, std::shared_ptr<const void> owner);
  const WorldArrays& arrays() const { return *arrays_; }

 private:
  // `terrain` may be null (a mesh alone); a heightfield is moved from.
  World(Heightfield* terrain, std::vector<Triangle> triangles, std::vector<std::uint32_t> layers);
  explicit World(std::shared_ptr<const WorldArrays> arrays) : arrays_(std::move(arrays)) {}
  std::shared_ptr<const WorldArrays> arrays_;  // a World copies cheaply and shares them
};

// Orders two answers to the same query: the one a batch keeps.
bool is_better_hit(const SweepHit& a, const SweepHit& b);

}  // namespace capsweep
