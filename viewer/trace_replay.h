// A crowd's trace (capsweep crowd --trace: claimed moves, CWSQ versions 2, 5, 7, 8) cut back into
// ticks and agents for the replay. The records carry neither: a tick writes each agent's
// travelled segments in agent order, each starting where the one before it ended, so an agent's
// tick is a run of chained segments, and each run continues the agent that stood where it
// starts (docs/VIEWER.md says how, and how states are read off the segments: the trace holds
// positions and the claim state, not the solver's result flags).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <capsweep/validate.h>

namespace capsweep::viewer {

// held: wrote no segment (a crowd's agent always wants to move: other agents held it).
enum class ReplayState : std::uint8_t { walking = 0, slid = 1, blocked = 2, stepped = 3, snapped = 4, falling = 5, held = 6 };
inline constexpr int kReplayStates = 7;
const char* name(ReplayState s);

struct AgentTick {
  std::uint32_t first = 0;  // its segments: moves[first, first + count)
  std::uint32_t count = 0;  // 0: it travelled nothing this tick (no segment written)
  ReplayState state = ReplayState::walking;
  Vec3 end;  // where it stood when the tick ended
};

struct Replay {
  std::vector<ClaimedMove> moves;
  std::uint32_t agents = 0, ticks = 0;
  std::vector<AgentTick> agent_ticks;  // ticks x agents, tick by tick
  std::uint32_t unchained = 0;  // runs after tick 0 that continued no agent (first moves, respawns, pushes)
  const AgentTick& at(std::uint32_t tick, std::uint32_t agent) const { return agent_ticks[std::size_t(tick) * agents + agent]; }
};

// Throws FormatError (the reader's) or std::runtime_error naming the file when the runs do not
// make whole ticks of one agent count.
Replay cut_trace(std::vector<ClaimedMove> moves, const std::string& path);

// The replay as the page reads it (docs/VIEWER.md, "GET /api/trace"): header (magic "CWVT",
// version, agents, ticks), per agent its shape byte padded to 4 and its size (capsule: radius
// and height; ellipsoid: radii), float32 x 3 per agent where tick 0 starts, then per tick per agent
// where it ended (float32 x 3) and, after all positions, a state byte per agent-tick.
std::string replay_buffer(const Replay& replay);

// One agent-tick's claimed moves as JSON, for the page's record panel.
std::string agent_tick_json(const Replay& replay, std::uint32_t tick, std::uint32_t agent);

}  // namespace capsweep::viewer
