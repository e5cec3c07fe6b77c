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
#include "world/batch_order.h"
#include "world/move_batch.h"
#include "world/move_cache.h"
#include "world/moving_instances.h"
#include "world/world_arrays.h"
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
  WorldCollider::Request requests[kSweepChunk];
  MoveHit answers[kSweepChunk];
  SweepQuery queries[kSweepChunk];  // room for WorldCollider::sweep_together
  SweepHit hits[kSweepChunk];
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
  // On the heap, the thread keeping only a pointer: glibc places a program's static thread-local
  // storage inside every thread's stack, so these 85 KB there overflowed the small stacks of
  // threads other libraries start (civetweb's workers in capsweep view and serve).
  static InFlight& kept() {
    thread_local std::unique_ptr<InFlight> flight;
    if (!flight) flight = std::make_unique<InFlight>();
    return *flight;
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

namespace {

// What the agents are at the start of the tick, which every agent's sweeps see of the others. An
// agent in a pile-up (more than kPileUp others overlap its box) stays where it is this tick, and
// the others' sweeps do not see it (the end-of-tick check still keeps them out of it): without
// this, n agents on one spot would cost n^2 capsule sweeps. Whether an agent is in a pile
// depends only on positions, never on the order of the batch.
struct StartOfTick {
  std::vector<Capsule> capsules;  // what the others meet of each agent (start_capsule); empty: agents do not collide
  std::vector<std::uint8_t> piled;
  AgentGrid grid;                 // every agent
  AgentGrid sweep_grid;           // the agents not piled, when some are
  std::vector<std::uint32_t> members;  // the agents sweep_grid holds, when some are piled

  // The grid the agents' sweeps meet the others in (null: agents do not collide).
  const AgentGrid* others() const { return capsules.empty() ? nullptr : members.empty() ? &grid : &sweep_grid; }
};

StartOfTick find_start_of_tick(std::span<const Agent> agents, const MoveSettings& settings) {
  StartOfTick start;
  start.piled.assign(agents.size(), 0);
  if (!settings.agents_collide) return start;
  start.capsules.resize(agents.size());
  for (std::size_t i = 0; i < agents.size(); ++i) start.capsules[i] = start_capsule(agents[i]);
  start.grid.build(start.capsules);
  std::atomic<bool> any_piled{false};
  parallel::for_ranges<std::size_t>(0, agents.size(), 64, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      if (start.grid.overlapped_by_more_than(std::uint32_t(i), kPileUp)) start.piled[i] = 1, any_piled = true;
    }
  });
  if (any_piled) {
    std::vector<Capsule> standing;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      if (!start.piled[i]) start.members.push_back(std::uint32_t(i)), standing.push_back(start.capsules[i]);
    }
    start.sweep_grid.build(standing);
  }
  return start;
}

// One World::move: its inputs, what it writes, and its stages in the order run() runs them.
class MoveBatch {
 public:
  MoveBatch(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
            std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
            std::span<Status> status, std::size_t in_flight, MoveCache* cache)
      : world_(world), agents_(agents), settings_(settings), results_(results), options_(options),
        segments_(segments), status_(status), in_flight_(in_flight), stop_(options.stop),
        cache_(cache ? &MoveCacheAccess::of(*cache) : nullptr) {}

  std::size_t run() {
    parallel::in_arena(options_.threads, [&] {
      if (has_moving_instances(world_.arrays())) carry_by_moving_instances();
      start_ = find_start_of_tick(agents_, settings_);
      if (cache_) prepare_slots(*cache_, world_, agents_.size());
      // On a large world, in Morton order of the agents, as sweep_batch orders queries: the
      // neighbours find the world's nodes and blocks (and the grid's columns) still cached
      // (100,000 agents on the 947k-triangle terrain: about 1.25x).
      order_ = batch_order(world_.arrays(), agents_.size(), [&](std::size_t i) {
        const Capsule c = start_.capsules.empty() ? start_capsule(agents_[i]) : start_.capsules[i];
        return (c.a + c.b) * 0.5f;
      });
      move_all();
      if (settings_.agents_collide && !stop_.before(0)) hold_agents_that_met();
      if (!carried_.empty()) add_carries();
    });
    stop_.throw_if_stopped<Cancelled>("World::move");
    return refused_.load();
  }

