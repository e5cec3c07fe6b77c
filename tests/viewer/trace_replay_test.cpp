// Cutting a crowd's trace back into ticks and agents: chained segments, an agent that travelled
// nothing in a tick, a push between two of an agent's segments.
#include "viewer/trace_replay.h"

#include <gtest/gtest.h>

#include <cstring>

#include <capsweep/files.h>

#include "tests/support/test_files.h"

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
  EXPECT_EQ(r.at(1, 2).state, ReplayState::held);
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

TEST(TraceReplay, FindsAnAgentThatFirstMovesLaterAndOneMovedBetweenTicks) {
  // Agent 1 travels nothing in tick 0 (it writes no segment) and first moves in tick 1; agent 2
  // is moved 40 cm between ticks 1 and 2 (a push it did not travel: it continues no one).
  std::vector<ClaimedMove> m;
  const Vec3 x{0.02f, 0, 0};
  m.push_back(segment({0, 0, 0}, x));
  m.push_back(segment({20, 0, 0}, x));
  // tick 1
  m.push_back(segment({0.02f, 0, 0}, x));
  m.push_back(segment({10, 0, 0}, x));
  m.push_back(segment({20.02f, 0, 0}, x));
  // tick 2
  m.push_back(segment({0.04f, 0, 0}, x));
  m.push_back(segment({10.02f, 0, 0}, x));
  m.push_back(segment({20.44f, 0, 0}, x));
  const Replay r = cut_trace(m, "t.cwsq");
  ASSERT_EQ(r.agents, 3u);
  ASSERT_EQ(r.ticks, 3u);
  EXPECT_EQ(r.at(0, 1).count, 0u);
  EXPECT_EQ(r.at(0, 1).end.x, 10.f);  // where it stands before its first segment
  EXPECT_EQ(r.at(1, 1).first, 3u);
  EXPECT_EQ(r.at(2, 2).first, 7u);
  EXPECT_EQ(r.unchained, 2u);  // agent 1's first run and agent 2's after its push continue no one
}

TEST(TraceReplay, RefusesSegmentsThatAreNotACrowdsTrace) {
  // Scattered segments whose runs keep starting where earlier agents stand, out of order: far
  // more agent-ticks than segments.
  std::vector<ClaimedMove> m;
  for (int k = 0; k < 40000; ++k) {
    const float x = k < 2000 ? float(k) : float((k * 7919) % 2000);
    m.push_back(segment({x, 0, 0}, {0, 0, 0.001f * float(k % 3)}));
  }
  try {
    const Replay r = cut_trace(m, "t.cwsq");
    ADD_FAILURE() << r.agents << " agents over " << r.ticks << " ticks";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.cwsq: its 40000 segments cut into 2000 agents over"), std::string::npos) << e.what();
  }
}

class TraceOfTheMainJob : public ScratchDir {};

TEST_F(TraceOfTheMainJob, IsCutIntoItsAgentsAndTicks) {
  // The main job: a crowd walking to its goals on Recast's test level.
  const CommandRun run = capsweep_cmd("demo --agents 300 --ticks 60 --threads 1 --no-detour --no-big-tick --trace " +
                                      path("t.cwsq") + " --png " + path("d.png"));
  ASSERT_EQ(run.code, 0) << run.output;
  const Replay r = cut_trace(read_claimed_moves(path("t.cwsq")), path("t.cwsq"));
  EXPECT_EQ(r.agents, 300u);
  EXPECT_EQ(r.ticks, 60u);
  std::size_t segments = 0;
  for (const AgentTick& t : r.agent_ticks) segments += t.count;
  EXPECT_EQ(segments, r.moves.size());  // every segment belongs to one agent-tick
}

TEST_F(TraceOfTheMainJob, OfTheMovingArenaIsCutIntoItsAgentsAndTicks) {
  // The moving arena, whose door pushes and lift carries agents between their segments.
  const CommandRun run =
      capsweep_cmd("demo-arena --agents 300 --ticks 60 --threads 1 --trace " + path("t.cwsq") + " --png " + path("d.png"));
  ASSERT_EQ(run.code, 0) << run.output;
  const Replay r = cut_trace(read_claimed_moves(path("t.cwsq")), path("t.cwsq"));
  EXPECT_EQ(r.agents, 300u);
  EXPECT_EQ(r.ticks, 60u);
  std::size_t segments = 0;
  for (const AgentTick& t : r.agent_ticks) segments += t.count;
  EXPECT_EQ(segments, r.moves.size());  // every segment belongs to one agent-tick
}

}  // namespace
}  // namespace capsweep::viewer
