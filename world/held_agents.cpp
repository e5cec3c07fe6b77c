#include "world/held_agents.h"

#include <atomic>
#include <stdexcept>

#include "parallel/executor.h"

#include <capsweep/sweep.h>
#include <capsweep/values.h>

#include "broadphase/agent_grid.h"
#include "broadphase/upright_pairs.h"
#include "core/closest_point.h"

namespace capsweep {

bool agents_overlap(const Capsule& a, const Capsule& b) {
  if (check_capsule(a) != Status::ok || check_capsule(b) != Status::ok) {
    Contact k;
    capsule_capsule_contact(a, b, k);
    return k.distance < double(a.radius) + double(b.radius);
  }
  if (apart_upright(a, {}, b)) return false;  // side by side, seen from above: apart
  // Most pairs are clearly apart or clearly overlapping, and the distance between the axes
  // decides them (a tenth of the exact contact's work); only a pair within a micrometre of
  // touching goes to the contact the rest of capsweep uses, so the answer is always its answer.
  const Vec3d o = to_double(a.a);
  const ClosestSegmentSegment c =
      closest_segment_segment({}, to_double(a.b) - o, to_double(b.a) - o, to_double(b.b) - o);
  const double d = length(c.on_first - c.on_second), r = double(a.radius) + double(b.radius);
  const double margin = 1e-6 * (1.0 + r);
  if (d > r + margin) return false;
  if (d < r - margin) return true;
  Contact k;
  capsule_capsule_contact(a, b, k);
  return k.distance < double(a.radius) + double(b.radius);
}

namespace {

void check_sizes(std::span<const Capsule> starts, std::span<const Capsule> ends, std::span<const std::uint8_t> moved) {
  if (ends.size() != starts.size() || moved.size() != starts.size()) {
    throw std::invalid_argument("hold_overlapping_ends: starts, ends and moved must have the same size");
  }
}

}  // namespace

std::vector<std::uint8_t> hold_overlapping_ends(std::span<const Capsule> starts, std::span<const Capsule> ends,
                                                std::span<const std::uint8_t> moved, parallel::StopCheck* stop) {
  check_sizes(starts, ends, moved);
  const std::size_t n = starts.size();
  std::vector<std::uint8_t> held(n, 0), hold(n, 0);
  // Round 0: every mover's end against everyone's end. The grid of ends also answers the later
  // rounds: an agent not yet held is still at its end there.
  AgentGrid end_grid;
  end_grid.build(ends);
  parallel::for_ranges<std::size_t>(0, n, 64, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      if (stop && stop->before(i)) return;
      if (!moved[i]) continue;
      // Stops at the first overlap: a mover that ends in a pile-up costs no more than one.
      end_grid.for_each_overlapping(end_grid.box(std::uint32_t(i)), [&](std::uint32_t j) {
        if (j != i && agents_overlap(ends[i], ends[j])) hold[i] = 1;
        return hold[i] != 0;
      });
    }
  });
  // Round r > 0: a mover not held in round r - 1 overlapped no one's place then; since then only
  // the agents held in round r - 1 changed place (end to start), so it is held now exactly when
  // its end overlaps one of their starts. Each of those starts asks the grid for the ends near it.
  std::vector<std::uint32_t> fresh;
  for (int round = 0; round < kHoldRounds; ++round) {
    fresh.clear();
    for (std::size_t i = 0; i < n; ++i) {
      if (hold[i]) held[i] = 1, hold[i] = 0, fresh.push_back(std::uint32_t(i));
    }
    if (fresh.empty() || round + 1 == kHoldRounds) break;
    parallel::for_ranges<std::size_t>(0, fresh.size(), 16, [&](const auto& range) {
      for (std::size_t k = range.begin(); k != range.end(); ++k) {
        if (stop && stop->before(k)) return;
        const std::uint32_t j = fresh[k];
        end_grid.for_each_overlapping(swept_bounds(starts[j], {}), [&](std::uint32_t i) {
          if (i == j || !moved[i] || held[i]) return;
          std::atomic_ref<std::uint8_t> mark(hold[i]);
          if (mark.load(std::memory_order_relaxed)) return;
          // The argument order of round 0 (the mover first): the answer is the reference's bits.
          if (agents_overlap(ends[i], starts[j])) mark.store(1, std::memory_order_relaxed);
        });
      }
    });
  }
  return held;
}

std::vector<std::uint8_t> hold_overlapping_ends_every_round(std::span<const Capsule> starts,
                                                            std::span<const Capsule> ends,
                                                            std::span<const std::uint8_t> moved) {
  check_sizes(starts, ends, moved);
  const std::size_t n = starts.size();
  std::vector<std::uint8_t> held(n, 0);
  std::vector<Capsule> places(n);
  for (int round = 0; round < kHoldRounds; ++round) {
    for (std::size_t i = 0; i < n; ++i) places[i] = held[i] ? starts[i] : ends[i];
    std::vector<std::uint8_t> hold(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      if (held[i] || !moved[i]) continue;
      const Aabb box = swept_bounds(places[i], {});
      for (std::size_t j = 0; j < n && !hold[i]; ++j) {
        if (j != i && swept_bounds(places[j], {}).overlaps(box) && agents_overlap(places[i], places[j])) hold[i] = 1;
      }
    }
    bool any = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (hold[i]) held[i] = 1, any = true;
    }
    if (!any) break;
  }
  return held;
}

}  // namespace capsweep
