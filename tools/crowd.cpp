#include "tools/crowd.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "broadphase/agent_grid.h"
#include "parallel/executor.h"
#include "world/world_arrays.h"
#include "world/solver_queries.h"

namespace capsweep {

namespace {

// Goals closer than this are reached; an agent making less than this fraction of its step for
// kStuckTicks ticks picks a new goal (it is pressed against a wall or another agent).
constexpr float kReached = 0.75f;
constexpr float kStuckFraction = 0.25f;
constexpr std::uint32_t kStuckTicks = 60;

// The segment's body shrunk by the skin: farther than a skin inside the body in every direction
// (an ellipsoid scaled by 1 - s / r_min: its support is at least r_min, so the gap is at least s),
// so that it meets only what the body would go deeper than a skin into.
MoveSegments::Segment shrunk(MoveSegments::Segment s, AgentShape shape, float skin) {
  if (shape == AgentShape::capsule) {
    s.capsule.radius -= skin;
  } else {
    const float r_min = std::min({s.ellipsoid.radii.x, s.ellipsoid.radii.y, s.ellipsoid.radii.z});
    s.ellipsoid.radii = s.ellipsoid.radii * (1.f - skin / r_min);
  }
  return s;
}

// Everything the segment's body may touch on its way (a conservative box).
Aabb reach(const MoveSegments::Segment& s, AgentShape shape) {
  if (shape == AgentShape::capsule) return swept_bounds(s.capsule, s.motion);
  Aabb b;
  for (const Vec3& c : {s.ellipsoid.centre, s.ellipsoid.centre + s.motion}) {
    b.grow(c - s.ellipsoid.radii);
    b.grow(c + s.ellipsoid.radii);
  }
  return b;
}

// The segments swept on the scalar path (the BVH and the scalar kernel, which the tests hold to
// the brute-force path byte for byte on every scene; brute force itself costs a sweep per
// triangle, seconds a fall on the 947k-triangle terrain), each against the layers it sees. One
// that stays outside the world's box meets nothing and is not swept: most of a fall off the
// world is the drop below it.
std::vector<SweepHit> sweep_exactly(const World& world, std::span<const MoveSegments::Segment> segments,
                                  AgentShape shape, std::uint32_t layers, int threads) {
  std::vector<std::size_t> near;
  for (std::size_t k = 0; k < segments.size(); ++k) {
    if (reach(segments[k], shape).overlaps(world.bounds())) near.push_back(k);
  }
  std::vector<SweepHit> found(near.size()), hits(segments.size());
  const SweepOptions scalar = on_path(SweepPath::scalar, threads);
  if (shape == AgentShape::capsule) {
    std::vector<SweepQuery> queries;
    for (std::size_t k : near) queries.push_back({segments[k].capsule, segments[k].motion, layers});
    world.sweep(queries, found, scalar);
  } else {
    std::vector<SweepEllipsoidQuery> queries;
    for (std::size_t k : near) queries.push_back({segments[k].ellipsoid, segments[k].motion, layers});
    world.sweep_ellipsoid(queries, found, scalar);
  }
  for (std::size_t j = 0; j < near.size(); ++j) hits[near[j]] = found[j];
  return hits;
}

// A body that starts deeper than a skin in some triangle: each triangle it may reach on its own
// (a batch's answer names only the deepest start contact, which hides the rest). It crosses one
// it meets later, or one it starts in and moves deeper into.
bool crosses_from_deep(const World& world, const MoveSegments::Segment& s, AgentShape shape, std::uint32_t layers,
                       SweepHit& crossing) {
  const Aabb box = reach(s, shape);
  for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
    if ((world.layers_of(i) & layers) == 0) continue;
    const Triangle t = world.triangle(i);
    if (!box.overlaps(bounds(t))) continue;
    SweepHit h;
    const Status status = shape == AgentShape::capsule ? sweep_capsule_triangle(s.capsule, s.motion, t, h)
                                                       : sweep_ellipsoid_triangle(s.ellipsoid, s.motion, t, h);
    if (status != Status::ok || !h.hit || h.t >= 1.f) continue;
    if (h.t > 0.f || dot(s.motion, h.normal) < 0.f) {
      crossing = h;
      crossing.triangle = i;
      return true;
    }
  }
  return false;
}

}  // namespace

