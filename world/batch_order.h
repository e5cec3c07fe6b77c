// The order a batch is answered in: on a world larger than the caches, by the Morton code of
// each item's centre, so that neighbouring items find the world's nodes and blocks still cached.
// Every answer is independent of the others, so the order changes no bit of any. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "broadphase/morton.h"
#include "world/world_arrays.h"

namespace capsweep {

// Bytes of BVH and heightfield above which a batch (of sweeps, or of agents to move) is
// answered in Morton order: about the last-level cache of one socket.
inline constexpr std::size_t kSortAboveBytes = 32u << 20;

// Bytes a walk reads from: the BVH with its blocks, and the heightfield's samples and pyramid.
inline std::size_t walked_bytes(const WorldArrays& w) {
  return w.bvh.memory_bytes() + w.terrain.heights.size_bytes() + w.terrain.samples.size_bytes() +
         w.terrain.pyramid.size_bytes() + w.terrain.holes.size_bytes();
}

// The order to answer `count` items in, centre_of(i) the centre of item i: empty (the batch's
// own order) when the world fits in the caches or the batch is small (then the sort costs more
// than it saves), else Morton order (morton_order).
template <class CentreOf>
std::vector<std::pair<std::uint64_t, std::uint32_t>> batch_order(const WorldArrays& w, std::size_t count,
                                                                  const CentreOf& centre_of) {
  if (walked_bytes(w) <= kSortAboveBytes || count <= 256) return {};
  return morton_order(w.bounds, count, centre_of);
}

}  // namespace capsweep
