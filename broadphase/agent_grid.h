// The per-tick broadphase over agents: a uniform grid of their boxes in vertical columns,
// rebuilt every tick (a counting sort by column, into an array over the crowd's rectangle of
// columns or, for a crowd spread thin, through a hash table from column to its agents),
// asked for the agents whose boxes meet a query box. Columns, not cubes: people stand on the
// ground, so a query box meets 3 x 3 columns where it met 3 x 3 x 3 cells, and the rare agent
// on another floor above is dropped by its box. The columns are as wide as the ordinary boxes:
// the few widest (a giant) and those out of range (a refused agent's, infinite or far out) are
// kept aside in a list every query reads, so that one such box cannot widen every column and
// make a tick quadratic.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <capsweep/values.h>

namespace capsweep {

class AgentGrid {
 public:
  // At most this many boxes in range, the widest, are kept aside instead of widening the
  // columns; so is every box out of range (beyond 4 x kMaxCoordinate, or infinite: no accepted
  // agent's box is). Nine or more wide agents are a crowd of wide agents, and the columns fit them.
  static constexpr std::size_t kAsideAtMost = 8;

  // The narrowest columns of a crowd spread too thin for an array of columns its agents' width,
  // metres (told from the rectangle of their boxes' corners): in the hash table a query makes a
  // lookup per column it meets, so wider columns cost less there.
  static constexpr float kSparseColumn = 1.9f;

  // Columns are a thousandth wider than the widest box across (on x or z) not kept aside, so each
  // other agent is filed in one, by its box's min corner. A box with a NaN coordinate overlaps
  // nothing (every comparison with NaN is false) and is filed nowhere.
  void build(std::span<const Capsule> capsules);

  // Calls visit(index) for every agent whose box overlaps `box`: column by column, in increasing
  // index order within a column, then those kept aside (the caller breaks ties by id and capsule bytes, so the
  // order never shows in results). A visit that returns bool stops the walk by returning true.
  template <class Visit>
  void for_each_overlapping(const Aabb& box, Visit&& visit) const {
    auto call = [&](std::uint32_t i) {
      if constexpr (std::is_same_v<decltype(visit(i)), bool>) {
        return visit(i);
      } else {
        visit(i);
        return false;
      }
    };
    const Range range = columns_meeting(box);
    if (range.huge) {  // a scan is cheaper than the lookups
      for (std::uint32_t i = 0; i < boxes_.size(); ++i) {
        if (boxes_[i].overlaps(box) && call(i)) return;
      }
      return;
    }
    const bool stopped = for_each_column(range, [&](std::size_t first, std::size_t last) {
      for (std::size_t k = first; k < last; ++k) {
        if (filed_boxes_[k].overlaps(box) && call(entries_[k])) return true;
      }
      return false;
    });
    if (stopped) return;
    for (const std::uint32_t i : aside_) {
      if (boxes_[i].overlaps(box) && call(i)) return;
    }
  }

  // How many agents other than `self` have boxes overlapping agent self's box, counted up to
  // limit + 1 (the walk stops there, so a pile of agents costs no more than limit to ask).
  std::size_t count_overlapping(std::uint32_t self, std::size_t limit) const {
    std::size_t n = 0;
    for_each_overlapping(boxes_[self], [&](std::uint32_t j) { return j != self && ++n > limit; });
    return n;
  }

  // Whether count_overlapping(self, limit) > limit. Most agents are not in a pile, and the
  // columns their box meets, with the list aside, hold no more than `limit` agents in all: that
  // answers without testing a box.
  bool overlapped_by_more_than(std::uint32_t self, std::size_t limit) const {
    const Range range = columns_meeting(boxes_[self]);
    if (!range.huge) {
      std::size_t held = aside_.size();
      for_each_column(range, [&](std::size_t first, std::size_t last) { return (held += last - first) > limit; });
      if (held <= limit) return false;
    }
    return count_overlapping(self, limit) > limit;
  }

  std::size_t size() const { return boxes_.size(); }
  const Aabb& box(std::uint32_t i) const { return boxes_[i]; }
  // The column width, the agents kept aside (in index order) and whether the columns are an
  // array: what the tests check.
  float column_width() const { return cell_; }
  bool columns_are_an_array() const { return dense_; }
  std::span<const std::uint32_t> kept_aside() const { return aside_; }

