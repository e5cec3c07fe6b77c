// The sweeps capsweep's own layers ask of a World beyond its public batches: chunks of queries
// (the batch layer, the C API's in-place records), sweeps counting what the walk touched (bench,
// tests), and the movement solver's sweeps that keep only the contacts a motion moves into.
// Internal: never included by a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <capsweep/sweep.h>
#include <capsweep/world.h>

#include "broadphase/bvh.h"
#include "world/world_arrays.h"

namespace capsweep {

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
// The same from the world's arrays or an agent's copy of them (WorldArrays::near).
Status sweep_approaching(const WorldArrays& w, const SweepQuery& query, SweepHit& hit, SweepPath path = SweepPath::simd,
                         std::uint32_t layers = kAllLayers);

// sweep_approaching for up to kSweepChunk queries at once (World::move's agents waiting for their
// next world sweep; each query's layers are its agent's mask): the same bits for each, with the
// lanes left at the end of each walk pooled across the chunk (the same pool as sweep_chunk's). A
// query its check refuses gets an empty hit. `arrays[i]`: what query i is answered from, the
// world's or its agent's copy of them (WorldArrays::near), all of one world.
void sweep_approaching_chunk(std::span<const WorldArrays* const> arrays, std::span<const SweepQuery> queries,
                             std::span<SweepHit> hits, SweepPath path = SweepPath::simd);

// One ellipsoid sweep on the calling thread, as World::sweep_ellipsoid answers it (it sees
// query.layers & layers).
Status sweep_ellipsoid_one(const World& world, const SweepEllipsoidQuery& query, SweepHit& hit,
                           SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers);

// The same for an ellipsoid body (the solver's ellipsoid agents), with its eSpace kernel.
Status sweep_ellipsoid_approaching(const World& world, const SweepEllipsoidQuery& query, SweepHit& hit,
                                   SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers);
Status sweep_ellipsoid_approaching(const WorldArrays& w, const SweepEllipsoidQuery& query, SweepHit& hit,
                                   SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers);

}  // namespace capsweep
