// World::move: the movement solver of core/ (MoveInFlight, move_agent) run over a batch with
// oneTBB, up to 64 agents of a worker's range in flight together, against the world's BVH and a
// per-tick grid of the other agents.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>

#include "parallel/executor.h"

#include "world/held_agents.h"
#include "broadphase/morton.h"
#include "world/world_collider.h"
#include "core/assert.h"

namespace capsweep {

namespace {

// The agents of a worker's range in flight together (World::move): each one's collider, with its
// list of agents within reach, and its tick; the world sweeps they wait for, and the answers.
struct InFlight {
  std::vector<std::uint32_t> near[kSweepChunk];
  std::optional<WorldCollider> colliders[kSweepChunk];
  MoveInFlight ticks[kSweepChunk];
  std::uint32_t live[kSweepChunk];  // the slots whose tick waits
  SweepQuery queries[kSweepChunk];
  SweepHit hits[kSweepChunk];
  std::uint32_t asked[kSweepChunk];  // the slot that asked each query
};

// A range's InFlight: the worker's own, kept so that a range sets up nothing, or, if a range of
// this thread already holds it (a range run inside another's wait for oneTBB), one of its own.
// On leaving, even by an exception, every tick still waiting is dropped and every collider reset,
// so nothing of one range reaches the next.
class InFlightLease {
 public:
  InFlightLease() {
    if (busy()) {
      own_ = std::make_unique<InFlight>();
      flight_ = own_.get();
    } else {
      busy() = true;
      flight_ = &kept();
    }
  }
  ~InFlightLease() {
    for (std::size_t slot = 0; slot < kSweepChunk; ++slot) {
      flight_->ticks[slot].abandon();
      flight_->colliders[slot].reset();
    }
    if (!own_) busy() = false;
  }
  InFlightLease(const InFlightLease&) = delete;
  InFlightLease& operator=(const InFlightLease&) = delete;
  InFlight& flight() { return *flight_; }

 private:
  static InFlight& kept() {
    thread_local InFlight flight;
    return flight;
  }
  static bool& busy() {
    thread_local bool held = false;
    return held;
  }
  std::unique_ptr<InFlight> own_;
  InFlight* flight_;
};

std::atomic<std::uint64_t> agent_pair_sweeps_total{0};

// More than this many other agents' boxes overlapping an agent's own box is a pile-up (agents
// spawned or pushed onto one spot): no crowd of people standing apart comes near it (a
// person's box is met by at most about eight others that do not overlap it).
constexpr std::size_t kPileUp = 32;

}  // namespace

std::uint64_t agent_pair_sweeps() { return agent_pair_sweeps_total.load(); }

std::size_t World::move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                        const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status) const {
  return move_agents(*this, agents, settings, results, options, segments, status, kSweepChunk);
}

