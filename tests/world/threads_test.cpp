// SweepOptions::threads: every kind of batch refuses a count outside 0 .. kMaxThreads with a
// message naming `threads` and the limit (oneTBB crashed on arenas past 65,536), before writing
// anything; the limit itself is a count like any other.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/world.h>

#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tools/arena.h"

namespace {

using namespace capsweep;

class Threads : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    world_ = new World(make_arena());
    batch_ = new batches::Batches(batches::make(*world_, 200, 3));
  }
  static void TearDownTestSuite() {
    delete batch_;
    delete world_;
  }
  // Each kind of batch on `threads` workers.
  static std::vector<std::function<void(int)>> every_batch() {
    return {
        [](int threads) {
          std::vector<SweepHit> hits(batch_->sweeps.size());
          world_->sweep(batch_->sweeps, hits, on_path(SweepPath::simd, threads));
        },
        [](int threads) {
          const std::vector<SweepEllipsoidQuery> q{{Ellipsoid{{0, 1, 0}, {0.3f, 0.9f, 0.3f}}, {1, 0, 0}}};
          std::vector<SweepHit> hits(q.size());
          world_->sweep_ellipsoid(q, hits, on_path(SweepPath::simd, threads));
        },
        [](int threads) {
          std::vector<OverlapResult> results(batch_->capsules.size());
          world_->overlap(batch_->capsules, 0.f, results, on_path(SweepPath::simd, threads));
        },
        [](int threads) {
          std::vector<MoveResult> results(batch_->agents.size());
          world_->move(batch_->agents, MoveSettings{}, results, on_path(SweepPath::simd, threads));
        },
        [](int threads) {
          std::vector<Verdict> verdicts(batch_->claims.size());
          world_->validate(batch_->claims, ValidateSettings{}, verdicts, on_path(SweepPath::simd, threads));
        },
    };
  }
  static World* world_;
  static batches::Batches* batch_;
};
World* Threads::world_ = nullptr;
batches::Batches* Threads::batch_ = nullptr;

TEST_F(Threads, EveryBatchRefusesACountOutsideTheLimitByName) {
  const std::string limit = std::to_string(kMaxThreads);
  for (const int threads : {kMaxThreads + 1, 65537, INT_MAX, -1, INT_MIN}) {
    for (const auto& run : every_batch()) {
      try {
        run(threads);
        ADD_FAILURE() << "threads " << threads << " was accepted";
      } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("threads"), std::string::npos) << message;
        EXPECT_NE(message.find(limit), std::string::npos) << message;
        EXPECT_NE(message.find("got " + std::to_string(threads)), std::string::npos) << message;
      }
    }
  }
}

TEST_F(Threads, TheLimitItselfIsAcceptedAndChangesNoAnswer) {
  for (const auto& run : every_batch()) EXPECT_NO_THROW(run(kMaxThreads));
  std::vector<SweepHit> one(batch_->sweeps.size()), most(batch_->sweeps.size());
  world_->sweep(batch_->sweeps, one, on_path(SweepPath::simd, 1));
  world_->sweep(batch_->sweeps, most, on_path(SweepPath::simd, kMaxThreads));
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(answers::same(one[i], most[i])) << "query " << i;
}

}  // namespace
