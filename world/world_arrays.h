// What a World answers from, and the queries only capsweep's own layers use (the movement
// solver's hooks, traversal statistics). Internal: never included by a public header.
#pragma once

#include <memory>
#include <span>

#include <capsweep/world.h>

#include "broadphase/adjacency.h"
#include "broadphase/bvh.h"
#include "broadphase/terrain.h"
#include "core/ellipsoid_contact.h"

namespace capsweep {

// The arrays a world answers from, wherever they live: built in memory, or mapped from a
// snapshot file (io/snapshot.cpp). A World holds them with the owner that keeps them alive.
struct WorldArrays {
  // The mesh: triangles [0, triangles.size()), in the caller's order (hits name these indices).
  std::span<const Triangle> triangles;
  std::span<const Aabb> boxes;          // one box per triangle
  Aabb bounds;                          // of every triangle, the terrain's included
  BvhView bvh;                          // empty for a world of terrain alone
  std::span<const TriangleLinks> links;  // one per triangle
  std::span<const std::uint32_t> layers;  // one mask per triangle, never 0
  std::uint32_t layers_present = kDefaultLayers;  // the union of them all, the terrain's included
  // The heightfield, if any: triangles [triangles.size(), + terrain.triangle_count()).
  TerrainView terrain;
};

// The mask a walk filters with: kAllLayers when `layers` hides nothing of this world (the walk
// then never looks at layers, and costs what it did before filters existed).
inline std::uint32_t walk_layers(const WorldArrays& w, std::uint32_t layers) {
  return (layers & w.layers_present) == w.layers_present ? kAllLayers : layers;
}

// Whether triangle i is there for a walk with mask `layers` (from walk_layers).
inline bool seen(const WorldArrays& w, std::uint32_t i, std::uint32_t layers) {
  if (layers == kAllLayers) return true;
  return ((i < w.layers.size() ? w.layers[i] : w.terrain.layers) & layers) != 0;
}

// Every triangle index of the world: the mesh's, then the terrain's (holes included).
inline std::uint64_t world_triangle_count(const WorldArrays& w) {
  return w.triangles.size() + w.terrain.triangle_count();
}

// Bytes of BVH and heightfield above which a batch (of sweeps, or of agents to move) is
// answered in Morton order: about the last-level cache of one socket.
inline constexpr std::size_t kSortAboveBytes = 32u << 20;

// Bytes a walk reads from: the BVH with its blocks, and the heightfield's samples and pyramid.
inline std::size_t walked_bytes(const WorldArrays& w) {
  return w.bvh.memory_bytes() + w.terrain.heights.size_bytes() + w.terrain.samples.size_bytes() +
         w.terrain.pyramid.size_bytes() + w.terrain.holes.size_bytes();
}

// Triangle i, from the mesh or made from the terrain's samples (the same floats every time).
inline Triangle triangle_at(const WorldArrays& w, std::uint32_t i) {
  return i < w.triangles.size() ? w.triangles[i] : terrain_triangle(w.terrain, i - w.triangles.size());
}

// Its adjacency (the terrain's is computed from the grid, as link_triangles would find it).
inline TriangleLinks links_at(const WorldArrays& w, std::uint32_t i) {
  return i < w.links.size() ? w.links[i] : terrain_links(w.terrain, i - w.links.size());
}

// The box of lane `lane` of a block the walk handed over (a mesh triangle's stored box, or the
// bounds of a terrain triangle's vertices: the same numbers either way).
inline Aabb lane_box(const WorldArrays& w, const TriangleBlock& block, int lane) {
  const std::uint32_t i = block.triangle[lane];
  return i < w.boxes.size() ? w.boxes[i] : bounds(block.get(lane));
}

// How many queries of a batch are answered together, at most (sweep_chunk).
inline constexpr std::size_t kSweepChunk = 64;

// What a chunk's pool did: lanes handed to it, and the kernel calls it made on them.
struct PoolCounts {
  std::uint64_t lanes = 0;
  std::uint64_t calls = 0;
};

// Answers up to kSweepChunk queries, with the same bits as World::sweep_one on each. On the simd
// path with `pooled`, the live lanes each sweep leaves at the end of its walk are pooled across
// the chunk so that the full kernel runs on full lanes; pooled = false sweeps one query at a
// time (the engine before pooling, kept for the benchmark's comparison and the tests).
PoolCounts sweep_chunk(const World& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                       std::span<Status> status, SweepPath path, bool pooled = true, std::uint32_t layers = kAllLayers);

// World::sweep_one, accumulating what the BVH walk touched into `stats` (bench, tests).
Status sweep_counted(const World& world, const SweepQuery& query, SweepHit& hit, SweepPath path,
                     TraversalStats& stats, std::uint32_t layers = kAllLayers);

// The movement solver's sweep: the first contact the capsule moves *into*. A contact whose
// normal does not oppose the motion is passed through: the distance to that triangle is
// convex along the path, so it cannot shrink from there on. On a seam between coplanar
// triangles the face normal is used (and reported), where that keeps the exactness tolerance.
Status sweep_approaching(const World& world, const SweepQuery& query, SweepHit& hit, SweepPath path = SweepPath::simd,
                         std::uint32_t layers = kAllLayers);

// sweep_approaching for up to kSweepChunk queries at once (World::move's agents waiting for their
// next world sweep; each query's layers are its agent's mask): the same bits for each, with the
// lanes left at the end of each walk pooled across the chunk (the same pool as sweep_chunk's). A
// query its check refuses gets an empty hit.
void sweep_approaching_chunk(const World& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                             SweepPath path = SweepPath::simd);

// World::move with up to `in_flight` agents of a worker's range in flight together (1 to
// kSweepChunk; World::move: kSweepChunk), their waiting world sweeps answered together. 1 runs
// each agent's tick alone through move_agent, every sweep asked of its collider as it comes:
// the reference the tests hold the batched tick to, byte for byte.
std::size_t move_agents(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
                        std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status, std::size_t in_flight);

// One ellipsoid sweep on the calling thread, as World::sweep_ellipsoid answers it (it sees
// query.layers & layers).
Status sweep_ellipsoid_one(const World& world, const SweepEllipsoidQuery& query, SweepHit& hit,
                           SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers);

// The same for an ellipsoid body (the solver's ellipsoid agents), with its eSpace kernel.
Status sweep_ellipsoid_approaching(const World& world, const SweepEllipsoidQuery& query, SweepHit& hit,
                                   SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers);

// World::deepest_overlap for a capsule that passed check_capsule (the solver's bodies are checked
// once per tick), without checking it again.
bool deepest_overlap_unchecked(const World& world, const Capsule& capsule, Contact& contact, std::uint32_t& triangle,
                               std::uint32_t layers = kAllLayers);

// The ellipsoid's deepest overlap with the world (eSpace distance < 1): the largest push-out,
// then the lower triangle index (core/ellipsoid_contact.h). False when it overlaps nothing.
bool deepest_ellipsoid_overlap(const World& world, const Ellipsoid& ellipsoid, EllipsoidContact& contact,
                               std::uint32_t& triangle, std::uint32_t layers = kAllLayers);

// Whether the ellipsoid touches no triangle: its eSpace distance to each is more than 1. (A
// clearance around it is an ellipsoid scaled out by it: core/body.h.)
bool ellipsoid_clear(const World& world, const Ellipsoid& ellipsoid, std::uint32_t layers = kAllLayers);

// Replaces the normal of a contact on a seam (an edge or vertex inside a flat surface) by the
// face normal, when that keeps the tolerance for a capsule of this radius. `layers` is the
// walk's mask (walk_layers): a seam whose neighbours are not all on it is an open edge.
void seam_normal(const World& world, SweepHit& hit, float radius, std::uint32_t layers = kAllLayers);

// Whether a contact is ground to stand on: its normal is at least `min_up` upward, or, on an
// edge or vertex, one of the faces meeting there is (the top of a step touched on its rim).
bool walkable(const World& world, const SweepHit& hit, float min_up, Vec3& ground_normal,
              std::uint32_t layers = kAllLayers);

// Capsule-capsule sweeps World::move has run against other agents since the process started
// (all threads): for tests that count work instead of timing it.
std::uint64_t agent_pair_sweeps();

}  // namespace capsweep