std::size_t move_agents(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
                        std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status, std::size_t in_flight) {
  if (in_flight < 1 || in_flight > kSweepChunk) throw std::invalid_argument("move_agents: 1 to 64 agents in flight");
  if (results.size() != agents.size() || (!segments.empty() && segments.size() != agents.size()) ||
      (!status.empty() && status.size() != agents.size())) {
    throw std::invalid_argument("World::move: agents, results, segments and status must have the same size");
  }
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::move: " + why);
  std::atomic<std::size_t> refused{0};
  parallel::StopCheck stop(options.stop);
  parallel::in_arena(options.threads, [&] {
    // The agents as they stand at the start of the tick. An agent in a pile-up (more than
    // kPileUp others overlap its box) stays where it is this tick, and the others' sweeps do
    // not see it (the end-of-tick check below still keeps them out of it): without this, n
    // agents on one spot would cost n^2 capsule sweeps. Whether an agent is in a pile depends
    // only on positions, never on the order of the batch.
    AgentGrid grid, sweep_grid;
    std::vector<std::uint8_t> piled(agents.size(), 0);
    std::vector<std::uint32_t> members;  // the agents sweep_grid holds, when some are piled
    std::vector<Capsule> capsules;       // what the others meet of each agent (start_capsule)
    if (settings.agents_collide) {
      capsules.resize(agents.size());
      for (std::size_t i = 0; i < agents.size(); ++i) capsules[i] = start_capsule(agents[i]);
      grid.build(capsules);
      std::atomic<bool> any_piled{false};
      parallel::for_ranges<std::size_t>(0, agents.size(), 64, [&](const auto& range) {
        for (std::size_t i = range.begin(); i != range.end(); ++i) {
          if (grid.overlapped_by_more_than(std::uint32_t(i), kPileUp)) piled[i] = 1, any_piled = true;
        }
      });
      if (any_piled) {
        std::vector<Capsule> standing;
        for (std::size_t i = 0; i < agents.size(); ++i) {
          if (!piled[i]) members.push_back(std::uint32_t(i)), standing.push_back(capsules[i]);
        }
        sweep_grid.build(standing);
      }
    }
    const AgentGrid* others = !settings.agents_collide ? nullptr : members.empty() ? &grid : &sweep_grid;
    // A world larger than the caches is walked in Morton order of the agents, as sweep_batch
    // walks queries: neighbouring agents find the world's nodes and blocks (and the grid's
    // columns) still cached (100,000 agents on the 947k-triangle terrain: about 1.25x). Each
    // agent's move is its own, so the order changes no bit of any result.
    const WorldArrays& w = world.arrays();
    std::vector<std::pair<std::uint64_t, std::uint32_t>> order;
    if (walked_bytes(w) > kSortAboveBytes && agents.size() > 256) {
      order = morton_order(w.bounds, agents.size(), [&](std::size_t i) {
        const Capsule c = capsules.empty() ? start_capsule(agents[i]) : capsules[i];
        return (c.a + c.b) * 0.5f;
      });
    }
    // A tick is a batch: up to kSweepChunk agents of a worker's range are in flight at once, each
    // waiting at its next world sweep (MoveInFlight), and the waiting sweeps go through the engine
    // together (sweep_approaching_chunk: the lanes left at the end of each walk pooled across
    // them); agents drop out as they finish. Every answer is what the agent would get alone, so no
    // bit depends on which agents share a round.
    // Ranges of up to kSweepChunk agents, but at least four per worker: a small batch keeps its
    // threads (the range's size changes no answer).
    const std::size_t workers = std::size_t(std::max(1, parallel::concurrency()));
    const std::size_t grain = std::clamp<std::size_t>(agents.size() / (4 * workers), 16, kSweepChunk);
    parallel::for_ranges<std::size_t>(0, agents.size(), grain, [&](const auto& range) {
      std::uint64_t pair_sweeps = 0;
      InFlightLease lease;
      auto& [near, colliders, ticks, live, queries, hits, asked] = lease.flight();
      for (std::size_t first = range.begin(); first < range.end(); first += in_flight) {
        std::size_t last = std::min(first + in_flight, range.end());
        // The stop callback is asked before any tick of the chunk starts: whatever it runs (even
        // batches of its own on this thread) meets no tick of ours waiting.
        for (std::size_t k = first; k != last; ++k) {
          if (stop.before(k)) {
            last = k;
            break;
          }
        }
        std::size_t waiting = 0;
        for (std::size_t k = first; k != last; ++k) {
          const std::size_t i = order.empty() ? k : order[k].second;
          const Agent& a = agents[i];
          MoveSegments* trace = segments.empty() ? nullptr : &segments[i];
          Status s = check_body_move(body_of(a), a.displacement);
          if (s == Status::ok && !std::isfinite(a.vertical_speed)) s = Status::non_finite_motion;
          if (s == Status::ok) s = check_layers(a.layers, options.layers);
          if (!status.empty()) status[i] = s;
          if (s != Status::ok || piled[i]) {
            // Stays where it is: refused, or held in a pile-up.
            results[i] = MoveResult{};
            results[i].capsule = start_capsule(a);
            results[i].shape = a.shape;
            results[i].ellipsoid = a.shape == AgentShape::ellipsoid ? a.ellipsoid : Ellipsoid{};
            results[i].flags = kMoveBlocked;
            if (s != Status::ok) {
              ++refused;
            } else {
              results[i].vertical_speed = a.vertical_speed;
              results[i].flags |= kMoveHeldByAgents;
            }
            if (trace) trace->count = 0;
            continue;
          }
          const std::size_t slot = k - first;
          colliders[slot].emplace(world, options.path, a.layers & options.layers, others, agents, capsules, i,
                                  &near[slot], members);
          if (in_flight == 1) {
            // One agent at a time, each sweep asked of the collider as it comes (the tests' reference).
            move_agent(*colliders[slot], a, settings, results[i], trace);
            continue;
          }
          ticks[slot].start(*colliders[slot], a, settings, results[i], trace);
          if (!ticks[slot].done()) live[waiting++] = std::uint32_t(slot);
        }
        while (waiting > 0) {
          // The capsules' world sweeps together; an ellipsoid's (its own kernel) alone, below.
          std::size_t count = 0;
          for (std::size_t j = 0; j < waiting; ++j) {
            const std::uint32_t slot = live[j];
            if (!ticks[slot].body().is_capsule()) continue;
            queries[count] = colliders[slot]->world_query(ticks[slot].body(), ticks[slot].motion());
            asked[count++] = slot;
          }
          sweep_approaching_chunk(world, std::span(queries, count), std::span(hits, count), options.path);
          std::size_t still = 0;
          for (std::size_t j = 0, q = 0; j < waiting; ++j) {
            const std::uint32_t slot = live[j];
            const WorldCollider& collider = *colliders[slot];
            MoveHit h;
            if (q < count && asked[q] == slot) {
              h.hit = hits[q++];
              collider.meet_agents(ticks[slot].body(), ticks[slot].motion(), h);
            } else {
              collider.sweep(ticks[slot].body(), ticks[slot].motion(), h);
            }
            ticks[slot].answer(h);
            if (!ticks[slot].done()) live[still++] = slot;
          }
          waiting = still;
        }
        for (std::size_t slot = 0; slot < last - first; ++slot) {
          if (colliders[slot]) pair_sweeps += colliders[slot]->pair_sweeps(), colliders[slot].reset();
        }
        if (last != std::min(first + in_flight, range.end())) break;  // stopped
      }
      agent_pair_sweeps_total.fetch_add(pair_sweeps, std::memory_order_relaxed);
    });
    if (!settings.agents_collide || stop.before(0)) return;

    // Each agent avoided the others' start positions, but two may have moved into the same
    // place: those stay where they started (held_agents.h).
    std::vector<Capsule> ends(agents.size());
    std::vector<std::uint8_t> moved(agents.size());
    for (std::size_t i = 0; i < agents.size(); ++i) {
      ends[i] = results[i].capsule;
      moved[i] = results[i].moved != Vec3{};
    }
    const std::vector<std::uint8_t> held = hold_overlapping_ends(capsules, ends, moved, &stop);
    // Each held agent's result is its own: applied in parallel (its ground probe is a sweep).
    parallel::for_ranges<std::size_t>(0, agents.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (!held[i]) continue;
        MoveResult& r = results[i];
        r.capsule = capsules[i];
        if (agents[i].shape == AgentShape::ellipsoid) r.ellipsoid = agents[i].ellipsoid;
        r.moved = {};
        r.pushed = 0;
        // The ground found was under the end it does not keep: look under the start it keeps,
        // as the next tick's probe will, so `grounded` stays what the next tick starts from.
        SweepHit g;
        Vec3 ground_normal;
        r.grounded = ground_below(world, body_of(agents[i]), settings, settings.ground_distance,
                                  options.path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar,
                                  agents[i].layers & options.layers, g, ground_normal);
        r.ground_normal = r.grounded ? ground_normal : Vec3{};
        r.ground_triangle = r.grounded ? g.triangle : kNoTriangle;
        r.flags = std::uint8_t((r.flags & ~(kMoveSteppedUp | kMoveSnapped | kMoveDepenetrated | kMoveFalling)) |
                               kMoveBlocked | kMoveHeldByAgents | (r.grounded ? 0 : kMoveFalling));
        if (!segments.empty()) segments[i].count = 0;
      }
    });
  });
  stop.throw_if_stopped<Cancelled>("World::move");
  return refused.load();
}

}  // namespace capsweep
