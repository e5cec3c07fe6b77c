// Agents piled on one spot (spawned there, or pushed there) cost work linear in their number:
// counted in capsule-capsule sweeps, never timed. The pile stays as it is, and agents walking
// into it are kept out of it.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include <capsweep/world.h>

#include "world/world_arrays.h"
#include "world/move_batch.h"
#include "core/random.h"

namespace {

using namespace capsweep;

World floor_world() {
  return World(std::vector<Triangle>{{{{-50, 0, -50}, {-50, 0, 50}, {50, 0, 50}}}, {{{-50, 0, -50}, {50, 0, 50}, {50, 0, -50}}}});
}

// n agents standing on one spot (within 1 cm of each other), each wanting to walk somewhere.
std::vector<Agent> pile(std::size_t n, std::uint64_t seed) {
  Random rng(seed);
  std::vector<Agent> agents(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float x = float(rng.uniform(-0.005, 0.005)), z = float(rng.uniform(-0.005, 0.005));
    agents[i].capsule = {{x, 0.37f, z}, {x, 1.47f, z}, 0.35f};
    agents[i].displacement = {float(rng.uniform(-0.03, 0.03)), 0, float(rng.uniform(-0.03, 0.03))};
    agents[i].id = std::uint32_t(i);
  }
  return agents;
}

// Capsule-capsule sweeps one tick of these agents costs.
std::uint64_t pair_sweeps_of_a_tick(const World& world, const std::vector<Agent>& agents, std::vector<MoveResult>& out) {
  out.assign(agents.size(), MoveResult{});
  const std::uint64_t before = agent_pair_sweeps();
  world.move(agents, MoveSettings{}, out);
  return agent_pair_sweeps() - before;
}

TEST(PileUp, WorkIsLinearInTheAgentsPiledOnOneSpot) {
  const World world = floor_world();
  std::vector<MoveResult> results;
  const std::uint64_t w1000 = pair_sweeps_of_a_tick(world, pile(1000, 1), results);
  const std::uint64_t w2000 = pair_sweeps_of_a_tick(world, pile(2000, 2), results);
  // Quadratic work would be about 4 x from 1,000 to 2,000 agents (and 10^6 sweeps at 1,000).
  EXPECT_LE(w2000, 2 * w1000 + 1000) << w1000 << " then " << w2000;
  EXPECT_LE(w1000, 100u * 1000u);
  std::uint64_t sweeps = 0;
  for (const MoveResult& r : results) sweeps += r.sweeps;
  EXPECT_LE(sweeps, 10u * results.size()) << "world sweeps stay a few per agent";
}

TEST(PileUp, ThePileStaysAndNoOneMovesIntoIt) {
  const World world = floor_world();
  std::vector<Agent> agents = pile(500, 3);
  // Walkers around the pile, heading into it.
  for (int k = 0; k < 16; ++k) {
    const float angle = float(k) * 0.3927f, x = 1.2f * std::cos(angle), z = 1.2f * std::sin(angle);
    agents.push_back({{{x, 0.37f, z}, {x, 1.47f, z}, 0.35f}, {-0.3f * std::cos(angle), 0, -0.3f * std::sin(angle)}, 0,
                      std::uint32_t(1000 + k)});
  }
  std::vector<MoveResult> results(agents.size());
  world.move(agents, MoveSettings{}, results);
  for (std::size_t i = 0; i < 500; ++i) {
    EXPECT_EQ(results[i].capsule.a, agents[i].capsule.a) << i;
    EXPECT_TRUE(results[i].flags & kMoveHeldByAgents) << i;
  }
  // No walker ends overlapping anyone it did not overlap at the start.
  for (std::size_t i = 500; i < agents.size(); ++i) {
    for (std::size_t j = 0; j < agents.size(); ++j) {
      if (i == j) continue;
      Contact before, after;
      capsule_capsule_contact(agents[i].capsule, agents[j].capsule, before);
      capsule_capsule_contact(results[i].capsule, results[j].capsule, after);
      if (!before.overlapping) {
        EXPECT_FALSE(after.distance < 0.7f - 1e-4f) << i << " walked into " << j;
      }
    }
  }
}

TEST(PileUp, ThreadCountAndOrderChangeNoByte) {
  const World world = floor_world();
  std::vector<Agent> agents = pile(300, 4);
  for (int k = 0; k < 50; ++k) {
    const float x = 3.f + 0.8f * float(k % 10), z = 0.8f * float(k / 10);
    agents.push_back({{{x, 0.37f, z}, {x, 1.47f, z}, 0.35f}, {-0.05f, 0, 0}, 0, std::uint32_t(5000 + k)});
  }
  std::vector<MoveResult> one(agents.size()), all(agents.size()), reversed(agents.size());
  world.move(agents, MoveSettings{}, one, on_path(SweepPath::simd, 1));
  world.move(agents, MoveSettings{}, all, on_path(SweepPath::simd, 0));
  std::vector<Agent> back(agents.rbegin(), agents.rend());
  world.move(back, MoveSettings{}, reversed);
  for (std::size_t i = 0; i < agents.size(); ++i) {
    ASSERT_EQ(std::memcmp(&one[i].capsule, &all[i].capsule, sizeof(Capsule)), 0) << i;
    ASSERT_EQ(std::memcmp(&one[i].capsule, &reversed[agents.size() - 1 - i].capsule, sizeof(Capsule)), 0) << i;
    ASSERT_EQ(one[i].flags, reversed[agents.size() - 1 - i].flags) << i;
  }
}

}  // namespace
