// Cutting a crowd's trace back into ticks and agents: chained segments, an agent that travelled
// nothing in a tick, a push between two of an agent's segments.
#include "viewer/trace_replay.h"

#include <gtest/gtest.h>

#include <cstring>

namespace capsweep::viewer {
namespace {

ClaimedMove segment(Vec3 from, Vec3 motion, bool grounded = true) {
  ClaimedMove m;
  m.from = {from, from + Vec3{0, 1, 0}, 0.3f};
  m.motion = motion;
  m.dt = 1.f / 60;
  m.grounded = grounded;
  return m;
}

TEST(TraceReplay, CutsChainedSegmentsIntoAgentsAndTicks) {
  // Three agents ten metres apart, three ticks. Tick 0: agent 1 slides (two chained segments).
  // Tick 1: agent 2 travels nothing (writes no segment). Tick 2: agent 0 is pushed 2 cm between
  // its two segments.
  std::vector<ClaimedMove> m;
  const Vec3 x{0.1f, 0, 0}, z{0, 0, 0.1f};
  m.push_back(segment({0, 0, 0}, x));
  m.push_back(segment({10, 0, 0}, x));
  m.push_back(segment({10.1f, 0, 0}, z));
  m.push_back(segment({20, 0, 0}, x));
  // tick 1
  m.push_back(segment({0.1f, 0, 0}, x));
  m.push_back(segment({10.1f, 0, 0.1f}, x));
  // tick 2
  m.push_back(segment({0.2f, 0, 0}, x));
  m.push_back(segment({0.3f, 0, 0.02f}, x));
  m.push_back(segment({10.2f, 0, 0.1f}, Vec3{0, 0.2f, 0}));
  m.push_back(segment({20.1f, 0, 0}, Vec3{0, -0.3f, 0}, false));
  const Replay r = cut_trace(m, "t.cwsq");
  ASSERT_EQ(r.agents, 3u);
  ASSERT_EQ(r.ticks, 3u);
  EXPECT_EQ(r.at(0, 1).count, 2u);
  EXPECT_EQ(r.at(0, 1).state, ReplayState::slid);
  EXPECT_EQ(r.at(1, 2).count, 0u);
  EXPECT_EQ(r.at(1, 2).state, ReplayState::blocked);
  EXPECT_EQ(r.at(1, 2).end.x, 20.1f);
  EXPECT_EQ(r.at(2, 0).count, 2u);
  EXPECT_EQ(r.at(2, 0).first, 6u);
  EXPECT_FLOAT_EQ(r.at(2, 0).end.x, 0.4f);
  EXPECT_EQ(r.at(2, 1).state, ReplayState::stepped);
  EXPECT_EQ(r.at(2, 2).state, ReplayState::falling);
  EXPECT_EQ(r.at(1, 0).state, ReplayState::walking);
  EXPECT_EQ(r.unchained, 0u);

  const std::string bytes = replay_buffer(r);
  EXPECT_EQ(bytes.size() % 4, 0u);
  std::uint32_t head[4];
  std::memcpy(head, bytes.data(), sizeof head);
  EXPECT_EQ(head[2], 3u);
  EXPECT_EQ(head[3], 3u);
  EXPECT_EQ(bytes.size(), 16 + 3 * 16 + 3 * 12 + 9 * 12 + 12);
  EXPECT_NE(agent_tick_json(r, 0, 1).find("\"state\":\"slid\""), std::string::npos);
}

TEST(TraceReplay, AgentsThatTravelNothingAtTheEndStayWhereTheyWere) {
  std::vector<ClaimedMove> m;
  for (float x : {0.f, 10.f, 20.f}) m.push_back(segment({x, 0, 0}, {0.1f, 0, 0}));
  m.push_back(segment({10.1f, 0, 0}, {0.1f, 0, 0}));  // tick 1: agent 1 alone moves
  const Replay r = cut_trace(m, "t.cwsq");
  ASSERT_EQ(r.ticks, 2u);
  EXPECT_EQ(r.at(1, 0).count, 0u);
  EXPECT_EQ(r.at(1, 1).count, 1u);
  EXPECT_EQ(r.at(1, 2).count, 0u);
  EXPECT_EQ(r.at(1, 2).end.x, 20.1f);
  try {
    cut_trace({}, "t.cwsq");
    ADD_FAILURE() << "an empty trace was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "t.cwsq: the trace holds no segments");
  }
}

}  // namespace
}  // namespace capsweep::viewer