 private:
  // The frame's moving instances carry and push agents first (moving_instances.h), each agent on
  // its own: its tick then starts where they left it, and the others meet it there.
  void carry_by_moving_instances() {
    carried_.assign(agents_.begin(), agents_.end());
    carry_.assign(agents_.size(), InstanceCarry{});
    std::vector<std::uint8_t> valid(agents_.size());
    parallel::for_ranges<std::size_t>(0, agents_.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        const Agent& a = agents_[i];
        valid[i] = check_agent(a) == Status::ok;
        if (!valid[i]) continue;
        carry_[i] = carry_by_instances(world_.arrays(), a, settings_, a.layers & options_.layers);
      }
    });
    // What the pass pushed into the others pushes them in turn, or is crushed (seed 004's rule).
    if (settings_.agents_collide && agents_.size() > 1) {
      pass_pushes_on(world_.arrays(), agents_, valid, settings_, options_.layers, carry_);
    }
    // The pass's offsets, applied (a crushed agent's is none).
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      Agent& c = carried_[i];
      if (c.shape == AgentShape::ellipsoid) {
        c.ellipsoid.centre += carry_[i].offset;
      } else {
        c.capsule.a += carry_[i].offset;
        c.capsule.b += carry_[i].offset;
      }
    }
    agents_ = carried_;
  }

  // What the instances did is part of what each agent made this tick.
  void add_carries() {
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      MoveResult& r = results_[i];
      if (carry_[i].crushed) {
        r.flags = std::uint8_t(kMoveBlocked | kMoveCrushed | (r.flags & kMoveFalling));
        continue;
      }
      r.moved += carry_[i].offset;
    }
  }

  // A tick is a batch: up to in_flight agents of a worker's range are in flight at once, each
  // waiting at its next world sweep (MoveInFlight), and the waiting sweeps go through the engine
  // together (WorldCollider::sweep_together); agents drop out as they finish. Every answer is
  // what the agent would get alone, so no bit depends on which agents share a round. Ranges of
  // up to kSweepChunk agents, but at least four per worker: a small batch keeps its threads (the
  // range's size changes no answer).
  void move_all() {
    const std::size_t workers = std::size_t(std::max(1, parallel::concurrency()));
    const std::size_t grain = std::clamp<std::size_t>(agents_.size() / (4 * workers), 16, kSweepChunk);
    parallel::for_ranges<std::size_t>(0, agents_.size(), grain, [&](const auto& range) {
      InFlightLease lease;
      InFlight& flight = lease.flight();
      std::uint64_t pair_sweeps = 0;
      for (std::size_t first = range.begin(); first < range.end(); first += in_flight_) {
        const std::size_t end = std::min(first + in_flight_, range.end());
        // The stop callback is asked before any tick of the chunk starts: whatever it runs (even
        // batches of its own on this thread) meets no tick of ours waiting.
        std::size_t last = first;
        while (last != end && !stop_.before(last)) ++last;
        answer_until_done(flight, start_ticks(flight, first, last));
        for (std::size_t slot = 0; slot < last - first; ++slot) {
          auto& collider = flight.colliders[slot];
          if (collider) pair_sweeps += collider->pair_sweeps(), collider.reset();
        }
        if (last != end) break;  // stopped
      }
      agent_pair_sweeps_total.fetch_add(pair_sweeps, std::memory_order_relaxed);
    });
  }

  // Checks agents [first, last) of the order and starts the tick of each one that may move, to
  // its first world sweep. Returns how many wait (their slots in flight.live).
  std::size_t start_ticks(InFlight& flight, std::size_t first, std::size_t last) {
    std::size_t waiting = 0;
    for (std::size_t k = first; k != last; ++k) {
      const std::size_t i = order_.empty() ? k : order_[k].second;
      const Agent& a = agents_[i];
      MoveSegments* trace = segments_.empty() ? nullptr : &segments_[i];
      const Status s = check_agent(a);
      if (!status_.empty()) status_[i] = s;
      if (s != Status::ok || start_.piled[i] || (!carry_.empty() && carry_[i].crushed)) {
        stay_put(i, s);
        if (trace) trace->count = 0;
        continue;
      }
      const std::size_t slot = k - first;
      const NearLeaves* kept = cache_ ? neighbourhood_for(*cache_, i, a, settings_) : nullptr;
      WorldCollider& collider = flight.colliders[slot].emplace(world_, options_.path, a.layers & options_.layers,
                                                               start_.others(), agents_, start_.capsules, i,
                                                               &flight.near[slot], start_.members, kept);
      if (in_flight_ == 1) {
        // One agent at a time, each sweep asked of the collider as it comes (the tests' reference).
        move_agent(collider, a, settings_, results_[i], trace);
        continue;
      }
      flight.ticks[slot].start(collider, a, settings_, results_[i], trace);
      if (!flight.ticks[slot].done()) flight.live[waiting++] = std::uint32_t(slot);
    }
    return waiting;
  }

  // Rounds of the waiting ticks' sweeps, answered together, until every tick has ended.
  static void answer_until_done(InFlight& flight, std::size_t waiting) {
    while (waiting > 0) {
      for (std::size_t j = 0; j < waiting; ++j) {
        const std::uint32_t slot = flight.live[j];
        flight.requests[j] = {&*flight.colliders[slot], &flight.ticks[slot].body(), flight.ticks[slot].motion()};
      }
      WorldCollider::sweep_together(std::span(flight.requests, waiting), std::span(flight.answers, waiting),
                                    flight.queries, flight.hits);
      std::size_t still = 0;
      for (std::size_t j = 0; j < waiting; ++j) {
        const std::uint32_t slot = flight.live[j];
        flight.ticks[slot].answer(flight.answers[j]);
        if (!flight.ticks[slot].done()) flight.live[still++] = slot;
      }
      waiting = still;
    }
  }

  Status check_agent(const Agent& a) const {
    Status s = check_body_move(body_of(a), a.displacement);
    if (s == Status::ok && !std::isfinite(a.vertical_speed)) s = Status::non_finite_motion;
    if (s == Status::ok) s = check_layers(a.layers, options_.layers);
    return s;
  }

  // Agent i stays where it is: refused (s), or held in a pile-up.
  void stay_put(std::size_t i, Status s) {
    const Agent& a = agents_[i];
    MoveResult& r = results_[i];
    r = MoveResult{};
    r.capsule = start_capsule(a);
    r.shape = a.shape;
    r.ellipsoid = a.shape == AgentShape::ellipsoid ? a.ellipsoid : Ellipsoid{};
    r.flags = kMoveBlocked;
    if (s != Status::ok) {
      ++refused_;
    } else {
      r.vertical_speed = a.vertical_speed;
      r.flags |= kMoveHeldByAgents;
    }
  }

  // Each agent avoided the others' start positions, but two may have moved into the same place:
  // those stay where they started (held_agents.h).
  void hold_agents_that_met() {
    std::vector<Capsule> ends(agents_.size());
    std::vector<std::uint8_t> moved(agents_.size());
    for (std::size_t i = 0; i < agents_.size(); ++i) {
      ends[i] = results_[i].capsule;
      moved[i] = results_[i].moved != Vec3{};
    }
    const std::vector<std::uint8_t> held = hold_overlapping_ends(start_.capsules, ends, moved, &stop_);
    // Each held agent's result is its own: applied in parallel (its ground probe is a sweep).
    parallel::for_ranges<std::size_t>(0, agents_.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (held[i]) keep_start(i);
      }
    });
  }

  // Agent i, held, ends where it started.
  void keep_start(std::size_t i) const {
    const Agent& a = agents_[i];
    MoveResult& r = results_[i];
    r.capsule = start_.capsules[i];
    if (a.shape == AgentShape::ellipsoid) r.ellipsoid = a.ellipsoid;
    r.moved = {};
    r.pushed = 0;
    // The ground found was under the end it does not keep: look under the start it keeps, as
    // the next tick's probe will, so `grounded` stays what the next tick starts from.
    SweepHit g;
    Vec3 ground_normal;
    r.grounded = ground_below(world_, body_of(a), settings_, settings_.ground_distance, solver_path(options_.path),
                              a.layers & options_.layers, g, ground_normal);
    r.ground_normal = r.grounded ? ground_normal : Vec3{};
    r.ground_triangle = r.grounded ? g.triangle : kNoTriangle;
    r.flags = std::uint8_t((r.flags & ~(kMoveSteppedUp | kMoveSnapped | kMoveDepenetrated | kMoveFalling)) |
                           kMoveBlocked | kMoveHeldByAgents | (r.grounded ? 0 : kMoveFalling));
    if (!segments_.empty()) segments_[i].count = 0;
  }

  const World& world_;
  std::span<const Agent> agents_;
  const MoveSettings& settings_;
  std::span<MoveResult> results_;
  const BatchOptions& options_;
  std::span<MoveSegments> segments_;
  std::span<Status> status_;
  std::size_t in_flight_;
  parallel::StopCheck stop_;
  std::atomic<std::size_t> refused_{0};
  StartOfTick start_;
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order_;
  std::vector<Agent> carried_;        // the agents where moving instances left them (or empty)
  std::vector<InstanceCarry> carry_;  // what they did to each
  MoveCache::Slots* cache_;           // each agent's kept neighbourhood, or none
};

}  // namespace

std::size_t World::move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                        const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status) const {
  return move_agents(*this, agents, settings, results, options, segments, status, kSweepChunk);
}

std::size_t World::move(std::span<const Agent> agents, const MoveSettings& settings, std::span<MoveResult> results,
                        MoveCache& cache, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status) const {
  return move_agents(*this, agents, settings, results, options, segments, status, kSweepChunk, &cache);
}

std::size_t move_agents(const World& world, std::span<const Agent> agents, const MoveSettings& settings,
                        std::span<MoveResult> results, const BatchOptions& options, std::span<MoveSegments> segments,
                        std::span<Status> status, std::size_t in_flight, MoveCache* cache) {
  if (in_flight < 1 || in_flight > kSweepChunk) throw std::invalid_argument("move_agents: 1 to 64 agents in flight");
  if (results.size() != agents.size() || (!segments.empty() && segments.size() != agents.size()) ||
      (!status.empty() && status.size() != agents.size())) {
    throw std::invalid_argument("World::move: agents, results, segments and status must have the same size");
  }
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::move: " + why);
  return MoveBatch(world, agents, settings, results, options, segments, status, in_flight, cache).run();
}

}  // namespace capsweep