bool capsules_overlap(const Capsule& a, const Capsule& b, float tolerance) {
  Contact k;
  capsule_capsule_contact(a, b, k);
  return k.distance < double(a.radius) + double(b.radius) - tolerance;
}


FallCheck classify_fall(const World& world, std::span<const MoveSegments::Segment> fall, AgentShape shape,
                        std::uint32_t layers, float skin, int threads) {
  FallCheck check;
  auto crack = [&](std::size_t k, const SweepHit& h) {
    check.cause = FallCause::crack;
    check.segment = k;
    check.hit = h;
    return check;
  };
  // The exact body: a contact before the segment's end crossed a triangle; one at its start
  // (t = 0) is a body touching or within its skin of a face, and is looked at again below.
  const std::vector<SweepHit> hits = sweep_exactly(world, fall, shape, layers, threads);
  std::vector<std::size_t> in_contact;
  for (std::size_t k = 0; k < fall.size(); ++k) {
    if (!hits[k].hit || hits[k].t >= 1.f) continue;  // clear, or touching only at its end
    if (hits[k].t > 0.f) return crack(k, hits[k]);
    in_contact.push_back(k);
  }
  if (in_contact.empty()) return check;
  // Those starting in contact, shrunk by the skin: what they meet now they went deeper than a
  // skin into (resting on a face and leaving it, or sliding along it, meets nothing).
  std::vector<MoveSegments::Segment> inner;
  for (std::size_t k : in_contact) inner.push_back(shrunk(fall[k], shape, skin));
  const std::vector<SweepHit> inner_hits = sweep_exactly(world, inner, shape, layers, threads);
  for (std::size_t j = 0; j < inner.size(); ++j) {
    const SweepHit& h = inner_hits[j];
    if (!h.hit || h.t >= 1.f) continue;
    SweepHit crossing = h;
    if (h.t > 0.f || crosses_from_deep(world, inner[j], shape, layers, crossing)) return crack(in_contact[j], crossing);
  }
  return check;
}

Crowd::Crowd(const World& world, const CrowdSettings& settings)
    : frame_(world), settings_(settings), places_(frame_) {
  cache_ = MoveCache(settings.neighbourhoods);
  const Aabb& b = world.bounds();
  tolerance_ = std::max(1e-4f, 4e-7f * std::max(max_abs_component(b.min), max_abs_component(b.max)));
  floor_ = b.min.y - 50.f;
  Random rng(settings.seed);
  // Spawn: standing places (2 cm above the ground) clear of the mesh by a skin and of the
  // agents already placed.
  std::vector<Capsule> placed;  // what other agents meet of each (agent_capsule)
  std::vector<Body> bodies;
  AgentGrid grid;
  std::size_t failures = 0, grid_size = 0;
  while (placed.size() < settings.agents) {
    const Body b = body(placed.size(), places_.person(rng));
    bool free = clear_of_mesh(b, settings.move.skin, placed.size());
    if (free) {
      if (placed.size() >= grid_size + 64) {  // refresh the grid of placed agents now and then
        grid.build(placed);
        grid_size = placed.size();
      }
      const Capsule grown = agent_capsule(with_skin(b, settings.move.skin));
      grid.for_each_overlapping(swept_bounds(grown, {}), [&](std::uint32_t j) {
        if (free && capsules_overlap(grown, placed[j], 0)) free = false;
      });
      for (std::size_t j = grid_size; free && j < placed.size(); ++j) free = !capsules_overlap(grown, placed[j], 0);
    }
    if (!free) {
      if (++failures > 10000 + 50 * settings.agents) {
        if (settings.up_to_capacity && !placed.empty()) break;
        throw std::runtime_error("the scene has room for only " + std::to_string(placed.size()) + " of " +
                                 std::to_string(settings.agents) + " agents");
      }
      continue;
    }
    placed.push_back(agent_capsule(b));
    bodies.push_back(b);
  }
  const std::size_t n = placed.size();
  settings_.agents = n;
  agents_.resize(n);
  results_.resize(n);
  goal_.resize(n);
  speed_.resize(n);
  stuck_.assign(n, 0);
  segments_.resize(n);  // always: the falls are classified from them
  fall_.resize(n);
  fall_ticks_.resize(n);
  fall_head_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    agents_[i].capsule = placed[i];
    agents_[i].shape = bodies[i].shape;
    agents_[i].ellipsoid = bodies[i].ellipsoid;
    agents_[i].id = std::uint32_t(i);
    agents_[i].layers = settings.agent_layers.empty() ? kAllLayers : settings.agent_layers[i % settings.agent_layers.size()];
    rng_.emplace_back(settings.seed * 0x9E3779B97F4A7C15ull + i + 1);
    speed_[i] = float(rng_[i].uniform(settings.min_speed, settings.max_speed));
    goal_[i] = to_float(places_.point(rng_[i]));
  }
}

