// SweepOptions::stop: a batch whose caller gave up (a deadline passed, a drain ran out) stops
// within a few dozen items and throws Cancelled, for every kind of batch; a stop that never
// fires changes no byte.
#include <gtest/gtest.h>

#include <atomic>

#include <capsweep/world.h>

#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"

namespace {

using namespace capsweep;

struct StopAfter {
  std::shared_ptr<std::atomic<int>> asked = std::make_shared<std::atomic<int>>(0);
  int after;
  bool operator()() const { return ++*asked > after; }
};

class Stop : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // Any world will do; a real scene when this build reads files.
    world_ = new World(scenes::load(CAPSWEEP_TESTS_READ_FILES ? "recast_dungeon.obj" : "@arena"));
    batch_ = new batches::Batches(batches::make(*world_, 20000, 7));
  }
  static void TearDownTestSuite() {
    delete batch_;
    delete world_;
  }
  static BatchOptions stopping(const StopAfter& s, int threads = 0) {
    BatchOptions o;
    o.threads = threads;
    o.stop = s;
    return o;
  }
  static World* world_;
  static batches::Batches* batch_;
};
World* Stop::world_ = nullptr;
batches::Batches* Stop::batch_ = nullptr;

TEST_F(Stop, ASweepBatchStopsEarlyAndThrows) {
  const StopAfter s{.after = 3};
  std::vector<SweepHit> hits(batch_->sweeps.size());
  EXPECT_THROW(world_->sweep(batch_->sweeps, hits, stopping(s)), Cancelled);
  // Asked every 32 queries by each worker: a few more asks after the first yes, not one per query.
  EXPECT_LT(s.asked->load(), 64) << "of " << batch_->sweeps.size() / 32 << " possible";
}

TEST_F(Stop, AMoveStopsEarlyAndThrows) {
  const StopAfter s{.after = 2};
  std::vector<MoveResult> results(batch_->agents.size());
  EXPECT_THROW(world_->move(batch_->agents, MoveSettings{}, results, stopping(s)), Cancelled);
  EXPECT_LT(s.asked->load(), 64);
}

TEST_F(Stop, ValidateAndOverlapStopEarlyAndThrow) {
  const StopAfter a{.after = 1}, b{.after = 1};
  std::vector<Verdict> verdicts(batch_->claims.size());
  EXPECT_THROW(world_->validate(batch_->claims, ValidateSettings{}, verdicts, stopping(a)), Cancelled);
  std::vector<OverlapResult> over(batch_->capsules.size());
  EXPECT_THROW(world_->overlap(batch_->capsules, 0.f, over, stopping(b)), Cancelled);
  EXPECT_LT(a.asked->load() + b.asked->load(), 128);
}

TEST_F(Stop, AStopThatNeverFiresChangesNoByte) {
  const StopAfter never{.after = 1 << 30};
  std::vector<SweepHit> plain(batch_->sweeps.size()), asked(batch_->sweeps.size());
  world_->sweep(batch_->sweeps, plain);
  world_->sweep(batch_->sweeps, asked, stopping(never, 1));
  for (std::size_t i = 0; i < plain.size(); ++i) ASSERT_TRUE(identical(plain[i], asked[i])) << i;
  std::vector<MoveResult> moved(batch_->agents.size()), moved_asked(batch_->agents.size());
  world_->move(batch_->agents, MoveSettings{}, moved);
  world_->move(batch_->agents, MoveSettings{}, moved_asked, stopping(never));
  for (std::size_t i = 0; i < moved.size(); ++i) ASSERT_TRUE(answers::same(moved[i], moved_asked[i])) << i;
  EXPECT_GT(never.asked->load(), 0);
}

}  // namespace
