#include "broadphase/agent_grid.h"

#include <algorithm>
#include <cmath>

#include "parallel/executor.h"

#include <capsweep/values.h>

namespace capsweep {

namespace {
// Cell coordinates are kept in 26 bits each: cells no smaller than 2 * kMaxCoordinate / 2^25
// (6 cm; at that width, coordinates beyond about +-2 kMaxCoordinate clamp to the outermost
// columns, which keeps column_of monotone). A person's 0.7 m is the column width, not the
// 1.9 m 21 bits allowed: a query reads a third of the boxes.
constexpr int kFieldBits = 26;
constexpr float kMinCell = 2.f * kMaxCoordinate / float(1 << (kFieldBits - 1));
constexpr std::int32_t kBias = 1 << (kFieldBits - 1);
// The keys of agents filed in no column: kept aside, or a box that overlaps nothing. Keys of
// columns use 52 bits.
constexpr std::uint64_t kAside = ~std::uint64_t(0), kNowhere = kAside - 1;
// A 64-bit mix (the finaliser of MurmurHash3) so that neighbouring cells spread over the table.
std::uint64_t hash(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

}  // namespace

namespace {

// Whether a box lies where boxes of accepted agents can (within 4 x kMaxCoordinate: a capsule
// in range, grown by a radius in range, moved by a motion in range); false for a box with a NaN
// or infinite coordinate, or one far out of range (a refused agent's).
bool in_range(const Aabb& b) {
  constexpr float kLimit = 4 * kMaxCoordinate;
  return std::fabs(b.min.x) <= kLimit && std::fabs(b.min.y) <= kLimit && std::fabs(b.min.z) <= kLimit &&
         std::fabs(b.max.x) <= kLimit && std::fabs(b.max.y) <= kLimit && std::fabs(b.max.z) <= kLimit;
}

// The wider horizontal extent of a box in range (finite, >= 0): columns are filed and walked
// on x and z only, so a person's height (1.8 m against 0.7 m across) must not widen them.
float width_of(const Aabb& b) {
  const Vec3 extent = b.max - b.min;
  return std::max(std::fabs(extent.x), std::fabs(extent.z));
}

}  // namespace

void AgentGrid::build(std::span<const Capsule> capsules) {
  boxes_.resize(capsules.size());
  keys_.resize(capsules.size());
  widths_.resize(capsules.size());
  // Each agent's box and width, in parallel: the most work per agent of the build.
  parallel::for_ranges<std::size_t>(0, capsules.size(), 1024, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      boxes_[i] = swept_bounds(capsules[i], {});
      widths_[i] = in_range(boxes_[i]) ? width_of(boxes_[i]) : -1.f;
    }
  });
  // The column width: the widest box's in range, but for the kAsideAtMost widest, which are
  // kept aside with every box out of range. `top` holds the kAsideAtMost + 1 largest widths so
  // far, largest first. And the rectangle of the min corners in range, for the choice of the
  // columns below. (Minima, maxima and the largest widths do not depend on the order agents are
  // read in.)
  float top[kAsideAtMost + 1];
  std::fill(std::begin(top), std::end(top), -INFINITY);
  float lo_x = INFINITY, lo_z = INFINITY, hi_x = -INFINITY, hi_z = -INFINITY;
  std::size_t placed = 0;
  for (std::size_t i = 0; i < capsules.size(); ++i) {
    const float width = widths_[i];
    if (width >= 0) {
      ++placed;
      const float x = boxes_[i].min.x, z = boxes_[i].min.z;
      lo_x = x < lo_x ? x : lo_x;
      hi_x = x > hi_x ? x : hi_x;
      lo_z = z < lo_z ? z : lo_z;
      hi_z = z > hi_z ? z : hi_z;
    }
    if (width > top[kAsideAtMost]) {
      std::size_t k = kAsideAtMost;
      for (; k > 0 && width > top[k - 1]; --k) top[k] = top[k - 1];
      top[k] = width;
    }
  }
  const float largest = std::max(kMinCell, top[kAsideAtMost] > -INFINITY ? top[kAsideAtMost] : top[0]);
  // A thousandth wider than the widest box filed, so that a box's float width rounded down
  // never exceeds the cell the walk subtracts; but kSparseColumn for a crowd whose corners'
  // rectangle is too large for an array of such columns (filing decides the layout): through
  // the hash table a query makes a lookup per column it meets, and the terrain's crowd cost
  // 5.5 % more instructions in World::move with 0.7 m columns than with 1.9 m ones.
  cell_ = largest * 1.001f;
  if (cell_ < kSparseColumn && placed > 0 &&
      ((double(hi_x) - lo_x) / cell_ + 2) * ((double(hi_z) - lo_z) / cell_ + 2) >
          double(kArrayCellsPerEntry) * double(placed)) {
    cell_ = kSparseColumn;
  }
  inverse_cell_ = 1.f / cell_;
  // Each agent's column (computed in parallel), then a counting sort by column: linear in the
  // agents.
  parallel::for_ranges<std::size_t>(0, capsules.size(), 1024, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      const Aabb& b = boxes_[i];
      if (widths_[i] < 0) {  // out of range: kept aside, or nowhere for a NaN box (it overlaps nothing)
        const bool nan = b.min.x != b.min.x || b.min.y != b.min.y || b.min.z != b.min.z || b.max.x != b.max.x ||
                         b.max.y != b.max.y || b.max.z != b.max.z;
        keys_[i] = nan ? kNowhere : kAside;
      } else if (widths_[i] > largest) {
        keys_[i] = kAside;
      } else {
        const Column c = column_of(b.min);
        keys_[i] = key(c.x, c.z);
      }
    }
  });
  // Those kept aside, and the rectangle of the filed columns: the array when it is small
  // enough, else the hash table.
  aside_.clear();
  std::size_t filed = 0;
  Column lo{kBias, kBias}, hi{-kBias, -kBias};  // locals: aside_'s growth cannot alias them
  const std::uint64_t* keys = keys_.data();
  for (std::size_t i = 0, n = keys_.size(); i < n; ++i) {
    if (keys[i] == kAside) {
      aside_.push_back(std::uint32_t(i));
    } else if (keys[i] != kNowhere) {
      ++filed;
      const Column c = column_of_key(keys[i]);
      lo = {std::min(lo.x, c.x), std::min(lo.z, c.z)};
      hi = {std::max(hi.x, c.x), std::max(hi.z, c.z)};
    }
  }
  lo_ = lo;
  hi_ = hi;
  dense_ = filed > 0 && std::uint64_t(hi.x - lo.x + 1) * std::uint64_t(hi.z - lo.z + 1) <=
                            kArrayCellsPerEntry * std::uint64_t(filed);
  entries_.resize(filed);
  filed_boxes_.resize(filed);
  if (dense_) {
    file_in_array();
  } else {
    file_in_table(filed);
  }
}

