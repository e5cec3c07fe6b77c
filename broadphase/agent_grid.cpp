#include "broadphase/agent_grid.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <capsweep/status.h>

namespace capsweep {

namespace {
// Cell coordinates are kept in 21 bits each: cells no smaller than 2 * kMaxCoordinate / 2^20.
constexpr float kMinCell = 2.f * kMaxCoordinate / float(1 << 20);
constexpr std::int32_t kBias = 1 << 20;
// A 64-bit mix (the finaliser of MurmurHash3) so that neighbouring cells spread over the table.
std::uint64_t hash(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

}  // namespace

void AgentGrid::build(std::span<const Capsule> capsules) {
  boxes_.resize(capsules.size());
  entries_.resize(capsules.size());
  float largest = kMinCell;
  for (std::size_t i = 0; i < capsules.size(); ++i) {
    boxes_[i] = swept_bounds(capsules[i], {});
    largest = std::max(largest, max_abs_component(boxes_[i].max - boxes_[i].min));
  }
  // A thousandth wider than the widest box, so that a box's float width rounded down never
  // exceeds the cell the walk subtracts.
  cell_ = largest * 1.001f;
  inverse_cell_ = 1.f / cell_;
  // A counting sort by column through the hash table: count each column's agents, give each
  // column its run of entries_, then file the agents in index order (so a column lists them in
  // increasing index). Linear in the agents; only the columns are computed in parallel.
  keys_.resize(capsules.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, capsules.size(), 1024), [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const Column c = column_of(boxes_[i].min);
      keys_[i] = key(c.x, c.z);
    }
  });
  std::size_t slots = 16;
  while (slots < 2 * capsules.size()) slots *= 2;
  table_.assign(slots, Slot{0, 0, 0});
  mask_ = slots - 1;
  slot_of_.resize(capsules.size());
  for (std::size_t i = 0; i < capsules.size(); ++i) {  // while counting, `last` is the count
    std::uint64_t h = hash(keys_[i]) & mask_;
    while (table_[h].last != 0 && table_[h].key != keys_[i]) h = (h + 1) & mask_;
    table_[h].key = keys_[i];
    ++table_[h].last;
    slot_of_[i] = std::uint32_t(h);
  }
  std::uint32_t run = 0;
  for (Slot& s : table_) {
    const std::uint32_t count = s.last;
    s.first = s.last = run;  // `last` is now the cursor filing moves along the run
    run += count;
  }
  entries_.resize(capsules.size());
  filed_boxes_.resize(capsules.size());
  for (std::size_t i = 0; i < capsules.size(); ++i) {
    const std::uint32_t k = table_[slot_of_[i]].last++;
    entries_[k] = std::uint32_t(i);
    filed_boxes_[k] = boxes_[i];
  }
}

AgentGrid::Column AgentGrid::column_of(const Vec3& p) const {
  auto axis = [&](float v) {
    const float c = v * inverse_cell_;
    // A NaN (an agent refused for its coordinates is still filed) goes to the lowest column, as
    // converting NaN to int would be undefined; a box NaN in every coordinate overlaps nothing
    // there, and one NaN in only some coordinates is found where its finite ones put it.
    if (!(c > -float(kBias - 1))) return -(kBias - 1);
    if (c >= float(kBias - 1)) return kBias - 1;
    const std::int32_t truncated = std::int32_t(c);  // floor, without a call to floorf
    return truncated - std::int32_t(float(truncated) > c);
  };
  return {axis(p.x), axis(p.z)};
}

std::uint64_t AgentGrid::key(std::int32_t x, std::int32_t z) {
  auto field = [](std::int32_t v) { return std::uint64_t(std::uint32_t(v + kBias)); };
  return field(x) << 21 | field(z);
}

std::pair<std::size_t, std::size_t> AgentGrid::find(std::uint64_t k) const {
  if (table_.empty()) return {0, 0};  // never built
  for (std::uint64_t h = hash(k) & mask_;; h = (h + 1) & mask_) {
    const Slot& s = table_[h];
    if (s.first == s.last) return {0, 0};
    if (s.key == k) return {s.first, s.last};
  }
}

}  // namespace capsweep
