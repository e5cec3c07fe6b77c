// The pooled narrow phase: the live lanes a capsule sweep has left when its walk ends (fewer than
// the kernel's group; 0.2-0.6 per walking step) wait here with those of the next sweeps of the
// same chunk, and the full kernel runs on eight lanes of several queries at once. Each lane's
// arithmetic is what the kernel does for its query alone, and each query's best hit is the least
// by is_better_hit whatever order its lanes come in, so pooling changes no bit of any answer.
// Internal to world/.
#pragma once

#include <cstdint>

#include "core/assert.h"
#include "simd/block_sweep.h"
#include "world/narrow_phase.h"
#include "world/sweeps.h"

namespace capsweep {

// Counts how the pool ran (PoolCounts); Collector: the queries' ClosestHit.
template <class Collector>
class LanePool {
 public:
  explicit LanePool(const WorldArrays& w) : w_(w) {}

  // Takes the first `used` lanes of a sweep's gathered block. `bq` is that sweep's block query
  // as limited by the hits it has found (the lanes are judged exactly as its own last stage would
  // judge them); `query` and `closest` are its query (as asked or as swept: the scalar core
  // makes a ray its thin capsule itself) and its collector, which must live until the last flush.
  void take(const KernelBlock& stage, int used, const BlockQuery& bq, const SweepQuery& query, Collector& closest) {
    CAPSWEEP_ASSERT(has_axis(bq), "a pooled query has an axis");
    for (int lane = 0; lane < used; ++lane) {
      copy_lane(stage, lane, block_, count_);
      set_lane_query(lanes_, count_, bq);
      query_[count_] = &query;
      collector_[count_++] = &closest;
      ++counts_.lanes;
      if (count_ == kBlockLanes) flush();
    }
  }

  void flush() {
    static const BlockSweepVariant& kernel = best_block_sweep();
    if (count_ == 0) return;
    const int used = count_;
    count_ = 0;
    ++counts_.calls;
    close_lane_queries(lanes_, used);
    sweep_gathered(w_, kernel, block_, used, *this);
  }

  const PoolCounts& counts() const { return counts_; }

  // What sweep_gathered asks of its lanes.
  bool sweep(const BlockSweepVariant& kernel, const KernelBlock& block, BlockHits& out) const {
    return kernel.pooled(block, lanes_, out);
  }
  const SweepQuery& query(int lane) const { return *query_[lane]; }
  Collector& collector(int lane) const { return *collector_[lane]; }
  // What lane_hit reads of a lane's query (origin, e, d, r): the values the lane was swept with.
  BlockQuery block_query(int lane) const {
    BlockQuery q;
    q.origin = {lanes_.ox[lane], lanes_.oy[lane], lanes_.oz[lane]};
    q.e = {lanes_.ex[lane], lanes_.ey[lane], lanes_.ez[lane]};
    q.d = {lanes_.dx[lane], lanes_.dy[lane], lanes_.dz[lane]};
    q.r = lanes_.r[lane];
    return q;
  }

 private:
  const WorldArrays& w_;
  KernelBlock block_;
  LaneQueries lanes_;
  const SweepQuery* query_[kBlockLanes];
  Collector* collector_[kBlockLanes];
  int count_ = 0;
  PoolCounts counts_;
};

}  // namespace capsweep
