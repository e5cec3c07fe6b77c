#include "viewer/trace_replay.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <cstring>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace capsweep::viewer {

namespace {

// Segments chain through the solver's own float arithmetic: a millimetre is far below any
// distance between two agents' positions and far above the rounding of a tick's steps.
constexpr float kChained = 1e-3f;
// Bodies never overlap (their skins keep them apart), so no other agent ends this close to where
// one agent starts; pushes and carries between ticks move an agent by less.
constexpr float kSameAgent = 0.05f;
constexpr std::uint32_t kNone = 0xFFFFFFFF;
constexpr int kCandidates = 4096;
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
    case ReplayState::held: return "held";
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
  // Who is who: each run continues an agent that stood within kSameAgent of its start, where
  // it ended its last run or where it began its last tick (an agent held by others ends where it
  // began, not where its segments went); bodies never overlap, so no other agent is that close.
  // Agents are written in crowd order: the run continues the nearest such agent not yet seen this
  // tick and later in that order; with none, the nearest one at all, which begins the next tick
  // (or, the agent just written, is that agent again, pushed between two of its segments). A
  // run that continues no one is an agent moved between ticks (respawned, or pushed by a moving
  // part while it travelled nothing): the agent not yet seen this tick between the runs around
  // it in crowd order that stood nearest; in tick 0, or with none, an agent not seen before.
  struct Track {
    double order;  // crowd order (agents found late are placed between their neighbours)
    Vec3 end, began;
    std::uint32_t last_tick = 0xFFFFFFFF;
  };
  std::vector<Track> tracks;
  std::multimap<double, std::uint32_t> by_order_now;  // the agents by crowd order, for the runs that continue no one
  auto set_order = [&](std::uint32_t a, double order) {
    for (auto [it, end] = by_order_now.equal_range(tracks[a].order); it != end; ++it) {
      if (it->second == a) {
        by_order_now.erase(it);
        break;
      }
    }
    tracks[a].order = order;
    by_order_now.emplace(order, a);
  };
  struct Entry {
    std::uint32_t agent, first, count;
  };
  std::vector<std::vector<Entry>> ticks(1);
  auto cell_of = [](const Vec3& p, int dx, int dy, int dz) {
    const auto c = [](float v, int d) { return std::int64_t(std::floor(double(v) / kSameAgent)) + d; };
    return std::uint64_t(c(p.x, dx) & 0x1FFFFF) << 42 | std::uint64_t(c(p.y, dy) & 0x1FFFFF) << 21 | std::uint64_t(c(p.z, dz) & 0x1FFFFF);
  };
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> where;  // agents by the cells of `end` and `began`
  auto distance = [](const Vec3& a, const Vec3& b) {
    const Vec3 d = a - b;
    return std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)});
  };
  const double kNoOrder = -1e300;
  double last_order = kNoOrder, before_last_order = kNoOrder;
  std::uint32_t last_agent = kNone;
  std::uint32_t tick = 0;
  // The agent `p` continues: the nearest later in order and unseen this tick, else the nearest.
  auto find = [&](const Vec3& p, bool& in_order) {
    std::uint32_t best = kNone, any = kNone;
    float best_d = kSameAgent, any_d = kSameAgent;
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = where.find(cell_of(p, dx, dy, dz));
          if (it == where.end()) continue;
          for (std::uint32_t a : it->second) {
            const float d = std::min(distance(tracks[a].end, p), distance(tracks[a].began, p));
            if (d <= any_d) any = a, any_d = d;
            if (d <= best_d && tracks[a].last_tick != tick && tracks[a].order > last_order) best = a, best_d = d;
          }
        }
      }
    }
    in_order = best != kNone;
    return in_order ? best : any;
  };
  auto forget = [&](std::uint32_t a, const Vec3& p) {
    std::vector<std::uint32_t>& v = where[cell_of(p, 0, 0, 0)];
    const auto it = std::find(v.begin(), v.end(), a);
    if (it != v.end()) v.erase(it);
  };
  auto remember = [&](std::uint32_t a, const Vec3& began, const Vec3& end) {
    forget(a, tracks[a].end);
    forget(a, tracks[a].began);
    tracks[a].began = began;
    tracks[a].end = end;
    where[cell_of(end, 0, 0, 0)].push_back(a);
    if (cell_of(began, 0, 0, 0) != cell_of(end, 0, 0, 0)) where[cell_of(began, 0, 0, 0)].push_back(a);
  };
  auto run_end = [&](const Run& run) { return end_of(r.moves[run.first + run.count - 1]); };
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const Run& run = runs[k];
    const Vec3 start = start_of(r.moves[run.first]);
    bool in_order = false;
    std::uint32_t a = find(start, in_order);
    if (a != kNone && !in_order) {
      if (a == last_agent) {  // the same agent again, pushed between two of its segments
        Entry& e = ticks.back().back();
        e.count = run.first + run.count - e.first;
        remember(a, tracks[a].began, run_end(run));
        continue;
      }
      if (tracks[a].last_tick != tick && tracks[a].order > before_last_order && last_agent != kNone) {
        // An agent this tick has not seen, just before the last one in order: the two were told
        // apart wrongly when one of them was moved; they change places.
        const double was = tracks[a].order;
        set_order(a, tracks[last_agent].order);
        set_order(last_agent, was);
      } else {
        ticks.emplace_back();  // crowd order starts again: the next tick
        ++tick;
        last_order = kNoOrder;
      }
    }
    if (a == kNone) {
      // The next run that continues someone in order bounds this one's place in the crowd.
      double next_order = 1e300;
      for (std::size_t j = k + 1; j < std::min(runs.size(), k + 64); ++j) {
        bool next_in_order = false;
        const std::uint32_t b = find(start_of(r.moves[runs[j].first]), next_in_order);
        if (b == kNone) continue;
        if (next_in_order) next_order = tracks[b].order;
        break;
      }
      if (tick > 0) {
        // The agents between, at most kCandidates of them (a trace of scattered segments costs
        // no more than that a run).
        float nearest = INFINITY;
        int looked = 0;
        for (auto it = by_order_now.upper_bound(last_order); it != by_order_now.end() && it->first < next_order &&
                                                               looked < kCandidates;
             ++it, ++looked) {
          const std::uint32_t c = it->second;
          const float d = std::min(distance(tracks[c].end, start), distance(tracks[c].began, start));
          if (tracks[c].last_tick != tick && d < nearest) {
            a = c;
            nearest = d;
          }
        }
        ++r.unchained;
      }
      if (a == kNone) {  // an agent not seen before
        const double order = last_order == kNoOrder ? (next_order < 1e300 ? next_order - 1 : double(tracks.size()))
                             : next_order < 1e300   ? (last_order + next_order) / 2
                                                    : last_order + 1;
        tracks.push_back({order, start, start});
        a = std::uint32_t(tracks.size() - 1);
        by_order_now.emplace(order, a);
      }
    }
    tracks[a].last_tick = tick;
    ticks.back().push_back({a, run.first, run.count});
    remember(a, start, run_end(run));
    before_last_order = ticks.back().size() > 1 ? tracks[ticks.back()[ticks.back().size() - 2].agent].order : kNoOrder;
    last_order = tracks[a].order;
    last_agent = a;
  }
  // Agents by crowd order; each tick's entry for each, empty (where it stood) when it wrote none.
  std::vector<std::uint32_t> by_order(tracks.size());
  for (std::uint32_t a = 0; a < by_order.size(); ++a) by_order[a] = a;
  std::sort(by_order.begin(), by_order.end(), [&](std::uint32_t x, std::uint32_t y) {
    return tracks[x].order != tracks[y].order ? tracks[x].order < tracks[y].order : x < y;
  });
  std::vector<std::uint32_t> index(tracks.size());
  for (std::uint32_t i = 0; i < by_order.size(); ++i) index[by_order[i]] = i;
  const std::uint32_t agents = std::uint32_t(tracks.size());
  r.agents = agents;
  r.ticks = std::uint32_t(ticks.size());
  // A crowd writes a segment or more for most agents each tick; segments that cut into far more
  // agent-ticks than that are not a crowd's trace, and would only fill memory.
  const std::uint64_t agent_ticks = std::uint64_t(r.ticks) * agents;
  if (agent_ticks > std::max<std::uint64_t>(8 * std::uint64_t(r.moves.size()), 1u << 20)) {
    throw std::runtime_error(path + ": its " + std::to_string(r.moves.size()) + " segments cut into " +
                             std::to_string(agents) + " agents over " + std::to_string(r.ticks) +
                             " ticks: not the trace of a crowd (capsweep crowd --trace)");
  }
  r.agent_ticks.assign(std::size_t(r.ticks) * agents, AgentTick{0, 0, ReplayState::held, {}});
  std::vector<Vec3> at(agents);
  std::vector<bool> placed(agents, false);
  for (std::uint32_t t = 0; t < r.ticks; ++t) {
    for (const Entry& e : ticks[t]) {
      AgentTick& k = r.agent_ticks[std::size_t(t) * agents + index[e.agent]];
      k = {e.first, e.count, ReplayState::walking, end_of(r.moves[e.first + e.count - 1])};
      if (!placed[index[e.agent]]) at[index[e.agent]] = start_of(r.moves[e.first]), placed[index[e.agent]] = true;
    }
  }
  // An agent still before its first segment stands where that segment starts.
  for (std::uint32_t t = 0; t < r.ticks; ++t) {
    for (std::uint32_t a = 0; a < agents; ++a) {
      AgentTick& k = r.agent_ticks[std::size_t(t) * agents + a];
      if (k.count == 0) {
        k.end = at[a];
        k.first = t > 0 ? r.agent_ticks[std::size_t(t - 1) * agents + a].first : 0;
      } else {
        at[a] = k.end;
      }
    }
  }
  for (std::uint32_t t = 0; t < r.ticks; ++t) {
    for (std::uint32_t a = 0; a < agents; ++a) {
      AgentTick& k = r.agent_ticks[std::size_t(t) * agents + a];
      if (k.count == 0) continue;
      const bool next = t + 1 < r.ticks && r.at(t + 1, a).count > 0;
      k.state = state_of(r.moves, {k.first, k.count}, next ? r.moves[r.at(t + 1, a).first].grounded : r.moves[k.first].grounded);
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
    std::uint32_t t = 0;  // its first tick with a segment (every agent has one)
    while (r.at(t, a).count == 0) ++t;
    const ClaimedMove& m = r.moves[r.at(t, a).first];
    const bool ellipsoid = m.shape == AgentShape::ellipsoid;
    put(std::uint32_t(ellipsoid ? 1 : 0));
    if (ellipsoid) {
      put3(m.ellipsoid.radii);
    } else {
      put3({m.from.radius, length(m.from.b - m.from.a), 0.f});
    }
  }
  for (std::uint32_t a = 0; a < r.agents; ++a) put3(r.at(0, a).count > 0 ? start_of(r.moves[r.at(0, a).first]) : r.at(0, a).end);
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