// An agent that fell off the world (50 m below its lowest point) starts again on walkable
// ground, clear of the mesh and of the other agents: a teleport, not travel (no segment).
void Crowd::respawn(std::size_t i) {
  ++totals_.respawned;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const Body b = body(i, places_.person(rng_[i]));
    if (!clear_of_mesh(b, settings_.move.skin, i)) continue;
    const Capsule grown = agent_capsule(with_skin(b, settings_.move.skin));
    bool free = true;
    for (std::size_t j = 0; j < agents_.size() && free; ++j) {
      // Agents after i have not been updated yet: their end of tick is in results_.
      free = j == i || !capsules_overlap(grown, j < i ? agents_[j].capsule : results_[j].capsule, 0);
    }
    if (!free) continue;
    agents_[i].capsule = agent_capsule(b);
    agents_[i].ellipsoid = b.ellipsoid;
    agents_[i].vertical_speed = 0;
    agents_[i].ground_triangle = kNoTriangle;
    goal_[i] = to_float(places_.point(rng_[i]));
    return;
  }
}

void Crowd::record_fall(std::size_t i) {
  const MoveSegments& s = segments_[i];
  std::vector<MoveSegments::Segment>& ring = fall_[i];
  std::vector<std::uint32_t>& ticks = fall_ticks_[i];
  const std::uint32_t tick = std::uint32_t(totals_.ticks - 1);
  for (int k = 0; k < s.count; ++k) {
    if (s.segment[k].motion == Vec3{}) continue;  // no travel, nothing crossed
    if (ring.size() < kFallSegments) {
      ring.push_back(s.segment[k]);
      ticks.push_back(tick);
    } else {  // full: the oldest gives way
      ring[fall_head_[i]] = s.segment[k];
      ticks[fall_head_[i]] = tick;
      fall_head_[i] = std::uint32_t((fall_head_[i] + 1) % kFallSegments);
    }
  }
}

void Crowd::end_fall(std::size_t i) {
  std::vector<MoveSegments::Segment>& ring = fall_[i];
  std::vector<std::uint32_t>& ticks = fall_ticks_[i];
  std::rotate(ring.begin(), ring.begin() + fall_head_[i], ring.end());  // oldest first
  std::rotate(ticks.begin(), ticks.begin() + fall_head_[i], ticks.end());
  // Against the frame it left the world on: in a world whose instances move, a fall that passed a
  // moving part is judged as if the part had stood there throughout.
  const FallCheck check = capsweep::classify_fall(frame_, ring, agents_[i].shape, sees(i), settings_.move.skin,
                                                  settings_.batch.threads);
  if (check.cause == FallCause::crack) {
    ++totals_.fell_through_cracks;
    if (cracks_.size() < kCracksKept) cracks_.push_back({i, ticks[check.segment], ring[check.segment], check.hit});
  } else {
    ++totals_.fell_through_holes;
  }
  // It starts again standing: the ring's memory goes back.
  std::vector<MoveSegments::Segment>().swap(ring);
  std::vector<std::uint32_t>().swap(ticks);
  fall_head_[i] = 0;
}

// A grounded agent takes off with probability jump_chance x dt (no draw at all when jumps are
// off, so that the agent's stream is the one crowds without jumps had). Agents spawn standing.
void Crowd::jump(std::size_t i) {
  if (settings_.jump_chance <= 0) return;
  const bool grounded = i >= grounded_.size() || grounded_[i] != 0;
  if (rng_[i].uniform(0, 1) < double(settings_.jump_chance) * settings_.move.dt && grounded) {
    agents_[i].vertical_speed = settings_.jump_speed;
  }
}

