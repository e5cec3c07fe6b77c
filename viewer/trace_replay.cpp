#include "viewer/trace_replay.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace capsweep::viewer {

namespace {

// Segments chain through the solver's own float arithmetic: a millimetre is far below any
// distance between two agents' positions and far above the rounding of a tick's steps.
constexpr float kChained = 1e-3f;
constexpr float kStillMetres = 1e-3f;
constexpr float kStepMetres = 0.05f;

Vec3 start_of(const ClaimedMove& m) { return m.shape == AgentShape::ellipsoid ? m.ellipsoid.centre : m.from.a; }
Vec3 end_of(const ClaimedMove& m) { return start_of(m) + m.motion; }
bool near(const Vec3& a, const Vec3& b) {
  return std::fabs(a.x - b.x) <= kChained && std::fabs(a.y - b.y) <= kChained && std::fabs(a.z - b.z) <= kChained;
}

struct Run {
  std::uint32_t first, count;
};

ReplayState state_of(const std::vector<ClaimedMove>& moves, const Run& run, bool grounded_after) {
  const ClaimedMove& first = moves[run.first];
  const Vec3 from = start_of(first), to = end_of(moves[run.first + run.count - 1]);
  const float rise = to.y - from.y;
  const float across = std::hypot(to.x - from.x, to.z - from.z);
  if (!grounded_after && !first.grounded) return ReplayState::falling;
  if (!grounded_after) return ReplayState::falling;
  if (rise > kStepMetres) return ReplayState::stepped;
  if (rise < -kStepMetres && first.grounded) return ReplayState::snapped;
  if (across < kStillMetres) return ReplayState::blocked;
  return run.count > 1 ? ReplayState::slid : ReplayState::walking;
}

}  // namespace

const char* name(ReplayState s) {
  switch (s) {
    case ReplayState::walking: return "walking";
    case ReplayState::slid: return "slid";
    case ReplayState::blocked: return "blocked";
    case ReplayState::stepped: return "stepped";
    case ReplayState::snapped: return "snapped";
    case ReplayState::falling: return "falling";
  }
  return "?";
}

Replay cut_trace(std::vector<ClaimedMove> moves, const std::string& path) {
  Replay r;
  r.moves = std::move(moves);
  if (r.moves.empty()) throw std::runtime_error(path + ": the trace holds no segments");
  std::vector<Run> runs;
  for (std::uint32_t i = 0; i < r.moves.size(); ++i) {
    const bool chained = i > 0 && near(start_of(r.moves[i]), end_of(r.moves[i - 1])) &&
                         r.moves[i].grounded == r.moves[i - 1].grounded &&
                         r.moves[i].vertical_speed == r.moves[i - 1].vertical_speed;
    if (chained) {
      ++runs.back().count;
    } else {
      runs.push_back({i, 1});
    }
  }
  // The agent count: the first period at which a run starts where one of the runs before it
  // ended (tick 1's first agent to move: agent 0 may have travelled nothing).
  std::uint32_t agents = std::uint32_t(runs.size());
  for (std::uint32_t n = 1; n < runs.size() && agents == runs.size(); ++n) {
    const Vec3 start = start_of(r.moves[runs[n].first]);
    for (std::uint32_t k = 0; k < n; ++k) {
      if (near(start, end_of(r.moves[runs[k].first + runs[k].count - 1]))) {
        agents = n;
        break;
      }
    }
  }
  r.agents = agents;
  // Tick 0 is runs [0, agents); after it each agent's run starts where its last one ended. An
  // agent that travelled nothing in a tick wrote no segment: a run that starts where one of the
  // next few agents stands skips to it. A run that starts nowhere expected, within a metre of
  // where the agent before it now is, is that agent's still (a push between two of its
  // segments); otherwise it is this agent's, moved (a respawn: counted as unchained).
  constexpr std::uint32_t kSkipAhead = 16;
  std::vector<Vec3> at(agents);
  std::size_t p = 0;
  while (p < runs.size()) {
    const std::uint32_t tick = r.ticks;
    for (std::uint32_t a = 0; a < agents; ++a) {
      if (p == runs.size()) {  // the file ends: the last tick's remaining agents travelled nothing
        if (a == 0) break;
        for (; a < agents; ++a) r.agent_ticks.push_back({runs.back().first, 0, ReplayState::blocked, at[a]});
        break;
      }
      const Vec3 start = start_of(r.moves[runs[p].first]);
      if (tick > 0 && !near(start, at[a])) {
        // Where one of the next agents stands, this tick's or (past the last) the next tick's.
        std::uint32_t k = a + 1;
        while (k < a + kSkipAhead && !near(start, at[k % agents])) ++k;
        if (k < a + kSkipAhead) {
          const std::uint32_t to = std::min(k, agents);
          for (; a < to; ++a) r.agent_ticks.push_back({runs[p].first, 0, ReplayState::blocked, at[a]});
          if (a == agents) break;  // the rest of this tick travelled nothing
        } else {
          ++r.unchained;
        }
      }
      AgentTick t{runs[p].first, runs[p].count, ReplayState::walking, {}};
      for (++p; p < runs.size(); ++p) {
        const Vec3 next = start_of(r.moves[runs[p].first]);
        const Vec3 here = end_of(r.moves[t.first + t.count - 1]);
        bool expected = tick == 0 || a + 1 == agents;
        for (std::uint32_t k = a + 1; !expected && k < a + 1 + kSkipAhead; ++k) expected = near(next, at[k % agents]);
        if (expected || length(next - here) > 1.f) break;
        t.count = runs[p].first + runs[p].count - t.first;  // the agent's, after a push
      }
      t.end = end_of(r.moves[t.first + t.count - 1]);
      at[a] = t.end;
      r.agent_ticks.push_back(t);
    }
    ++r.ticks;
  }
  for (std::uint32_t t = 0; t < r.ticks; ++t) {
    for (std::uint32_t a = 0; a < agents; ++a) {
      AgentTick& k = r.agent_ticks[std::size_t(t) * agents + a];
      const bool grounded_after = t + 1 < r.ticks ? r.moves[r.at(t + 1, a).first].grounded : r.moves[k.first].grounded;
      if (k.count > 0) k.state = state_of(r.moves, {k.first, k.count}, grounded_after);
    }
  }
  return r;
}

