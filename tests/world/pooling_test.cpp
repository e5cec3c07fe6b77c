// The pooled narrow phase (sweep_chunk): the live lanes that the sweeps of a chunk leave over
// share the full kernel's calls, and each answer must come back to its own query with the bits
// it has when swept alone, on every scene, whatever else shares the chunk: spheres (swept on
// their own), refused queries, starts in contact, and any order or chunk size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <capsweep/world.h>
#include "world/sweep_batch.h"
#include "world/world_arrays.h"
#include "world/sweeps.h"
#include "core/random.h"
#include "tests/support/scene_list.h"
#include "tests/support/scene_queries.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;

std::vector<SweepHit> one_at_a_time(const World& w, std::span<const SweepQuery> q, std::vector<Status>& status) {
  std::vector<SweepHit> hits(q.size());
  status.assign(q.size(), Status::ok);
  for (std::size_t i = 0; i < q.size(); ++i) status[i] = w.sweep_one(q[i], hits[i]);
  return hits;
}

// A batch that mixes every kind of query a chunk may hold.
std::vector<SweepQuery> mixed_batch(const World& w, const std::vector<Triangle>& tris, std::uint64_t seed) {
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range}) {
    const auto part = make_workload(w, wl, 3000, seed + std::uint64_t(wl));
    q.insert(q.end(), part.begin(), part.end());
  }
  const auto adversarial = cases::adversarial_scene_queries(tris, 3000, seed + 7);
  q.insert(q.end(), adversarial.begin(), adversarial.end());
  Random rng(seed);
  const std::size_t n = q.size();
  for (std::size_t i = 0; i < n; i += 5) {
    SweepQuery s = q[i];
    s.capsule.b = s.capsule.a;  // a sphere: its leftover lanes are not pooled
    q.push_back(s);
  }
  for (std::size_t i = 2; i < n; i += 7) {
    SweepQuery s = q[i];
    s.capsule.radius = 0.f;  // a moving segment (pooled), or a ray every other time (not pooled)
    if (i % 2 == 0) s.capsule.b = s.capsule.a;
    q.push_back(s);
  }
  for (std::size_t i = 0; i < n; i += 97) {
    SweepQuery bad = q[i];
    if (rng.chance(0.5)) {
      bad.motion.x = std::numeric_limits<float>::quiet_NaN();
    } else {
      bad.capsule.radius = -1.f;
    }
    q.push_back(bad);
  }
  // Interleaved, so that every chunk holds a mixture.
  for (std::size_t i = q.size() - 1; i > 0; --i) std::swap(q[i], q[rng.below(i + 1)]);
  return q;
}

class ScenePooling : public testing::TestWithParam<std::string> {};

TEST_P(ScenePooling, EveryAnswerIsTheQuerysOwnWhateverSharesItsChunk) {
  const std::vector<Triangle> tris = scenes::load(GetParam());
  const World world(tris);
  const std::vector<SweepQuery> q = mixed_batch(world, tris, 61);
  std::vector<Status> alone_status;
  const std::vector<SweepHit> alone = one_at_a_time(world, q, alone_status);

  // The batch (pooled, all threads), and chunk by chunk at sizes 1 to kSweepChunk.
  std::vector<SweepHit> batch(q.size());
  std::vector<Status> batch_status(q.size());
  world.sweep(q, batch, {}, batch_status);
  std::size_t hits = 0, refused = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    ASSERT_EQ(batch_status[i], alone_status[i]) << "query " << i;
    ASSERT_TRUE(identical(batch[i], alone[i])) << "query " << i << ": pooled t=" << batch[i].t << " tri "
                                               << batch[i].triangle << ", alone t=" << alone[i].t << " tri "
                                               << alone[i].triangle;
    hits += alone[i].hit;
    refused += alone_status[i] != Status::ok;
  }
  Random rng(62);
  std::vector<SweepHit> chunked(q.size());
  std::vector<Status> chunked_status(q.size());
  PoolCounts pooled;
  std::size_t chunks = 0;
  for (std::size_t first = 0; first < q.size(); ++chunks) {
    const std::size_t n = std::min(q.size() - first, std::size_t(1 + rng.below(kSweepChunk)));
    const PoolCounts c = sweep_chunk(world, std::span(q).subspan(first, n), std::span(chunked).subspan(first, n),
                                     std::span(chunked_status).subspan(first, n), SweepPath::simd);
    pooled.lanes += c.lanes;
    pooled.calls += c.calls;
    first += n;
  }
  // The pool is really used, and its calls run full lanes but for the last of each chunk.
  EXPECT_GT(pooled.lanes, q.size() / 20) << "hardly any lane was pooled";
  EXPECT_LE(pooled.calls, pooled.lanes / kBlockLanes + chunks);
  EXPECT_GE(pooled.calls * kBlockLanes, pooled.lanes);
  for (std::size_t i = 0; i < q.size(); ++i) {
    ASSERT_EQ(chunked_status[i], alone_status[i]) << "query " << i;
    ASSERT_TRUE(identical(chunked[i], alone[i])) << "chunked, query " << i;
  }
  // The engine before pooling (kept for the benchmark) gives the same bytes.
  std::vector<SweepHit> unpooled(q.size());
  sweep_batch(
      world, q.size(), [&](std::size_t i) -> const SweepQuery& { return q[i]; },
      [&](std::size_t i, const SweepHit& h, Status) { unpooled[i] = h; }, SweepOptions{}, false);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(unpooled[i], alone[i])) << "unpooled, query " << i;
  EXPECT_GT(hits, q.size() / 20) << "the batch hardly touches the scene";
  EXPECT_GT(refused, 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryScene, ScenePooling, testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

}  // namespace
