// The world and its batch layer: refused meshes, refused queries, determinism.
#include <capsweep/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

#include "tools/arena.h"
#include "tools/workloads.h"
#include "core/random.h"
#include "tests/support/batches.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_oracle.h"

namespace {

using namespace capsweep;

TEST(World, RefusesAnEmptyMesh) { EXPECT_THROW(World(std::vector<Triangle>{}), WorldError); }

TEST(World, RefusesANonFiniteVertexNamingTheTriangle) {
  std::vector<Triangle> tris = make_arena();
  tris[17].v[1].y = std::numeric_limits<float>::quiet_NaN();
  try {
    World w(tris);
    FAIL() << "accepted a NaN vertex";
  } catch (const WorldError& e) {
    EXPECT_NE(std::string(e.what()).find("triangle 17"), std::string::npos) << e.what();
  }
}

TEST(World, KeepsDegenerateTriangles) {
  const World w({Triangle{{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}}, Triangle{{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}}}});
  EXPECT_EQ(w.triangle_count(), 2u);
  SweepHit hit;
  ASSERT_EQ(w.sweep_one({{{1.5f, 2, 0}, {1.5f, 3, 0}, 0.25f}, {0, -3, 0}}, hit), Status::ok);
  EXPECT_TRUE(hit.hit);
  EXPECT_EQ(hit.triangle, 0u);
}

TEST(World, RefusedQueriesGetAMissAndTheirReason) {
  const World w(make_arena());
  std::vector<SweepQuery> q = {{{{0, 1, 0}, {0, 2, 0}, 0.3f}, {0, -2, 0}},
                               {{{0, 1, 0}, {0, 2, 0}, -1.f}, {0, -2, 0}},
                               {{{0, 1, 0}, {0, 2, 0}, 0.3f}, {0, std::numeric_limits<float>::infinity(), 0}}};
  std::vector<SweepHit> hits(q.size());
  std::vector<Status> status(q.size());
  EXPECT_EQ(w.sweep(q, hits, {}, status), 2u);
  EXPECT_EQ(status[0], Status::ok);
  EXPECT_TRUE(hits[0].hit);
  EXPECT_EQ(status[1], Status::bad_radius);
  EXPECT_FALSE(hits[1].hit);
  EXPECT_EQ(status[2], Status::non_finite_motion);
  EXPECT_FALSE(hits[2].hit);
  std::vector<SweepHit> short_hits(1);
  EXPECT_THROW(w.sweep(q, short_hits), std::invalid_argument);
}

// Every thread count, and any order of the batch, gives the same bits.
TEST(World, AnswersAreBitIdenticalForAnyThreadCountAndOrder) {
  const World w(make_arena());
  std::vector<SweepQuery> q;
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    const auto part = make_workload(w, wl, 3000, 7);
    q.insert(q.end(), part.begin(), part.end());
  }
  std::vector<SweepHit> base(q.size());
  w.sweep(q, base, on_path(SweepPath::brute, 1));
  const int cores = int(std::max(2u, std::thread::hardware_concurrency()));
  for (int threads = 2; threads <= cores; ++threads) {
    std::vector<SweepHit> hits(q.size());
    w.sweep(q, hits, on_path(SweepPath::brute, threads));
    for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(base[i], hits[i])) << "query " << i;
  }
  std::vector<std::size_t> order(q.size());
  std::iota(order.begin(), order.end(), 0);
  Random rng(3);
  for (std::size_t i = order.size() - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  std::vector<SweepQuery> shuffled(q.size());
  for (std::size_t i = 0; i < q.size(); ++i) shuffled[i] = q[order[i]];
  std::vector<SweepHit> hits(q.size());
  w.sweep(shuffled, hits);
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_TRUE(identical(base[order[i]], hits[i])) << "query " << i;
}

TEST(World, ArenaAnswersAreAcceptedByTheSceneOracle) {
  const World w(make_arena());
  const std::vector<Triangle> mesh = w.mesh_triangles();
  for (Workload wl : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
    const auto q = make_workload(w, wl, 1500, 11);
    std::vector<SweepHit> hits(q.size());
    w.sweep(q, hits);
    std::size_t n_hits = 0;
    for (std::size_t i = 0; i < q.size(); ++i) {
      n_hits += hits[i].hit;
      ASSERT_EQ(oracle::judge_scene(hits[i], q[i], mesh), "") << name(wl) << " query " << i;
    }
    EXPECT_GT(n_hits, 10u) << name(wl);
  }
}

TEST(World, TiesGoToTheDeeperStartThenTheLowerTriangle) {
  SweepHit a, b;
  a.hit = b.hit = true;
  a.t = b.t = 0.5f;
  a.triangle = 3;
  b.triangle = 9;
  EXPECT_TRUE(is_better_hit(a, b));
  EXPECT_FALSE(is_better_hit(b, a));
  a.t = b.t = 0.f;
  b.depth = 0.2f;
  a.depth = 0.1f;
  EXPECT_TRUE(is_better_hit(b, a));
  SweepHit miss;
  EXPECT_TRUE(is_better_hit(a, miss));
  EXPECT_FALSE(is_better_hit(miss, a));
}

}  // namespace

namespace {

// World::overlap is one walk per capsule; it must say what is_clear and deepest_overlap say
// separately, for any clearance and thread count, and refuse bad capsules alone.
TEST(World, OverlapAgreesWithIsClearAndDeepestOverlap) {
  using namespace capsweep;
  const World w(make_arena());
  std::vector<Capsule> capsules = batches::make(w, 3000, 17).capsules;
  capsules[5].radius = -1.f;
  capsules[9].a.y = std::numeric_limits<float>::quiet_NaN();
  for (float clearance : {0.f, 0.01f, 0.3f}) {
    std::vector<OverlapResult> all(capsules.size()), one(capsules.size());
    std::vector<Status> status(capsules.size());
    BatchOptions single;
    single.threads = 1;
    EXPECT_EQ(w.overlap(capsules, clearance, all, {}, status), 2u);
    w.overlap(capsules, clearance, one, single);
    std::size_t overlapping = 0, clear = 0;
    for (std::size_t i = 0; i < capsules.size(); ++i) {
      ASSERT_TRUE(answers::same(all[i], one[i])) << i;
      if (status[i] != Status::ok) {
        EXPECT_FALSE(all[i].clear || all[i].overlapping) << i;
        continue;
      }
      Contact k;
      std::uint32_t t = kNoTriangle;
      const bool found = w.deepest_overlap(capsules[i], k, t);
      ASSERT_EQ(all[i].clear, w.is_clear(capsules[i], clearance)) << i;
      ASSERT_EQ(all[i].overlapping, found) << i;
      if (found) {
        ASSERT_EQ(all[i].triangle, t) << i;
        ASSERT_TRUE(answers::same(all[i].deepest, k)) << i;
      }
      overlapping += found;
      clear += all[i].clear;
    }
    EXPECT_GT(overlapping, 0u) << clearance;
    EXPECT_GT(clear, 0u) << clearance;
  }
  std::vector<OverlapResult> r(capsules.size());
  EXPECT_THROW(w.overlap(capsules, -0.1f, r), std::invalid_argument);
}

}  // namespace