// Each agent's displacement for the next tick, from its own random stream: the same crowd
// for any thread count.
void Crowd::steer() {
  const float dt = settings_.move.dt;
  parallel::for_ranges<std::size_t>(0, agents_.size(), 256, [&](const auto& range) {
    for (std::size_t i = range.begin(); i != range.end(); ++i) {
      Agent& a = agents_[i];
      const float step = speed_[i] * dt;
      if (settings_.steering == Steering::directions) {
        const double angle = rng_[i].uniform(0, 2 * std::numbers::pi);
        a.displacement = {float(std::cos(angle)) * step, 0, float(std::sin(angle)) * step};
        jump(i);
        continue;
      }
      Vec3 to_goal = goal_[i] - position(body_of(a));
      to_goal.y = 0;
      float distance = length(to_goal);
      if (distance < kReached || stuck_[i] >= kStuckTicks) {
        goal_[i] = to_float(places_.point(rng_[i]));
        stuck_[i] = 0;
        to_goal = goal_[i] - position(body_of(a));
        to_goal.y = 0;
        distance = length(to_goal);
      }
      a.displacement = distance > 1e-6f ? to_goal * (std::min(step, distance) / distance) : Vec3{};
      jump(i);
    }
  });
}

void Crowd::claims(std::vector<ClaimedMove>& out) const {
  if (!settings_.trace) return;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const MoveSegments& s = segments_[i];
    for (int k = 0; k < s.count; ++k) {
      out.push_back({s.segment[k].capsule, s.segment[k].motion, settings_.move.dt, previous_[i].vertical_speed,
                     grounded_before_[i] != 0, previous_[i].layers, previous_[i].shape, s.segment[k].ellipsoid});
    }
  }
}

bool Crowd::masked() const {
  for (std::uint32_t layers : settings_.agent_layers) {
    if (layers != kAllLayers) return true;
  }
  return false;
}

bool Crowd::has_ellipsoids() const {
  for (AgentShape shape : settings_.agent_shapes) {
    if (shape == AgentShape::ellipsoid) return true;
  }
  return false;
}

AgentShape Crowd::shape_of(std::size_t i) const {
  return settings_.agent_shapes.empty() ? AgentShape::capsule : settings_.agent_shapes[i % settings_.agent_shapes.size()];
}

// An ellipsoid stands at the capsule's centre, lifted by as much as its skin reaches below it
// beyond the capsule's skin (its skin is thicker along its longer axes: core/body.h), so that it
// starts as clear of the ground as the capsule.
Body Crowd::body(std::size_t i, const Capsule& person) const {
  if (shape_of(i) == AgentShape::capsule) return Body::of(person);
  const Ellipsoid e{(person.a + person.b) * 0.5f, settings_.ellipsoid_radii};
  const float lift = std::fmax(scaled_out(e, settings_.move.skin).radii.y - e.radii.y - settings_.move.skin, 0.f);
  return Body::of(Ellipsoid{e.centre + Vec3{0, lift, 0}, e.radii});
}

// Farther than `clearance` from the mesh agent i sees (an ellipsoid: scaled out by it, clear).
bool Crowd::clear_of_mesh(const Body& b, float clearance, std::size_t i) const {
  if (b.is_capsule()) return frame_.is_clear(b.capsule, clearance, sees(i));
  return ellipsoid_clear(frame_, scaled_out(b.ellipsoid, clearance), sees(i));
}

std::uint32_t Crowd::sees(std::size_t i) const {
  const std::uint32_t own = settings_.agent_layers.empty() ? kAllLayers : settings_.agent_layers[i % settings_.agent_layers.size()];
  return own & settings_.batch.layers;
}

// One posed() from the last tick's frame (the frame-motion contract), and which instances it
// moved: their riders are counted as carried.
void Crowd::pose() {
  const World next = frame_.posed(settings_.poses(totals_.ticks + 1, agents_));
  const std::span<const Instance> was = frame_.instances(), now = next.instances();
  instance_moved_.assign(now.size(), 0);
  for (std::size_t k = 0; k < now.size(); ++k) {
    const Pose &a = was[k].pose, &b = now[k].pose;
    instance_moved_[k] = a.position.x != b.position.x || a.position.y != b.position.y || a.position.z != b.position.z ||
                         a.rotation.x != b.rotation.x || a.rotation.y != b.rotation.y || a.rotation.z != b.rotation.z ||
                         a.rotation.w != b.rotation.w;
  }
  frame_ = next;
}