// A counting sort by column: count each column's agents, give each its run of entries_, then
// file the agents in index order (so a column lists them in increasing index).
void AgentGrid::file_in_array() {
  depth_ = std::size_t(hi_.z - lo_.z + 1);
  const std::size_t cells = std::size_t(hi_.x - lo_.x + 1) * depth_;
  table_.clear();
  mask_ = 0;
  starts_.assign(cells + 1, 0);
  slot_of_.resize(keys_.size());
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] >= kNowhere) continue;
    const Column c = column_of_key(keys_[i]);
    slot_of_[i] = std::uint32_t(std::size_t(c.x - lo_.x) * depth_ + std::size_t(c.z - lo_.z));
    ++starts_[slot_of_[i] + 1];
  }
  for (std::size_t c = 0; c < cells; ++c) starts_[c + 1] += starts_[c];
  // Filing moves each column's start to the next one's; moving them back by one cell restores them.
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] >= kNowhere) continue;
    const std::uint32_t k = starts_[slot_of_[i]]++;
    entries_[k] = std::uint32_t(i);
    filed_boxes_[k] = boxes_[i];
  }
  std::copy_backward(starts_.begin(), starts_.end() - 1, starts_.end());
  starts_[0] = 0;
}

// The same counting sort through the hash table.
void AgentGrid::file_in_table(std::size_t filed) {
  starts_.clear();
  std::size_t slots = 16;
  while (slots < 2 * filed) slots *= 2;
  table_.assign(slots, Slot{0, 0, 0});
  mask_ = slots - 1;
  slot_of_.resize(keys_.size());
  for (std::size_t i = 0; i < keys_.size(); ++i) {  // while counting, `last` is the count
    if (keys_[i] >= kNowhere) continue;
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
  for (std::size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] >= kNowhere) continue;
    const std::uint32_t k = table_[slot_of_[i]].last++;
    entries_[k] = std::uint32_t(i);
    filed_boxes_[k] = boxes_[i];
  }
}

AgentGrid::Column AgentGrid::column_of(const Vec3& p) const {
  auto axis = [&](float v) {
    const float c = v * inverse_cell_;
    // A NaN (a query box's; no filed box has one) goes to the lowest column, as converting NaN
    // to int would be undefined.
    if (!(c > -float(kBias - 1))) return -(kBias - 1);
    if (c >= float(kBias - 1)) return kBias - 1;
    const std::int32_t truncated = std::int32_t(c);  // floor, without a call to floorf
    return truncated - std::int32_t(float(truncated) > c);
  };
  return {axis(p.x), axis(p.z)};
}

std::uint64_t AgentGrid::key(std::int32_t x, std::int32_t z) {
  auto field = [](std::int32_t v) { return std::uint64_t(std::uint32_t(v + kBias)); };
  return field(x) << kFieldBits | field(z);
}

AgentGrid::Column AgentGrid::column_of_key(std::uint64_t k) {
  constexpr std::uint64_t kField = (std::uint64_t(1) << kFieldBits) - 1;
  return {std::int32_t(std::uint32_t(k >> kFieldBits)) - kBias, std::int32_t(std::uint32_t(k & kField)) - kBias};
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
