// MoveCache: each agent's neighbourhood of the mesh's BVH, kept between World::move ticks.
#include "world/move_cache.h"

#include <algorithm>
#include <cmath>

#include "world/world_collider.h"

namespace capsweep {

MoveCache::MoveCache() : MoveCache(MoveCacheSettings{}) {}
MoveCache::MoveCache(MoveCacheSettings settings) : slots_(std::make_unique<Slots>()) { slots_->settings = settings; }
MoveCache::~MoveCache() = default;
MoveCache::MoveCache(MoveCache&&) noexcept = default;
MoveCache& MoveCache::operator=(MoveCache&&) noexcept = default;

void MoveCache::forget() {
  for (CacheSlot& s : slots_->slots) s.near.clear();
}

void MoveCache::forget(std::size_t agent) {
  if (agent < slots_->slots.size()) slots_->slots[agent].near.clear();
}

MoveCacheCounts MoveCache::counts() const {
  MoveCacheCounts total;
  for (const CacheSlot& s : slots_->slots) {
    total.agent_ticks += s.counts.agent_ticks;
    total.gathered += s.counts.gathered;
    total.uncached += s.counts.uncached;
  }
  return total;
}

void MoveCache::reset_counts() {
  for (CacheSlot& s : slots_->slots) s.counts = {};
}

std::size_t MoveCache::memory_bytes() const { return sizeof(Slots) + slots_->slots.capacity() * sizeof(CacheSlot); }

const MoveCacheSettings& MoveCache::settings() const { return slots_->settings; }

void prepare_slots(MoveCache::Slots& cache, const World& world, std::size_t agents) {
  const BvhView& bvh = world.arrays().bvh;
  // Same blocks and nodes: the same mesh (a posed or streamed frame shares its static part's).
  const bool same = cache.world && cache.world->arrays().bvh.blocks.data() == bvh.blocks.data() &&
                    cache.world->arrays().bvh.nodes.data() == bvh.nodes.data() &&
                    cache.world->arrays().bvh.nodes.size() == bvh.nodes.size();
  if (!same) {
    for (CacheSlot& s : cache.slots) s.near.clear();
  }
  cache.world = world;
  cache.slots.resize(agents);
}

Aabb tick_reach(const Agent& agent, const MoveSettings& m) {
  const Capsule c = start_capsule(agent);
  const Vec3 walk{agent.displacement.x, 0.f, agent.displacement.z};
  Aabb box = swept_bounds(c, walk);
  const float skin = m.skin + m.backoff;
  // A tick's fall: its vertical speed, gravity's addition, at most the fastest fall.
  const float fall = std::min(std::fabs(agent.vertical_speed) + m.gravity * m.dt, m.max_fall_speed) * m.dt;
  const float down = std::max(m.snap_distance, fall) + m.ground_distance + skin;
  const float up = m.step_height + skin + std::max(agent.vertical_speed, 0.f) * m.dt;
  box.min = box.min - Vec3{skin, down, skin};
  box.max = box.max + Vec3{skin, up, skin};
  return box;
}

const NearLeaves* neighbourhood_for(MoveCache::Slots& cache, std::size_t i, const Agent& agent,
                                    const MoveSettings& settings) {
  CacheSlot& slot = cache.slots[i];
  ++slot.counts.agent_ticks;
  const Aabb reach = tick_reach(agent, settings);
  const Aabb& held = slot.near.region();
  const bool inside = held.min.x <= reach.min.x && held.min.y <= reach.min.y && held.min.z <= reach.min.z &&
                      reach.max.x <= held.max.x && reach.max.y <= held.max.y && reach.max.z <= held.max.z;
  const int refresh = cache.settings.refresh_ticks;
  if (inside && !(refresh > 0 && int(slot.age) >= refresh)) {
    ++slot.age;
    return &slot.near;
  }
  // Gathered again around the new reach: with the margin, or, where that holds more leaves than a
  // neighbourhood keeps, without it; else none this tick.
  ++slot.counts.gathered;
  slot.age = 1;
  const WorldArrays& w = cache.world->arrays();
  // The margin is horizontal, where walking goes; upward and downward half of it (a tick's
  // reach already spans a step up and a snap down).
  const float margin = std::max(cache.settings.margin, 0.f);
  const Vec3 grown{margin, 0.5f * margin, margin};
  const Aabb region{reach.min - grown, reach.max + grown};
  if (slot.near.gather(w.bvh, w.layers, w.mesh_layers, region) ||
      (margin > 0 && slot.near.gather(w.bvh, w.layers, w.mesh_layers, reach))) {
    return &slot.near;
  }
  ++slot.counts.uncached;
  return nullptr;
}

}  // namespace capsweep
