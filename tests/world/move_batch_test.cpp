// The tick as a batch (World::move: up to 64 agents of a worker's range in flight, each waiting
// at its next world sweep, the waiting sweeps pooled through the engine) gives the bytes of one
// agent at a time (move_agent, each sweep asked of the collider alone), on every scene: results,
// contacts and traced segments, agents colliding or not, capsules and ellipsoids mixed, agents on
// a subset of layers, refused agents and a pile-up among them, walking and fast, on the simd and
// the scalar path, on 1 and 2 threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <span>
#include <stdexcept>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "world/world_arrays.h"
#include "world/move_batch.h"
#include "world/sweeps.h"
#include "world/world_collider.h"
#include "core/move.h"
#include "tests/support/same_answers.h"
#include "tests/support/scene_list.h"
#include "tools/crowd.h"
#include <capsweep/world.h>

namespace {

using namespace capsweep;

struct Answers {
  std::vector<MoveResult> results;
  std::vector<MoveSegments> segments;
  std::vector<Status> status;
};

Answers move(const World& world, const std::vector<Agent>& agents, const MoveSettings& settings, BatchOptions options,
        std::size_t in_flight) {
  Answers r;
  r.results.resize(agents.size());
  r.segments.resize(agents.size());
  r.status.resize(agents.size());
  move_agents(world, agents, settings, r.results, options, r.segments, r.status, in_flight);
  return r;
}

// The first agent whose answer differs, or "" when every byte a caller sees is the same.
std::string first_difference(const Answers& a, const Answers& b) {
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    const MoveSegments &x = a.segments[i], &y = b.segments[i];
    const bool same_segments =
        x.count == y.count && std::memcmp(x.segment, y.segment, sizeof(MoveSegments::Segment) * x.count) == 0;
    if (!answers::same(a.results[i], b.results[i]) || !same_segments || a.status[i] != b.status[i]) {
      return "agent " + std::to_string(i);
    }
  }
  return {};
}

// A crowd's agents after a few ticks (walking, blocked, falling, stepping), with a pile of 40 on
// one spot and three refused agents added.
std::vector<Agent> crowd_agents(const Crowd& crowd) {
  std::vector<Agent> agents = crowd.previous();
  const Agent first = agents.front();
  for (int k = 0; k < 40; ++k) {
    Agent a = first;
    a.id = 100000 + k;
    a.displacement = {0.01f * float(k % 7), 0, -0.01f * float(k % 5)};
    agents.push_back(a);
  }
  Agent nan = first, huge = first, none = first;
  nan.capsule.a.x = std::numeric_limits<float>::quiet_NaN();
  huge.displacement = {1e30f, 0, 0};
  none.layers = 0;
  agents.insert(agents.begin() + 3, nan);
  agents.insert(agents.begin() + 7, huge);
  agents.push_back(none);
  return agents;
}

class TickAsABatch : public ::testing::TestWithParam<std::string> {};

TEST_P(TickAsABatch, GivesTheBytesOfOneAgentAtATime) {
  const World world(scenes::load(GetParam()));
  struct Case {
    float speed;  // m/s
    bool collide;
    SweepPath path;
  };
  const Case cases[] = {{1.5f, true, SweepPath::simd}, {1.5f, false, SweepPath::simd}, {60.f, true, SweepPath::simd},
                        {1.5f, true, SweepPath::scalar}};
  std::size_t compared = 0, sweeps = 0;
  for (const Case& c : cases) {
    CrowdSettings cs;
    cs.agents = 400;
    cs.seed = 5;
    cs.min_speed = 0.5f;
    cs.max_speed = c.speed;
    cs.trace = true;
    cs.up_to_capacity = true;
    cs.move.agents_collide = c.collide;
    cs.agent_shapes = {AgentShape::capsule, AgentShape::capsule, AgentShape::ellipsoid};
    cs.agent_layers = {kAllLayers, kAllLayers, kAllLayers, 1u};
    Crowd crowd(world, cs);
    for (int tick = 0; tick < 5; ++tick) crowd.tick();
    const std::vector<Agent> agents = crowd_agents(crowd);
    BatchOptions options;
    options.path = c.path;
    options.threads = 1;
    const Answers alone = move(world, agents, cs.move, options, 1);
    for (std::size_t in_flight : {std::size_t(64), std::size_t(7), std::size_t(2)}) {
      for (int threads : {1, 2}) {
        options.threads = threads;
        const Answers batched = move(world, agents, cs.move, options, in_flight);
        EXPECT_EQ(first_difference(alone, batched), "")
            << GetParam() << ": speed " << c.speed << (c.collide ? ", agents on" : ", agents off") << ", "
            << name(c.path) << ", " << in_flight << " in flight, " << threads << " threads";
        ++compared;
      }
    }
    for (const MoveResult& r : alone.results) sweeps += r.sweeps;
  }
  EXPECT_EQ(compared, 24u);
  EXPECT_GT(sweeps, 1000u) << "the crowds swept the world";
}