void Crowd::tick() {
  if (settings_.poses) pose();
  steer();
  previous_ = agents_;
  grounded_.resize(agents_.size(), 1);  // spawned standing
  grounded_before_ = grounded_;
  const auto start = std::chrono::steady_clock::now();
  if (settings_.keep_neighbourhoods) {
    frame_.move(agents_, settings_.move, results_, cache_, settings_.batch, segments_);
  } else {
    frame_.move(agents_, settings_.move, results_, settings_.batch, segments_);
  }
  totals_.move_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ++totals_.ticks;
  for (std::size_t i = 0; i < agents_.size(); ++i) {
    const MoveResult& r = results_[i];
    Agent& a = agents_[i];
    const float wanted = length(a.displacement);
    const float made = length(Vec3{r.moved.x, 0, r.moved.z});
    stuck_[i] = wanted > 0 && made < kStuckFraction * wanted ? stuck_[i] + 1 : 0;
    a.capsule = r.capsule;
    a.ellipsoid = r.ellipsoid;
    a.vertical_speed = r.vertical_speed;
    a.ground_triangle = settings_.carry_ground && r.grounded ? r.ground_triangle : kNoTriangle;
    grounded_[i] = r.grounded;
    // A wedged agent's fall has stopped: it rests on the faces that hold it.
    if (r.grounded || (r.flags & kMoveWedged)) {
      fall_[i].clear();
      fall_ticks_[i].clear();
      fall_head_[i] = 0;
    } else {
      record_fall(i);
    }
    if (position(body_of(a)).y < floor_) {
      end_fall(i);
      respawn(i);
      grounded_[i] = 1;  // starts again standing
    }
    totals_.sweeps += r.sweeps;
    totals_.stepped += (r.flags & kMoveSteppedUp) != 0;
    totals_.snapped += (r.flags & kMoveSnapped) != 0;
    totals_.depenetrated += (r.flags & kMoveDepenetrated) != 0;
    totals_.held += (r.flags & kMoveHeldByAgents) != 0;
    totals_.falling += (r.flags & kMoveFalling) != 0;
    totals_.blocked += (r.flags & kMoveBlocked) != 0;
    totals_.wedged += (r.flags & kMoveWedged) != 0;
    totals_.crushed += (r.flags & kMoveCrushed) != 0;
    if (!instance_moved_.empty() && r.grounded && !(r.flags & kMoveCrushed)) {
      const Instance* on = frame_.instance_of(r.ground_triangle);
      totals_.carried += on != nullptr && instance_moved_[std::size_t(on - frame_.instances().data())];
    }
    totals_.pushed += r.pushed;
  }
  totals_.agent_ticks += agents_.size();
}

CrowdViolations Crowd::check() const {
  CrowdViolations v;
  const float clearance = settings_.move.skin - tolerance_;
  std::vector<Capsule> ends(agents_.size());
  for (std::size_t i = 0; i < agents_.size(); ++i) ends[i] = agents_[i].capsule;
  AgentGrid grid;
  grid.build(ends);
  std::vector<std::uint8_t> penetrating(agents_.size()), overlapping(agents_.size());
  auto body = [&] {
    parallel::for_ranges<std::size_t>(0, ends.size(), 64, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        // A crushed agent stayed where it was, and the instance moved into it: flagged, not hidden.
        const bool crushed = i < results_.size() && (results_[i].flags & kMoveCrushed);
        penetrating[i] = !crushed && !clear_of_mesh(body_of(agents_[i]), clearance, i);
        if (!settings_.move.agents_collide) continue;
        grid.for_each_overlapping(swept_bounds(ends[i], {}), [&](std::uint32_t j) {
          if (j > i && capsules_overlap(ends[i], ends[j], tolerance_)) overlapping[i] = 1;
        });
      }
    });
  };
  parallel::in_arena(settings_.batch.threads, body);
  for (std::size_t i = 0; i < ends.size(); ++i) {
    v.penetrating += penetrating[i];
    v.overlapping += overlapping[i];
  }
  return v;
}

}  // namespace capsweep