 private:
  struct Column {
    std::int32_t x, z;
  };
  // The columns that may file a box meeting `box` (those of min corners between its min less a
  // cell and its max), or `huge` when they outnumber a quarter of the entries.
  struct Range {
    Column lo, hi;
    bool huge;
  };
  Range columns_meeting(const Aabb& box) const {
    const Column lo = column_of(box.min - Vec3{cell_, cell_, cell_});
    const Column hi = column_of(box.max);
    const std::uint64_t cells = std::uint64_t(hi.x - lo.x + 1) * std::uint64_t(hi.z - lo.z + 1);
    return {lo, hi, cells > entries_.size() / 4 + 8};
  }
  // Calls visit(first, last) with the run of entries_ of each column of the range; a visit
  // returning true stops the walk, and then so does this (returning true).
  template <class Visit>
  bool for_each_column(const Range& range, Visit&& visit) const {
    if (dense_) {  // the columns of one x are one run from the lowest z to the highest
      const std::int32_t x0 = std::max(range.lo.x, lo_.x), x1 = std::min(range.hi.x, hi_.x);
      const std::int32_t z0 = std::max(range.lo.z, lo_.z), z1 = std::min(range.hi.z, hi_.z);
      if (z0 > z1) return false;
      for (std::int32_t x = x0; x <= x1; ++x) {
        const std::size_t row = std::size_t(x - lo_.x) * depth_;
        const std::size_t first = starts_[row + std::size_t(z0 - lo_.z)], last = starts_[row + std::size_t(z1 - lo_.z) + 1];
        if (first != last && visit(first, last)) return true;
      }
      return false;
    }
    for (std::int32_t x = range.lo.x; x <= range.hi.x; ++x) {
      for (std::int32_t z = range.lo.z; z <= range.hi.z; ++z) {
        const auto [first, last] = find(key(x, z));
        if (visit(first, last)) return true;
      }
    }
    return false;
  }
  // The column holding p: floor(p / cell) on x and z, by a multiplication (monotone in p, which
  // is all the walk above needs: an agent's box min lies between the query's min less a cell and
  // its max).
  Column column_of(const Vec3& p) const;
  static std::uint64_t key(std::int32_t x, std::int32_t z);
  static Column column_of_key(std::uint64_t key);
  std::pair<std::size_t, std::size_t> find(std::uint64_t key) const;
  void file_in_array();
  void file_in_table(std::size_t filed);

  float cell_ = 1.f, inverse_cell_ = 1.f;
  std::vector<Aabb> boxes_;
  std::vector<std::uint32_t> entries_;  // the agents, column by column
  std::vector<Aabb> filed_boxes_;       // their boxes in the same order: a column's walk reads on
  std::vector<std::uint32_t> aside_;    // the widest boxes, read by every query
  // Open addressing from a column key to its run in entries_ (empty slots have first == last).
  struct Slot {
    std::uint64_t key;
    std::uint32_t first, last;
  };
  std::vector<Slot> table_;
  std::uint64_t mask_ = 0;
  // Or, when the filed boxes' columns span a rectangle of at most kArrayCellsPerEntry cells per
  // entry (a crowd on a map, not a few agents kilometres apart), an array over it, x-major: the
  // run of column (x, z) is entries_[starts_[c], starts_[c + 1]) with c = (x - lo.x) depth + z - lo.z.
  // No hashing, and the columns of one x that a query meets are one run.
  static constexpr std::size_t kArrayCellsPerEntry = 8;
  bool dense_ = false;
  Column lo_{0, 0}, hi_{-1, -1};
  std::size_t depth_ = 0;  // hi.z - lo.z + 1
  std::vector<std::uint32_t> starts_;
  std::vector<std::uint64_t> keys_;     // build's scratch: each agent's column, or kAside or kNowhere
  std::vector<std::uint32_t> slot_of_;  // and its slot in table_ (or its cell of starts_)
  std::vector<float> widths_;           // and its box's width (-1: out of range)
};

}  // namespace capsweep