std::string replay_buffer(const Replay& r) {
  std::string out;
  auto put = [&out](auto v) {
    char b[sizeof v];
    std::memcpy(b, &v, sizeof v);
    out.append(b, sizeof v);
  };
  auto put3 = [&](const Vec3& v) {
    put(v.x);
    put(v.y);
    put(v.z);
  };
  for (std::uint32_t v : {0x54565743u, 1u, r.agents, r.ticks}) put(v);
  for (std::uint32_t a = 0; a < r.agents; ++a) {
    const ClaimedMove& m = r.moves[r.at(0, a).first];
    const bool ellipsoid = m.shape == AgentShape::ellipsoid;
    put(std::uint32_t(ellipsoid ? 1 : 0));
    if (ellipsoid) {
      put3(m.ellipsoid.radii);
    } else {
      put3({m.from.radius, length(m.from.b - m.from.a), 0.f});
    }
  }
  for (std::uint32_t a = 0; a < r.agents; ++a) put3(start_of(r.moves[r.at(0, a).first]));
  for (const AgentTick& at : r.agent_ticks) put3(at.end);
  for (const AgentTick& at : r.agent_ticks) out.push_back(char(at.state));
  while (out.size() % 4) out.push_back('\0');
  return out;
}

std::string agent_tick_json(const Replay& r, std::uint32_t tick, std::uint32_t agent) {
  using nlohmann::json;
  const AgentTick& at = r.at(tick, agent);
  json segments = json::array();
  for (std::uint32_t k = at.first; k < at.first + at.count; ++k) {
    const ClaimedMove& m = r.moves[k];
    const Vec3 s = start_of(m);
    segments.push_back({{"record", k},
                        {"from", {s.x, s.y, s.z}},
                        {"motion", {m.motion.x, m.motion.y, m.motion.z}},
                        {"dt", m.dt},
                        {"vertical_speed", m.vertical_speed},
                        {"grounded", m.grounded},
                        {"layers", m.layers},
                        {"shape", m.shape == AgentShape::ellipsoid ? "ellipsoid" : "capsule"}});
  }
  return json{{"tick", tick}, {"agent", agent}, {"state", name(at.state)}, {"segments", segments}}.dump();
}

}  // namespace capsweep::viewer
