// Issue 36's measurement, short: genuine tick streams of a jumping, colliding crowd of capsules
// and ellipsoids on the arena at 10 and 60 Hz, judged with the state the verdicts carry, and each
// cheat class made of them at its stated margin (tools/claim_streams.h). False flags are printed
// and held to at most 1 in 50,000 (issue 36's target is 1 in 100,000, the goal none); every
// cheat class is caught at least 99 % of the time. A crowd without jumps is the crowd it was.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "tools/arena.h"
#include "tools/claim_streams.h"
#include "tools/crowd.h"

namespace {

using namespace capsweep;

TEST(ClaimStreams, GenuineTicksPassAndEveryCheatClassIsCaughtOnTheArena) {
  const World w(make_arena());
  std::uint64_t flagged = 0, genuine = 0;
  std::array<std::uint64_t, kCheats> tried{}, caught{};
  for (const float rate : {10.f, 60.f}) {
    ClaimStreamSettings s;
    s.rate_hz = rate;
    s.agents = 200;
    s.seconds = 10;
    s.seed = 3;
    s.cheat_every = rate == 60 ? 6 : 1;  // about as many cheats at each rate
    const ClaimStreamReport r = run_claim_stream(w, s);
    for (const JudgedClaim& j : r.false_flags) std::printf("%g Hz false flag: %s\n", rate, describe(j).c_str());
    std::printf("%g Hz: %llu of %llu genuine ticks flagged; %llu steps, %llu snaps, %llu airborne, %llu jumps\n", rate,
                (unsigned long long)r.flagged, (unsigned long long)r.genuine, (unsigned long long)r.steps,
                (unsigned long long)r.snaps, (unsigned long long)r.airborne, (unsigned long long)r.jumps);
    // The streams hold what bends a path: steps, snaps, falls and jumps.
    EXPECT_GT(r.steps, 5u) << rate;
    EXPECT_GT(r.snaps, 20u) << rate;
    EXPECT_GT(r.airborne, 20u) << rate;
    EXPECT_GT(r.jumps, 20u) << rate;
    flagged += r.flagged;
    genuine += r.genuine;
    for (std::size_t k = 0; k < kCheats; ++k) {
      const CheatTally& t = r.cheats[k];
      std::printf("%g Hz %-13s caught %llu of %llu, named %llu; missed with the start in the skin %llu\n", rate,
                  name(Cheat(k)), (unsigned long long)t.caught, (unsigned long long)t.tried, (unsigned long long)t.named,
                  (unsigned long long)t.missed_in_skin);
      for (const JudgedClaim& j : t.missed) std::printf("  missed: %s\n", describe(j).c_str());
      EXPECT_GE(t.tried, 20u) << rate << " Hz " << name(Cheat(k)) << ": too few samples";
      tried[k] += t.tried;
      caught[k] += t.caught;
    }
  }
  EXPECT_LE(flagged * 50000, genuine) << flagged << " of " << genuine << " genuine ticks flagged";
  for (std::size_t k = 0; k < kCheats; ++k) {
    EXPECT_GE(caught[k] * 100, tried[k] * 99) << name(Cheat(k)) << " (" << margin_of(Cheat(k)) << "): caught "
                                              << caught[k] << " of " << tried[k];
  }
}

// jump_chance 0 draws nothing: the crowd moves as it did before jumps existed, while a crowd
// with jumps takes off.
TEST(ClaimStreams, JumpsOffLeaveTheCrowdAsItWas) {
  const World w(make_arena());
  CrowdSettings cs;
  cs.agents = 50;
  cs.seed = 5;
  Crowd plain(w, cs);
  cs.jump_speed = 4;  // a speed alone does not jump
  Crowd zero_chance(w, cs);
  cs.jump_chance = 2;
  Crowd jumping(w, cs);
  int rising = 0;
  for (int t = 0; t < 60; ++t) {
    plain.tick();
    zero_chance.tick();
    jumping.tick();
    for (std::size_t i = 0; i < plain.agents().size(); ++i) {
      const Agent &a = plain.agents()[i], &b = zero_chance.agents()[i];
      ASSERT_EQ(std::memcmp(&a.capsule, &b.capsule, sizeof(Capsule)), 0) << "tick " << t << " agent " << i;
      ASSERT_EQ(std::memcmp(&a.displacement, &b.displacement, sizeof(Vec3)), 0) << "tick " << t << " agent " << i;
      ASSERT_EQ(a.vertical_speed, b.vertical_speed) << "tick " << t << " agent " << i;
      rising += jumping.previous()[i].vertical_speed > 0;
    }
  }
  EXPECT_GT(rising, 20);
}

}  // namespace
