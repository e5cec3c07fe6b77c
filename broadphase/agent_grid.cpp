#include "broadphase/agent_grid.h"

#include <algorithm>
#include <cmath>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

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
  cell_ = largest;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, capsules.size(), 1024), [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const Cell c = cell_of(boxes_[i].min);
      entries_[i] = {key(c[0], c[2]), std::uint32_t(i)};
    }
  });
  tbb::parallel_sort(entries_.begin(), entries_.end());
  std::size_t slots = 16;
  while (slots < 2 * entries_.size()) slots *= 2;
  table_.assign(slots, Slot{0, 0, 0});
  mask_ = slots - 1;
  for (std::size_t i = 0; i < entries_.size();) {
    std::size_t j = i + 1;
    while (j < entries_.size() && entries_[j].first == entries_[i].first) ++j;
    std::uint64_t h = hash(entries_[i].first) & mask_;
    while (table_[h].first != table_[h].last) h = (h + 1) & mask_;
    table_[h] = {entries_[i].first, std::uint32_t(i), std::uint32_t(j)};
    i = j;
  }
}

AgentGrid::Cell AgentGrid::cell_of(const Vec3& p) const {
  auto axis = [&](float v) {
    const float c = std::floor(v / cell_);
    // A NaN (an agent refused for its coordinates is still filed) goes to the lowest cell: its
    // box overlaps nothing, so it is never visited, and converting NaN to int would be undefined.
    if (!(c > -float(kBias - 1))) return -(kBias - 1);
    return std::int32_t(std::min(c, float(kBias - 1)));
  };
  return {{axis(p.x), axis(p.y), axis(p.z)}};
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