// A traced tick's scratch traces (a walk's, a step's, a snap's) are recycled per thread: an
// agent moved on a thread that has moved hundreds before it traces the segments it traces on a
// fresh thread, whose traces are new, and ends where it ends untraced. On the dungeon (stairs:
// steps, snaps and falls), walking and fast, capsules and ellipsoids.
TEST(TickAsABatchAlone, RecycledScratchTracesChangeNoSegment) {
  const World world(scenes::load("recast_dungeon.obj"));
  CrowdSettings cs;
  cs.agents = 300;
  cs.seed = 11;
  cs.min_speed = 0.5f;
  cs.max_speed = 12.f;
  cs.trace = true;
  cs.move.agents_collide = false;
  cs.agent_shapes = {AgentShape::capsule, AgentShape::capsule, AgentShape::ellipsoid};
  Crowd crowd(world, cs);
  for (int tick = 0; tick < 8; ++tick) crowd.tick();
  const std::vector<Agent> agents = crowd.previous();
  const auto move_one = [&](const Agent& a, MoveResult& result, MoveSegments* segments) {
    const WorldCollider collider(world, SweepPath::simd, a.layers, nullptr, {}, {}, 0);
    move_agent(collider, a, cs.move, result, segments);
  };
  std::size_t traced = 0, steps_or_snaps = 0;
  for (std::size_t i = 0; i < agents.size(); ++i) {
    MoveResult warm, fresh;
    MoveSegments warm_segments, fresh_segments;
    move_one(agents[i], warm, &warm_segments);  // this thread's traces, used by every agent before
    std::thread([&] { move_one(agents[i], fresh, &fresh_segments); }).join();
    ASSERT_TRUE(answers::same(warm, fresh)) << "agent " << i;
    MoveResult untraced;  // no scratch traces at all
    move_one(agents[i], untraced, nullptr);
    ASSERT_TRUE(answers::same(warm, untraced)) << "agent " << i;
    ASSERT_EQ(warm_segments.count, fresh_segments.count) << "agent " << i;
    ASSERT_EQ(std::memcmp(warm_segments.segment, fresh_segments.segment,
                          sizeof(MoveSegments::Segment) * std::size_t(warm_segments.count)), 0)
        << "agent " << i;
    traced += std::size_t(warm_segments.count);
    if (warm.flags & (kMoveSteppedUp | kMoveSnapped)) ++steps_or_snaps;
  }
  EXPECT_GT(traced, agents.size()) << "the agents travelled segments";
  EXPECT_GT(steps_or_snaps, 0u) << "some stepped or snapped (their scratch traces kept)";
}

// A stop callback is user code: one that runs batches of its own (oneTBB may then run other
// ranges of the tick on the waiting thread) meets no tick of ours waiting and changes no byte;
// nor do batches too small for full ranges, nor in-flight counts out of range (refused).
TEST(TickAsABatchAlone, AStopCallbackRunningItsOwnBatchesChangesNoByte) {
  const World world(scenes::load("@arena"));
  CrowdSettings cs;
  cs.agents = 1500;
  cs.seed = 9;
  cs.trace = true;
  Crowd crowd(world, cs);
  for (int tick = 0; tick < 3; ++tick) crowd.tick();
  const std::vector<Agent> agents = crowd.previous();
  BatchOptions options;
  options.threads = 2;
  const Answers plain = move(world, agents, cs.move, options, kSweepChunk);
  std::vector<SweepQuery> queries(512);
  for (std::size_t i = 0; i < queries.size(); ++i) queries[i] = {agents[i].capsule, {0.5f, 0, 0.25f}};
  std::vector<SweepHit> hits(queries.size());
  std::atomic<int> asked{0};
  options.stop = [&] {
    ++asked;
    SweepOptions inner;
    inner.threads = 0;  // the calling arena: its threads may pick up the tick's other ranges
    world.sweep(queries, hits, inner);
    std::vector<MoveResult> results(64);
    world.move(std::span(agents).first(64), cs.move, results);
    return false;
  };
  const Answers asking = move(world, agents, cs.move, options, kSweepChunk);
  EXPECT_GT(asked.load(), 10);
  EXPECT_EQ(first_difference(plain, asking), "");

  // A batch of 40 agents on 2 threads, and the same 40 one at a time.
  const std::vector<Agent> few(agents.begin(), agents.begin() + 40);
  options.stop = nullptr;
  EXPECT_EQ(first_difference(move(world, few, cs.move, options, 1), move(world, few, cs.move, options, kSweepChunk)),
            "");

  std::vector<MoveResult> results(few.size());
  EXPECT_THROW(move_agents(world, few, cs.move, results, options, {}, {}, 0), std::invalid_argument);
  EXPECT_THROW(move_agents(world, few, cs.move, results, options, {}, {}, kSweepChunk + 1), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Scenes, TickAsABatch, ::testing::ValuesIn(scenes::names()),
                         [](const auto& info) { return scenes::test_name(info.param); });

}  // namespace
