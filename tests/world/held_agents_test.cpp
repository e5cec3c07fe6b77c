// hold_overlapping_ends: which agents that moved into each other stay at their starts. The
// rounds after the first look only near the agents just held; the answer must be the bits of
// the reference that re-checks everyone every round.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "world/held_agents.h"
#include "core/random.h"

namespace {

using namespace capsweep;

Capsule person(float x, float y, float z) { return {{x, y + 0.37f, z}, {x, y + 1.47f, z}, 0.35f}; }

struct Tick {
  std::vector<Capsule> starts, ends;
  std::vector<std::uint8_t> moved;
};

// n agents on a square of `side` metres, crowded enough that many ends overlap: most walk up to
// 0.6 m, some stand still, some lean (not upright), a few are refused (NaN) or start overlapping.
Tick crowded_tick(std::size_t n, float side, std::uint64_t seed) {
  Random rng(seed);
  Tick t;
  for (std::size_t i = 0; i < n; ++i) {
    // z, y, x: the order g++ evaluated person's arguments in (C++ leaves it open; clang's differs).
    const float z = float(rng.uniform(0, side)), y = float(rng.uniform(0, 0.3)), x = float(rng.uniform(0, side));
    Capsule s = person(x, y, z);
    if (i % 13 == 0) s.b.x += float(rng.uniform(-0.3, 0.3));  // leaning
    if (i % 97 == 0) s.a.y = std::numeric_limits<float>::quiet_NaN();
    Capsule e = s;
    const bool moves = i % 5 != 0;
    if (moves) {
      const Vec3 d{float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.6, 0.6))};
      e = {s.a + d, s.b + d, s.radius};
    }
    t.starts.push_back(s);
    t.ends.push_back(e);
    t.moved.push_back(moves);
  }
  return t;
}

TEST(HeldAgents, RandomCrowdsAreHeldAsTheReferenceHoldsThem) {
  std::size_t held = 0, total = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    // From sparse (few holds) to packed (long cascades of holds).
    const float side = 10.f + 5.f * float(seed % 4);
    const Tick t = crowded_tick(700, side, seed);
    const std::vector<std::uint8_t> fast = hold_overlapping_ends(t.starts, t.ends, t.moved);
    const std::vector<std::uint8_t> reference = hold_overlapping_ends_every_round(t.starts, t.ends, t.moved);
    ASSERT_EQ(fast, reference) << "seed " << seed;
    for (std::size_t i = 0; i < fast.size(); ++i) {
      held += fast[i];
      total += t.moved[i];
      EXPECT_TRUE(!fast[i] || t.moved[i]) << "only movers are held: agent " << i;
    }
  }
  // The cases are worth comparing: a good share of the movers is held, not all.
  EXPECT_GT(held, total / 20) << held << " of " << total;
  EXPECT_LT(held, total) << held << " of " << total;
}

TEST(HeldAgents, AQueueWalkingIntoItsStoppedHeadIsHeldOneAgentPerRound) {
  // A queue along x, 0.75 m apart (0.05 m clear): everyone walks 0.6 m forward but the head,
  // who stands still. The one behind the head walks into it (round 0); held at its start, it is
  // in the way of the one behind it (round 1), and so on, one agent per round, up to the cap.
  const std::size_t n = 24, head = n - 1;
  Tick t;
  for (std::size_t i = 0; i < n; ++i) {
    const Capsule s = person(0.75f * float(i), 0, 0);
    const bool moves = i != head;
    const Vec3 d{moves ? 0.6f : 0.f, 0, 0};
    t.starts.push_back(s);
    t.ends.push_back({s.a + d, s.b + d, s.radius});
    t.moved.push_back(moves);
  }
  const std::vector<std::uint8_t> held = hold_overlapping_ends(t.starts, t.ends, t.moved);
  EXPECT_EQ(held, hold_overlapping_ends_every_round(t.starts, t.ends, t.moved));
  for (std::size_t i = 0; i < n; ++i) {
    // Rounds 0 to kHoldRounds - 1 hold agents head - 1 down to head - kHoldRounds.
    const bool expected = i != head && i + kHoldRounds >= head;
    EXPECT_EQ(held[i] != 0, expected) << "agent " << i;
  }
}

TEST(HeldAgents, MoversThatEndApartAreNeverHeld) {
  // Two lines walking side by side, 1 m apart: nobody's end meets anyone.
  Tick t;
  for (int i = 0; i < 50; ++i) {
    for (int line = 0; line < 2; ++line) {
      const Capsule s = person(1.f * float(i), 0, 1.f * float(line));
      t.starts.push_back(s);
      t.ends.push_back({s.a + Vec3{0.5f, 0, 0}, s.b + Vec3{0.5f, 0, 0}, s.radius});
      t.moved.push_back(1);
    }
  }
  for (const std::uint8_t h : hold_overlapping_ends(t.starts, t.ends, t.moved)) EXPECT_EQ(h, 0);
}

}  // namespace
