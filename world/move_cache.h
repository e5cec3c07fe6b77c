// MoveCache's insides, as World::move reads and fills them: a neighbourhood per agent slot and the
// rule for when it is gathered again. Internal: never included by a public header.
#pragma once

#include <optional>
#include <vector>

#include <capsweep/move.h>
#include <capsweep/world.h>

#include "broadphase/near_leaves.h"
#include "world/world_arrays.h"

namespace capsweep {

struct CacheSlot {
  NearLeaves near;
  std::uint32_t age = 0;  // ticks since it was gathered
  MoveCacheCounts counts;
};

struct MoveCache::Slots {
  MoveCacheSettings settings;
  std::optional<World> world;  // the last world served (keeps the blocks its trees name alive)
  std::vector<CacheSlot> slots;
};

struct MoveCacheAccess {
  static MoveCache::Slots& of(MoveCache& cache) { return *cache.slots_; }
};

// Before a batch of `agents` on `world`: a slot per agent; every slot afresh if the world's mesh
// is not the one the slots were gathered in.
void prepare_slots(MoveCache::Slots& cache, const World& world, std::size_t agents);

// The neighbourhood agent i's tick walks (null: the world's tree): the slot's, gathered again
// first when the tick's reach (tick_reach) leaves its region, or when it is older than
// refresh_ticks.
const NearLeaves* neighbourhood_for(MoveCache::Slots& cache, std::size_t i, const Agent& agent,
                                    const MoveSettings& settings);

// Everything one tick of the agent may walk, as far as a tick usually goes: its body grown by the
// skin, along its walk, up a step and down a snap or a tick's fall. (A walk beyond it, a push out
// of geometry or a fall faster than the agent's vertical speed says, takes the world's tree.)
Aabb tick_reach(const Agent& agent, const MoveSettings& settings);

}  // namespace capsweep
