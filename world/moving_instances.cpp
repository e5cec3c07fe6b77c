#include "world/moving_instances.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <capsweep/sweep.h>

#include "broadphase/agent_grid.h"
#include "broadphase/swept_box.h"
#include "core/closest_point.h"
#include "parallel/executor.h"
#include "world/walk.h"
#include "world/world_collider.h"
#include "world/world_arrays.h"

namespace capsweep {

namespace {

// The first contact of `body` moving by `motion` against the frame's triangles that `keep(i)`
// names, by the exact scalar kernels over the one walk; a contact at the start that the motion
// does not move into is none, as in the solver's own sweeps (unless `any_start`: with no motion,
// whether the body overlaps them).
template <class Keep>
SweepHit sweep_where(const WorldArrays& w, const Body& body, const Vec3& motion, std::uint32_t layers, const Keep& keep,
                     bool any_start = false) {
  const Capsule bound = agent_capsule(body);
  const Aabb reach = swept_bounds(bound, motion);
  const std::uint32_t walk = walk_layers(w, layers);
  SweepHit best;
  float limit = 1.f;
  TraversalStats stats;
  walk_world(w, make_swept_box(bound, motion), limit, stats, [&](const TriangleBlock& block) {
    for (int lane = 0; lane < kBlockLanes && block.valid(lane); ++lane) {
      const std::uint32_t i = block.triangle[lane];
      if (!keep(i) || !reach.overlaps(lane_box(block, lane)) || !seen(w, i, walk)) continue;
      SweepHit h;
      if (body.is_capsule()) {
        sweep_capsule_triangle_unchecked(body.capsule, motion, block.get(lane), h);
      } else {
        sweep_ellipsoid_triangle_unchecked(body.ellipsoid, motion, block.get(lane), h);
      }
      if (!h.hit || (h.t == 0.f && !any_start && !(dot(h.normal, motion) < 0.f))) continue;
      h.triangle = i;
      if (is_better_hit(h, best)) best = h;
    }
    if (best.hit) limit = best.t;
    return false;
  }, walk);
  return best;
}

// Where an instance's motion from `before` to `after` takes the world point p, as a displacement
// (in double, rounded once).
Vec3 displacement(const Placement& before, const Placement& after, const Vec3& p) {
  const double d[3] = {double(p.x) - before.t[0], double(p.y) - before.t[1], double(p.z) - before.t[2]};
  double local[3], out[3];
  for (int k = 0; k < 3; ++k) local[k] = before.r[0][k] * d[0] + before.r[1][k] * d[1] + before.r[2][k] * d[2];
  for (int k = 0; k < 3; ++k) {
    out[k] = after.r[k][0] * local[0] + after.r[k][1] * local[1] + after.r[k][2] * local[2] + after.t[k] - double(p[k]);
  }
  return Vec3(float(out[0]), float(out[1]), float(out[2]));
}

double length_of(const Vec3& v) { return std::sqrt(double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z); }

// The body's lowest point, which stands on the ground, and its middle.
Vec3 feet(const Body& b) {
  if (b.is_capsule()) {
    const Vec3 low = b.capsule.a.y <= b.capsule.b.y ? b.capsule.a : b.capsule.b;
    return {low.x, low.y - b.capsule.radius, low.z};
  }
  return {b.ellipsoid.centre.x, b.ellipsoid.centre.y - b.ellipsoid.radii.y, b.ellipsoid.centre.z};
}
Vec3 middle(const Body& b) { return b.is_capsule() ? (b.capsule.a + b.capsule.b) * 0.5f : b.ellipsoid.centre; }

const InstanceSet::Moved* moved_entry(const InstanceSet& set, std::uint32_t k) {
  const auto at = std::lower_bound(set.moved.begin(), set.moved.end(), k,
                                   [](const InstanceSet::Moved& m, std::uint32_t want) { return m.instance < want; });
  return at != set.moved.end() && at->instance == k ? &*at : nullptr;
}

}  // namespace

bool has_moving_instances(const WorldArrays& w) { return w.instances && !w.instances->moved.empty(); }

InstanceCarry carry_by_instances(const WorldArrays& w, const Agent& a, const MoveSettings& settings,
                                 std::uint32_t layers) {
  InstanceCarry out;
  const InstanceSet& set = *w.instances;
  Body body = body_of(a);
  Body skinned = with_skin(body, settings.skin);
  // Most agents are far from every instance that moved: one box test, and nothing to do.
  const bool on_an_instance = a.ground_triangle != kNoTriangle && a.ground_triangle >= set.first &&
                              a.ground_triangle - set.first < set.triangles;
  if (!on_an_instance && !swept_bounds(agent_capsule(skinned), {}).overlaps(set.moved_bounds)) return out;
  auto move_by = [&](const Vec3& d) {
    body = moved_by(body, d);
    skinned = moved_by(skinned, d);
    out.offset += d;
  };
  // Carried: standing on a moving instance (the ground triangle its last tick passed back). Its
  // feet go where the instance takes them, as a sweep against everything but that instance.
  std::uint32_t carrier = kNoInstance;
  bool carry_blocked = false;  // then the carrier may still run into it, as a pusher
  if (on_an_instance) {
    const PlacedInstance& on = set.holding(a.ground_triangle);
    const std::uint32_t k = std::uint32_t(&on - set.placed.data());
    const InstanceSet::Moved* m = moved_entry(set, k);
    if (m && (on.layers & layers) != 0) {
      carrier = k;
      const Vec3 carry = displacement(m->before, on.placement, feet(body));
      const SweepHit hit = sweep_where(w, skinned, carry, layers,
                                       [&](std::uint32_t i) { return i < on.first || i - on.first >= on.count; });
      const double length = length_of(carry);
      carry_blocked = hit.hit;
      if (!hit.hit) {
        move_by(carry);
      } else if (length > 0) {
        move_by(carry * float(std::max(0.0, double(hit.t) * length - settings.backoff) / length));
      }
    }
  }
  // Pushed: by each other moving instance that runs into it, in instance order.
  for (const InstanceSet::Moved& m : set.moved) {
    if (m.instance == carrier && !carry_blocked) continue;
    const PlacedInstance& in = set.placed[m.instance];
    if ((in.layers & layers) == 0) continue;
    const Vec3 v = displacement(m.before, in.placement, middle(body));
    const double length = length_of(v);
    if (!(length > 0)) continue;
    Aabb near = swept_bounds(agent_capsule(skinned), v);
    if (!near.overlaps(in.box)) continue;
    auto only_it = [&](std::uint32_t i) { return i >= in.first && i - in.first < in.count; };
    // Seen from the instance, the agent moved by -v: from where v would take it back to where it
    // stands. The instance's first contact on that way says how much of v it must make up.
    const SweepHit meet = sweep_where(w, moved_by(skinned, v), -v, layers, only_it);
    if (!meet.hit) continue;
    const double needed = (1.0 - double(meet.t)) * length;
    const Vec3 push = v * float((needed + settings.backoff) / length);
    const SweepHit blocked = sweep_where(w, skinned, push, layers, [&](std::uint32_t i) { return !only_it(i); });
    const double room = blocked.hit ? double(blocked.t) * (needed + settings.backoff) : needed + settings.backoff;
    if (room < needed) {
      // Nowhere to go: it stays where it was, flagged (never left inside silently).
      return InstanceCarry{{}, true};
    }
    move_by(v * float(std::max(needed, room - (blocked.hit ? settings.backoff : 0.0)) / length));
  }
  // Where a push could not reach (the agent was inside already, or turned against), the agent
  // overlapping a moving instance at its new pose is crushed, never left there silently.
  for (const InstanceSet::Moved& m : set.moved) {
    const PlacedInstance& in = set.placed[m.instance];
    if ((in.layers & layers) == 0 || !swept_bounds(agent_capsule(body), {}).overlaps(in.box)) continue;
    auto only_it = [&](std::uint32_t i) { return i >= in.first && i - in.first < in.count; };
    if (sweep_where(w, body, Vec3{}, layers, only_it, true).hit) return InstanceCarry{{}, true};
  }
  return out;
}

namespace {

// How far apart two agents' capsules are, surface to surface (negative: they overlap).
double gap(const Capsule& a, const Capsule& b) {
  const ClosestSegmentSegment c = closest_segment_segment(to_double(a.a), to_double(a.b), to_double(b.a), to_double(b.b));
  return length(c.on_first - c.on_second) - double(a.radius) - double(b.radius);
}

Capsule moved_capsule(const Capsule& c, const Vec3& d) { return {c.a + d, c.b + d, c.radius}; }

bool is_zero(const Vec3& v) { return v.x == 0 && v.y == 0 && v.z == 0; }

// Rounds of pushes passed on: a chain of this many agents, each pushing the next, is followed to
// its end; a longer one's last pushed agent is crushed.
constexpr int kPushRounds = 8;

}  // namespace

void pass_pushes_on(const WorldArrays& w, std::span<const Agent> agents, std::span<const std::uint8_t> valid,
                    const MoveSettings& settings, std::uint32_t batch_layers, std::span<InstanceCarry> carry) {
  // Agents meet as their start capsules (start_capsule: an ellipsoid's bounding one) moved by
  // their offsets; the grid holds the starts, asked with boxes grown by the largest offset.
  // Most ticks on a moving frame move a few agents or none: nothing to pass on, no grid to build.
  if (std::none_of(carry.begin(), carry.end(), [](const InstanceCarry& c) { return !c.crushed && !is_zero(c.offset); })) return;
  const std::size_t n = agents.size();
  std::vector<Capsule> starts(n);
  for (std::size_t i = 0; i < n; ++i) starts[i] = start_capsule(agents[i]);
  AgentGrid grid;
  grid.build(starts);
  // Agents that overlapped at the start of the tick are the solver's to part (depenetration,
  // holding), not the pass's: only overlaps the pass made are passed on. Pushers act on an agent
  // in the order of their ids (then capsule bytes), never of the batch.
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    if (agents[a].id != agents[b].id) return agents[a].id < agents[b].id;
    return std::memcmp(&starts[a], &starts[b], sizeof(Capsule)) < 0;
  };
  auto reach = [&](const std::vector<InstanceCarry>& c) {
    double far = 0;
    for (const InstanceCarry& k : c) far = std::max(far, k.crushed ? 0.0 : length_of(k.offset));
    return float(far) + 1e-3f;
  };
  std::vector<InstanceCarry> now(carry.begin(), carry.end()), next;
  for (int round = 0; round < kPushRounds; ++round) {
    bool changed = false;
    next = now;
    const float grow = reach(now);
    parallel::for_ranges<std::size_t>(0, n, 64, [&](const auto& range) {
      for (std::size_t j = range.begin(); j != range.end(); ++j) {
        if (!valid[j] || now[j].crushed) continue;
        const Vec3 oj = now[j].crushed ? Vec3{} : now[j].offset;
        Aabb box = swept_bounds(moved_capsule(starts[j], oj), {});
        box.min -= Vec3(grow, grow, grow), box.max += Vec3(grow, grow, grow);
        Vec3 pushed = oj;
        bool crushed = false;
        std::vector<std::uint32_t> near;
        grid.for_each_overlapping(box, [&](std::uint32_t i) {
          if (i != j && valid[i] && !now[i].crushed) near.push_back(i);
        });
        std::sort(near.begin(), near.end(), before);
        for (const std::uint32_t i : near) {
          if (crushed) break;
          const Vec3 oi = now[i].offset;
          // i pushes j when the pass moved i and i gains on j: its motion seen from j is along its own.
          const Vec3 v = oi - pushed;
          if (is_zero(oi) || !(dot(v, oi) > 0)) continue;
          const Capsule ci = moved_capsule(starts[i], oi), cj = moved_capsule(starts[j], pushed);
          if (!(gap(ci, cj) < 0) || gap(starts[i], starts[j]) < 0) continue;
          // As a moving instance pushes (carry_by_instances): how much of v j must make up.
          SweepHit meet;
          sweep_capsule_capsule(moved_capsule(cj, v), -v, ci, meet);
          const double length = length_of(v);
          const double needed = meet.hit ? (1.0 - double(meet.t)) * length : length;
          const Vec3 push = v * float((needed + settings.backoff) / length);
          const Body body = with_skin(moved_by(body_of(agents[j]), pushed), settings.skin);
          const SweepHit blocked = sweep_where(w, body, push, agents[j].layers & batch_layers, [](std::uint32_t) { return true; });
          const double room = blocked.hit ? double(blocked.t) * (needed + settings.backoff) : needed + settings.backoff;
          if (room < needed) {
            crushed = true;
            break;
          }
          pushed += v * float(std::max(needed, room - (blocked.hit ? settings.backoff : 0.0)) / length);
        }
        if (crushed) {
          next[j] = InstanceCarry{{}, true};
          changed = true;
        } else if (!(pushed.x == oj.x && pushed.y == oj.y && pushed.z == oj.z)) {
          next[j].offset = pushed;
          changed = true;
        }
      }
    });
    now.swap(next);
    if (!changed) break;
  }
  // What the rounds could not part is crushed, and what overlaps a crushed agent (now back where
  // it started) too, until nothing changes: every agent the pass moved ends clear of the others.
  for (bool changed = true; changed;) {
    changed = false;
    next = now;
    const float grow = reach(now);
    parallel::for_ranges<std::size_t>(0, n, 64, [&](const auto& range) {
      for (std::size_t j = range.begin(); j != range.end(); ++j) {
        if (!valid[j] || now[j].crushed || is_zero(now[j].offset)) continue;
        const Capsule cj = moved_capsule(starts[j], now[j].offset);
        Aabb box = swept_bounds(cj, {});
        box.min -= Vec3(grow, grow, grow), box.max += Vec3(grow, grow, grow);
        bool overlaps = false;
        grid.for_each_overlapping(box, [&](std::uint32_t i) {
          if (i == j || overlaps || !valid[i]) return;
          const Capsule ci = moved_capsule(starts[i], now[i].crushed ? Vec3{} : now[i].offset);
          overlaps = gap(ci, cj) < 0 && !(gap(starts[i], starts[j]) < 0);
        });
        if (overlaps) {
          next[j] = InstanceCarry{{}, true};
          changed = true;
        }
      }
    });
    now.swap(next);
  }
  std::copy(now.begin(), now.end(), carry.begin());
}

}  // namespace capsweep
