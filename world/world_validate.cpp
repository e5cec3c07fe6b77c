// World::validate: a claimed move held to what the movement solver allows (MoveAllowance), and
// connected to its start by a free path of the moves the solver makes; where the solver would
// have taken it otherwise; the state to carry into the next claim. docs/VALIDATION.md states the
// rule.
#include <cmath>
#include <numbers>
#include <optional>
#include <string>

#include "parallel/executor.h"

#include "world/world_collider.h"
#include "broadphase/agent_grid.h"
#include "core/closest_point.h"
#include "world/contacts_near.h"
#include "world/moving_instances.h"

namespace capsweep {

namespace {

constexpr Vec3 kUp{0, 1, 0};

// Whether the body comes within `by` of the world (an ellipsoid: scaled out by it, core/body.h).
bool touches(const World& world, const Body& body, float by, std::uint32_t layers) {
  if (body.is_capsule()) return !world.is_clear(body.capsule, by, layers);
  return !ellipsoid_clear(world, scaled_out(body.ellipsoid, by), layers);
}

// A start in the solver's skin, with half the backoff as margin for rounding (World::validate):
// the body grown by skin + backoff / 2 (a capsule) or scaled out so that it reaches at most that
// far beyond the skin in any direction (an ellipsoid: k = 1 + skin / r_min + backoff / (2 r_max);
// an agent resting a backoff beyond its skin is outside it) touches the world.
bool in_skin(const World& world, const Body& body, const MoveSettings& m, std::uint32_t layers) {
  const float backoff = body.is_capsule() ? m.backoff : m.backoff * smallest_radius(body.ellipsoid) / largest_radius(body.ellipsoid);
  return touches(world, body, m.skin + 0.5f * backoff, layers);
}

// The claim's agent where the claim starts, with the state carried from its last tick.
Agent agent_at_start(const ClaimedMove& m) {
  Agent a;
  a.capsule = m.from;
  a.vertical_speed = m.vertical_speed;
  a.layers = m.layers;
  a.shape = m.shape;
  a.ellipsoid = m.ellipsoid;
  a.ground_triangle = m.ground_triangle;
  return a;
}

// The other agents of a batch, where the solver meets them (movement.agents_collide): at their
// claims' starts, as capsules (an ellipsoid's: the one holding it; a refused body: nowhere).
struct OtherAgents {
  AgentGrid grid;
  std::vector<Capsule> starts;
  std::vector<Agent> agents;  // each claim's body at its start, its index for an id
};

// One claim's judgement, with the queries it makes of the world.
class Judge {
 public:
  Judge(const World& world, const ValidateSettings& settings, SweepPath path, std::uint32_t layers,
        const ClaimedMove& claim, const OtherAgents* others, std::size_t self)
      : world_(world), s_(settings), path_(path), layers_(layers), claim_(claim), body_(body_of(claim)),
        shrunk_(shrunk(body_, settings.tolerance)), others_(others), self_(self) {}

  // The shrunk body's deepest overlap at the start, if any.
  bool start_overlaps(SweepHit& hit) const { return overlaps(shrunk_, hit); }

  // The straight path of the shrunk body from `offset` by `motion`: its first contact.
  SweepHit leg(const Vec3& offset, const Vec3& motion) const {
    const Body b = moved_by(shrunk_, offset);
    SweepHit hit;
    if (b.is_capsule()) {
      world_.sweep_one({b.capsule, motion}, hit, path_, layers_);
    } else {
      sweep_ellipsoid_one(world_, {b.ellipsoid, motion}, hit, path_, layers_);
    }
    return hit;
  }
  bool free(const Vec3& offset, const Vec3& motion) const {
    return motion == Vec3{} || !leg(offset, motion).hit;
  }

  // Whether the shrunk body at the claimed end overlaps the world: `hit` the deepest overlap.
  bool end_overlaps(SweepHit& hit) const { return overlaps(moved_by(shrunk_, claim_.motion), hit); }

  // Walkable ground within the ground distance (and the tolerance) below the body moved by
  // `offset`, as the solver's probe finds it.
  bool ground_at(const Vec3& offset, SweepHit& ground) const {
    Vec3 normal;
    const MoveSettings& m = s_.movement;
    const float reach = m.ground_distance + s_.tolerance;
    // The ground the claim says it stood on, first: a walk mostly ends over the same triangle,
    // and one triangle costs a fraction of the world's probe (the solver's carried ground).
    if (claim_.ground_triangle != kNoTriangle) {
      const WorldCollider collider(world_, path_, layers_, nullptr, {}, {}, 0);
      MoveHit hit;
      collider.sweep_triangle(with_skin(moved_by(body_, offset), m.skin), Vec3{0, -reach, 0}, claim_.ground_triangle, hit);
      if (hit.hit.hit && collider.walkable(hit, std::cos(m.max_slope_degrees * std::numbers::pi_v<float> / 180.f), normal)) {
        ground = hit.hit;
        return true;
      }
    }
    if (ground_below(world_, moved_by(body_, offset), m, reach, path_, layers_, ground, normal)) return true;
    // Nothing at all within reach below: no ground hidden either.
    return ground.hit && walkable_within(offset, reach, ground);
  }
  // Walkable ground within `reach` below the body moved by `offset` that the first face below
  // hides: the edge of a steep face a centimetre nearer than the ramp the solver walks down
  // beside it (its carried ground, core/move.cpp, checks that one triangle whatever lies
  // between). The nearest such triangle, as the solver's carried ground would find it.
  bool walkable_within(const Vec3& offset, float reach, SweepHit& ground) const {
    const MoveSettings& m = s_.movement;
    const Body skinned = with_skin(moved_by(body_, offset), m.skin);
    const Capsule around = skinned.is_capsule() ? skinned.capsule : bounding_capsule(skinned.ellipsoid);
    const WorldCollider collider(world_, path_, layers_, nullptr, {}, {}, 0);
    const float min_up = std::cos(m.max_slope_degrees * std::numbers::pi_v<float> / 180.f);
    bool found = false;
    for_each_contact(world_.arrays(), around, reach, [&](std::uint32_t triangle, const Contact& near) {
      if (near.distance > around.radius + reach) return false;
      MoveHit hit;
      Vec3 normal;
      collider.sweep_triangle(skinned, Vec3{0, -reach, 0}, triangle, hit);
      if (hit.hit.hit && collider.walkable(hit, min_up, normal) && (!found || hit.hit.t < ground.t)) {
        ground = hit.hit;
        found = true;
      }
      return false;
    }, layers_);
    return found;
  }
  // Whether the claimed end is within the solver's skin, backoff and the tolerance of the world,
  // or of another agent where it started the tick (a fall lands on heads and slides off them).
  bool end_touches() const {
    const MoveSettings& m = s_.movement;
    const float reach = skin_reach(body_, m.skin) + m.backoff + s_.tolerance;
    const Body end = moved_by(body_, claim_.motion);
    if (touches(world_, end, reach, layers_)) return true;
    const Capsule c = agent_capsule(end);
    return near_an_agent(c.a, c.b, c.radius + reach);
  }
  // Whether the path gravity gives an airborne start (its walk, then the fall at v0 - g dt, as
  // the solver integrates) meets the world or another agent: something may have stopped or
  // turned the fall on the way (a fall slides off a head and on past it).
  bool fall_meets_something(float dt) const {
    const MoveSettings& m = s_.movement;
    // The fall: gravity's from v0, or the claim's own drop where it is longer (v0 bounds the
    // agent's speed from above: CarriedState).
    const float v = std::fmax(claim_.vertical_speed - m.gravity * dt, -m.max_fall_speed);
    const Vec3 across{claim_.motion.x, 0, claim_.motion.z}, fall{0, std::fmin(std::fmin(v * dt, claim_.motion.y), 0.f), 0};
    const Body skinned = with_skin(body_, m.skin);
    std::vector<std::uint32_t> near;
    const WorldCollider collider = others_ ? WorldCollider(world_, path_, layers_, &others_->grid, others_->agents,
                                                           others_->starts, self_, &near)
                                           : WorldCollider(world_, path_, layers_, nullptr, {}, {}, 0);
    // The fall from the start; the walk, then the fall from its end; and the two at once (the
    // walk's own path is bent by what the fall slides along, so each is a guess at it).
    MoveHit hit;
    collider.sweep(skinned, fall, hit);
    if (hit.hit.hit) return true;
    collider.sweep(skinned, across, hit);
    if (hit.hit.hit) return true;
    collider.sweep(moved_by(skinned, across), fall, hit);
    if (hit.hit.hit) return true;
    collider.sweep(skinned, across + fall, hit);
    return hit.hit.hit || passes_an_agent(fall.y);
  }
  // Whether another agent (where it started the tick) lies within reach of the vertical path
  // `dy` (a fall, or a rise) from anywhere the walk could have taken the start: a fall lands on a
  // head and slides off it, back or aside, and a jump slides up along a shoulder, so the net path
  // can miss the agent the walk took it to. The walk reaches at most max_speed dt (without a
  // limit, the claim's own horizontal length); the body is taken as the upright capsule holding
  // its path (its axis's horizontal extent added to its radius).
  bool passes_an_agent(float dy) const {
    const MoveSettings& m = s_.movement;
    const Capsule c = agent_capsule(body_);
    const float walk = std::isfinite(s_.max_speed) ? s_.max_speed * claim_.dt
                                                   : std::hypot(claim_.motion.x, claim_.motion.z);
    const Vec3 mid = (c.a + c.b) * 0.5f;
    const float lean = 0.5f * std::hypot(c.b.x - c.a.x, c.b.z - c.a.z);
    const Vec3 top{mid.x, std::fmax(c.a.y, c.b.y) + std::fmax(dy, 0.f), mid.z};
    const Vec3 low{mid.x, std::fmin(c.a.y, c.b.y) + std::fmin(dy, 0.f), mid.z};
    return near_an_agent(low, top, c.radius + lean + walk + skin_reach(body_, m.skin) + m.backoff + s_.tolerance);
  }
  bool start_in_skin() const { return in_skin(world_, body_, s_.movement, layers_); }
  // What the solver's push out of its skin can do to the start (ClaimEnds::push_up and
  // one_plane): lift it by at most the most upward normal of the faces within skin + backoff (a
  // wall's pushes it sideways, a floor's up), and push it one skin deep, not four, where every
  // face within the push's reach lies in one plane (a floor in the open: restore_skin's one push
  // clears it, with no second face to turn it). For an ellipsoid, the faces its body scaled out
  // by those reaches touches (core/body.h).
  void skin_push(ClaimEnds& ends) const {
    const MoveSettings& m = s_.movement;
    const float skin = m.skin + m.backoff;
    const float reach = 4.f * (skin_reach(body_, m.skin) + m.backoff) + skin_reach(body_, m.skin);
    float up = 0.f;
    bool one_plane = true, first = true;
    Vec3 plane;
    const auto offer = [&](std::uint32_t triangle, const Vec3& normal, bool within_skin) {
      if (within_skin) up = std::fmax(up, normal.y);
      const Triangle t = world_.triangle(triangle);
      const Vec3 n = cross(t.v[1] - t.v[0], t.v[2] - t.v[0]);
      const Vec3 unit = n * (1.f / length(n));
      if (first) plane = unit, first = false;
      one_plane = one_plane && dot(unit, plane) >= 0.99999f;
    };
    if (body_.is_capsule()) {
      const Capsule& c = body_.capsule;
      for_each_contact(world_.arrays(), c, reach, [&](std::uint32_t i, const Contact& k) {
        if (k.distance <= c.radius + reach) offer(i, k.normal, k.distance <= c.radius + skin);
        return false;
      }, layers_);
    } else {
      const Ellipsoid in_skin = with_skin(body_, skin).ellipsoid;
      for_each_ellipsoid_touch(world_, with_skin(body_, reach).ellipsoid, [&](std::uint32_t i, const EllipsoidContact&) {
        EllipsoidContact near;
        ellipsoid_triangle_contact(in_skin, world_.triangle(i), near);
        offer(i, near.normal, near.distance <= 1.0);
      }, layers_);
    }
    ends.push_up = up;
    ends.one_plane = one_plane;
  }
  // In the skin of something beside or above it, not only of the ground below: lifted clear of
  // the skin below (by its reach and the backoff), still in a skin.
  bool start_in_skin_sideways() const {
    const MoveSettings& m = s_.movement;
    return in_skin(world_, moved_by(body_, kUp * (skin_reach(body_, m.skin) + m.backoff)), m, layers_);
  }

  // Paths of the solver's own moves from the start to the claimed end, each leg swept with the
  // shrunk body (the straight line was tried first, by the caller):
  //  - walk, then snap or fall: across, then the vertical part;
  //  - rise (or fall), then walk: the vertical part, then across;
  //  - a step: up by the step height (above the end, if higher), across, then down.
  bool bent_path_free() const {
    const Vec3 d = claim_.motion;
    const Vec3 across{d.x, 0, d.z}, vertical{0, d.y, 0};
    if (free({}, across) && free(across, vertical)) return true;
    if (free({}, vertical) && free(vertical, across)) return true;
    const float lift = std::fmax(d.y, 0.f) + s_.movement.step_height;
    if (lift > 0 && s_.movement.step_height > 0) {
      const Vec3 up = kUp * lift;
      if (free({}, up) && free(up, across) && free(up + across, vertical - up)) return true;
    }
    return false;
  }

  // One tick of the solver from the start toward the claim (the claim's horizontal part wanted,
  // its dt and state), alone in the world: where collide-and-slide takes it.
  MoveResult solver_tick() const {
    MoveSettings ms = s_.movement;
    ms.agents_collide = false;
    if (claim_.dt > 0 && claim_.dt <= 10) ms.dt = claim_.dt;  // gravity over the claim's own duration
    const WorldCollider collider(world_, path_, layers_, nullptr, {}, {}, 0);
    Agent agent = agent_at_start(claim_);
    agent.displacement = claim_.motion;
    agent.layers = layers_;
    MoveResult r;
    move_agent(collider, agent, ms, r);
    return r;
  }
  // Whether the straight piece from where the solver ended to the claimed end is free.
  bool free_from(const MoveResult& r) const {
    const Vec3 at = r.shape == AgentShape::ellipsoid ? r.ellipsoid.centre - claim_.ellipsoid.centre : r.capsule.a - claim_.from.a;
    return free(at, claim_.motion - at);
  }

 private:
  // Whether another agent, where it started the tick, comes within `within` of segment a-b.
  bool near_an_agent(const Vec3& a, const Vec3& b, float within) const {
    if (!others_) return false;
    bool met = false;
    others_->grid.for_each_overlapping(swept_bounds({a, b, within}, {}), [&](std::uint32_t j) {
      if (j == self_) return false;
      const Capsule& o = others_->starts[j];
      const ClosestSegmentSegment near = closest_segment_segment(to_double(a), to_double(b), to_double(o.a), to_double(o.b));
      met = length(near.on_first - near.on_second) < double(within) + o.radius;
      return met;
    });
    return met;
  }
  static Body shrunk(const Body& b, float by) {
    if (b.is_capsule()) return Body::of(Capsule{b.capsule.a, b.capsule.b, b.capsule.radius - by});
    const Ellipsoid& e = b.ellipsoid;
    return Body::of(Ellipsoid{e.centre, {e.radii.x - by, e.radii.y - by, e.radii.z - by}});
  }
  bool overlaps(const Body& b, SweepHit& hit) const {
    std::uint32_t triangle;
    bool found;
    if (b.is_capsule()) {
      Contact contact;
      found = world_.deepest_overlap(b.capsule, contact, triangle, layers_);
      if (found) fill(hit, contact, triangle);
    } else {
      EllipsoidContact contact;
      found = deepest_ellipsoid_overlap(world_, b.ellipsoid, contact, triangle, layers_);
      if (found) fill(hit, contact, triangle);
    }
    return found;
  }
  template <class StartContact>
  static void fill(SweepHit& h, const StartContact& contact, std::uint32_t triangle) {
    h = SweepHit{};
    h.hit = true;
    h.t = 0;
    h.normal = contact.normal;
    h.point = contact.point;
    h.depth = contact.depth;
    h.feature = contact.feature;
    h.triangle = triangle;
  }

  const World& world_;
  const ValidateSettings& s_;
  SweepPath path_;
  std::uint32_t layers_;
  const ClaimedMove& claim_;
  Body body_, shrunk_;
  const OtherAgents* others_;
  std::size_t self_;
};

// A claimed displacement as its allowance bounds it: horizontal length and rise, in double.
struct Claimed {
  explicit Claimed(const Vec3& motion)
      : none(motion == Vec3{}), h(std::hypot(double(motion.x), double(motion.z))), dy(motion.y) {}
  bool none;
  double h, dy;
};

// Whether a claimed displacement lies inside its allowance (compared in double, as computed).
// No motion at all always does: the solver holds an agent where it started when its move would
// overlap another agent's (kMoveHeldByAgents), in the air too, and the validator sees no agents.
bool within(const Claimed& c, const MoveAllowance& a) {
  return c.none || (c.h <= a.horizontal && c.dy <= a.up && c.dy >= a.down);
}

// The cheat a claim outside its allowance looks like, and the numbers that decide it.
void name_excess(const Claimed& c, bool walking, bool end_grounded, bool end_touches, Verdict& v) {
  const MoveAllowance& a = v.allowed;
  const double h = c.h, dy = c.dy;
  // Far beyond any allowance (by 1 m and the allowance again): a teleport, whatever its direction.
  const auto beyond = [](double claimed, double limit) { return std::fabs(claimed) > 2 * std::fabs(limit) + 1; };
  if (h > a.horizontal) {
    v.reason = beyond(h, a.horizontal) ? Reason::teleport : Reason::speed;
    v.claimed = float(h), v.limit = a.horizontal;
  } else if (dy > a.up) {
    v.reason = beyond(dy, a.up) ? Reason::teleport
               : !walking       ? Reason::fly
               : end_touches && !end_grounded ? Reason::wall_climb
                                                       : Reason::super_jump;
    v.claimed = float(dy), v.limit = a.up;
  } else {
    v.reason = beyond(dy, a.down) ? Reason::teleport : Reason::fast_fall;
    v.claimed = float(dy), v.limit = a.down;
  }
}

// The state an accepted claim leaves the agent in at its end: on the ground when it ends on
// walkable ground not rising; else in the air, at a vertical speed that is never below the
// solver's (the rule for the next claim's rise, validate.h, needs an upper bound): gravity's from
// a free fall or a walk off a ledge, as the solver integrates it (semi-implicit); 0 where the fall
// met something (the solver zeroes a speed held up by steep faces, kMoveWedged, and the validator
// cannot tell held from turned), and where other agents held it in place; a jump's take-off as
// its rise shows it (`jumped`: a rise from the ground, ending in the air, beyond a walk's on the
// flat; `rise_met`: and it met something on the way).
CarriedState state_at_end(const ClaimedMove& m, const ValidateSettings& s, bool walking, const ClaimEnds& ends,
                          const SweepHit& ground, bool jumped, bool rise_met) {
  const MoveSettings& ms = s.movement;
  const float dt = m.dt > 0 && m.dt <= 10 ? m.dt : ms.dt;
  float v;
  // Ending over ground: standing there, or a jump's first tick still within the probe's reach,
  // which the next claim judges from the ground as a walk that may jump (the same window).
  if (ends.end_grounded) return {0.f, true, ground.triangle};
  if (jumped) {
    // A rise from the ground ending in the air that a jump explains may be one (even where a
    // trough's ramp also would: the walk it exceeds is one on the flat): the speed it shows,
    // semi-implicit as the solver integrates (dy = v1 dt), bounds the solver's from above.
    // A rise that met something (`rise_met`: it slid up along a face or a shoulder) keeps up to
    // 1 / sin^2(max slope) of the speed it shows (core/move.cpp).
    const float sine = std::sin(std::fmin(ms.max_slope_degrees, 90.f) * std::numbers::pi_v<float> / 180.f);
    v = std::fmin(m.motion.y / dt / (rise_met ? std::fmax(sine * sine, 1e-6f) : 1.f), s.jump_speed);
  } else {
    v = (walking ? 0.f : m.vertical_speed) - ms.gravity * dt;
    // Held in place by other agents (no motion), or a fall that met something: the solver's
    // speed may be as high as 0 (kMoveWedged), or its own (held: it keeps what its tick found).
    if (ends.end_touches || m.motion == Vec3{}) v = std::fmax(v, 0.f);
  }
  v = std::fmax(v, -ms.max_fall_speed);
  return {v, false, kNoTriangle};
}

void place(const Body& b, Capsule& capsule, Ellipsoid& ellipsoid) {
  capsule = b.is_capsule() ? b.capsule : bounding_capsule(b.ellipsoid);
  if (!b.is_capsule()) ellipsoid = b.ellipsoid;
}

// A tick's claim on a frame whose instances moved: the part of it the tick's carry pass makes (a
// ride on a lift or a platform, a door's push) taken out, as World::move takes it before the
// agent's own walk; what is left is judged as the agent's own. A crushed agent stays where it was
// (its claim is judged whole, as a move it could not have made). Straight segments are pieces
// of the agent's own walk already (MoveSegments hold no ride).
ClaimedMove after_ride(const World& world, const ClaimedMove& claim, const ValidateSettings& settings,
                       std::uint32_t layers) {
  if (settings.rule != ClaimRule::tick_end || !has_moving_instances(world.arrays())) return claim;
  const InstanceCarry ride = carry_by_instances(world.arrays(), agent_at_start(claim), settings.movement, layers);
  if (ride.crushed || (ride.offset.x == 0 && ride.offset.y == 0 && ride.offset.z == 0)) return claim;
  ClaimedMove rest = claim;
  rest.from = {claim.from.a + ride.offset, claim.from.b + ride.offset, claim.from.radius};
  rest.ellipsoid.centre = claim.ellipsoid.centre + ride.offset;
  rest.motion = claim.motion - ride.offset;
  return rest;
}

void judge_checked(const World& world, const ClaimedMove& m, const ValidateSettings& settings, SweepPath path,
                   std::uint32_t layers, const OtherAgents* others, std::size_t self, Verdict& v);

void judge(const World& world, const ClaimedMove& claim, const ValidateSettings& settings, SweepPath path,
           std::uint32_t batch_layers, const OtherAgents* others, std::size_t self, Verdict& v) {
  const ClaimedMove& m = claim;
  const Body body = body_of(m);
  v = Verdict{};
  v.status = check_body_move(body, m.motion);
  if (v.status == Status::ok && !(std::isfinite(m.dt) && m.dt >= 0 && std::isfinite(m.vertical_speed))) {
    v.status = Status::non_finite_motion;
  }
  if (v.status == Status::ok && !(m.dt <= 1e6f && std::fabs(m.vertical_speed) <= 1e6f)) v.status = Status::out_of_range;
  if (v.status == Status::ok) v.status = check_layers(m.layers, batch_layers);
  const std::uint32_t layers = m.layers & batch_layers;  // what this claim is judged against
  if (v.status != Status::ok) {
    v.kind = VerdictKind::refused;
    v.reason = Reason::bad_input;
    v.legal_fraction = 0;
    v.furthest = v.corrected = body.is_capsule() ? m.from : Capsule{};
    v.furthest_ellipsoid = v.corrected_ellipsoid = body.is_capsule() ? Ellipsoid{} : m.ellipsoid;
    v.next = {m.vertical_speed, m.grounded, m.ground_triangle};
    return;
  }
  judge_checked(world, after_ride(world, claim, settings, layers), settings, path, layers, others, self, v);
}

void judge_checked(const World& world, const ClaimedMove& m, const ValidateSettings& settings, SweepPath path,
                   std::uint32_t layers, const OtherAgents* others, std::size_t self, Verdict& v) {
  const Body body = body_of(m);
  const Judge judge(world, settings, path, layers, m, others, self);
  const Claimed claimed(m.motion);
  std::optional<MoveResult> solver;  // the solver's tick from the start, once run
  const bool tick_end = settings.rule == ClaimRule::tick_end;

  // The straight path first: a sweep reports every start within reach of a triangle at t = 0
  // (core/sweep.cpp, from the same double contact the overlap query rounds), so a start it finds
  // clear overlaps nothing, and the deepest overlap is looked for only where it starts touching.
  v.hit = judge.leg({}, m.motion);
  if (v.hit.hit && v.hit.t == 0 && judge.start_overlaps(v.hit)) {
    v.kind = VerdictKind::start_overlaps;
    v.reason = Reason::start_in_wall;
    v.claimed = v.hit.depth + settings.tolerance, v.limit = settings.tolerance;
    v.legal_fraction = 0;
  } else {
    v.legal_fraction = v.hit.hit ? v.hit.t : 1.f;

    // The ends, as far as the allowance needs them: the cheaper checks first, the looser cases
    // looked for only when the claim is outside the tighter allowance.
    ClaimEnds ends;
    ends.grounded = m.grounded;
    SweepHit ground_end;
    const bool timed = m.dt > 0;
    if (tick_end) ends.end_grounded = judge.ground_at(m.motion, ground_end);
    v.allowed = allowance(m, settings, ends);
    // An agent the server did not call grounded may still stand on the ground (a fall that
    // ended a hair above it): look, as the solver does at the start of its tick.
    SweepHit ground_start;
    if (!ends.grounded && !within(claimed, v.allowed) && judge.ground_at({}, ground_start)) {
      ends.grounded = true;
      v.allowed = allowance(m, settings, ends);
    }
    // A claim ending against a face or an agent, or whose fall would meet one, may have been
    // stopped or turned on the way (held up, or sliding down and off it). Looked for in every
    // timed claim that ends in the air under tick_end, for the state it leaves (state_at_end).
    const bool airborne = !(ends.grounded && m.vertical_speed <= 0);
    const bool ends_in_air = tick_end && timed && !ends.end_grounded;
    if ((ends_in_air || !within(claimed, v.allowed)) && !ends.end_grounded &&
        (judge.end_touches() || (timed && airborne && judge.fall_meets_something(m.dt)))) {
      ends.end_touches = true;
      v.allowed = allowance(m, settings, ends);
    }
    // A start inside the skin the solver keeps from surfaces: it lifts the agent back out.
    // Agents rest skin + backoff away; halfway to that still counts as inside (rounding), an
    // agent at rest does not (else every resting claim would get the push as slack).
    if (!within(claimed, v.allowed) && judge.start_in_skin()) {
      ends.in_skin = true;
      judge.skin_push(ends);
      v.allowed = allowance(m, settings, ends);
      if (!within(claimed, v.allowed) && judge.start_in_skin_sideways()) {
        ends.in_skin_sideways = true;
        v.allowed = allowance(m, settings, ends);
      }
    }
    v.grounded = ends.grounded;
    v.in_skin = ends.in_skin;
    const bool walking = ends.grounded && m.vertical_speed <= 0;

    if (!within(claimed, v.allowed)) {
      v.kind = VerdictKind::too_fast;
      name_excess(claimed, walking, ends.end_grounded, !ends.end_grounded && judge.end_touches(), v);
      // A drop beyond the window through geometry (the straight path blocked on the way down)
      // ends under the map: that, not its speed, is what it is.
      if ((v.reason == Reason::fast_fall || v.reason == Reason::teleport) && v.claimed < 0 && v.hit.hit &&
          v.hit.normal.y > 0.5f) {
        v.kind = VerdictKind::blocked;
        v.reason = Reason::under_the_map;
        v.claimed = 1.f, v.limit = v.legal_fraction;
      }
    } else if (!v.hit.hit) {
      v.kind = VerdictKind::ok;
    } else if (!tick_end) {
      v.kind = VerdictKind::blocked;
      v.reason = Reason::noclip;
    } else if (SweepHit inside; judge.end_overlaps(inside)) {
      // Ending inside geometry: a floor's or a ceiling's is under the map, a wall's noclip.
      v.kind = VerdictKind::blocked;
      v.reason = std::fabs(inside.normal.y) > 0.5f ? Reason::under_the_map : Reason::noclip;
    } else if (judge.bent_path_free()) {
      v.kind = VerdictKind::ok;
    } else {
      solver = judge.solver_tick();
      if (judge.free_from(*solver)) {
        v.kind = VerdictKind::ok;
      } else {
        v.kind = VerdictKind::blocked;
        // Blocked and ending below everything there is: under the map, not through a wall.
        v.reason = bottom(moved_by(body, m.motion)) < world.bounds().min.y ? Reason::under_the_map : Reason::noclip;
      }
    }
    if (v.kind == VerdictKind::blocked) v.claimed = 1.f, v.limit = v.legal_fraction;
    if (v.kind == VerdictKind::ok && !tick_end) {
      // A client that sends its segments carries its own tick's state: passed through.
      v.next = {m.vertical_speed, m.grounded, m.ground_triangle};
    } else if (v.kind == VerdictKind::ok) {
      // A walk's rise on the flat, which only a jump exceeds (asked only where one may be).
      MoveAllowance walked;
      const bool may_jump = walking && settings.jump_speed > 0 && !ends.end_grounded;
      if (may_jump) {
        ValidateSettings no_jump = settings;
        no_jump.jump_speed = 0;
        ClaimedMove flat = m;
        flat.motion.x = flat.motion.z = 0;  // no ramp
        ClaimEnds open = ends;
        open.end_grounded = open.end_touches = false;  // no step, no trough
        walked = allowance(flat, no_jump, open);
      }
      const bool jumped = may_jump && m.motion.y > walked.up;
      const bool rise_met = jumped && (ends.end_touches || judge.end_touches() || judge.passes_an_agent(m.motion.y));
      v.next = state_at_end(m, settings, walking, ends, ground_end, jumped, rise_met);
    }
  }
  place(moved_by(body, m.motion * v.legal_fraction), v.furthest, v.furthest_ellipsoid);
  if (v.kind == VerdictKind::ok) {
    place(moved_by(body, m.motion), v.corrected, v.corrected_ellipsoid);
    return;
  }
  // Where the agent would have got: one tick of the movement solver on the claim (the one the
  // path search ran, if it ran one).
  const MoveResult r = solver ? *solver : judge.solver_tick();
  v.corrected = r.capsule;
  v.corrected_ellipsoid = r.ellipsoid;
  v.next = {r.vertical_speed, r.grounded, r.ground_triangle};
}

}  // namespace

const char* name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::ok: return "ok";
    case VerdictKind::blocked: return "blocked";
    case VerdictKind::start_overlaps: return "start_overlaps";
    case VerdictKind::too_fast: return "too_fast";
    case VerdictKind::refused: return "refused";
  }
  return "?";
}

const char* name(Reason reason) {
  switch (reason) {
    case Reason::none: return "none";
    case Reason::speed: return "speed";
    case Reason::teleport: return "teleport";
    case Reason::fly: return "fly";
    case Reason::super_jump: return "super_jump";
    case Reason::wall_climb: return "wall_climb";
    case Reason::fast_fall: return "fast_fall";
    case Reason::noclip: return "noclip";
    case Reason::under_the_map: return "under_the_map";
    case Reason::start_in_wall: return "start_in_wall";
    case Reason::bad_input: return "bad_input";
  }
  return "?";
}

void World::validate(std::span<const ClaimedMove> moves, const ValidateSettings& settings, std::span<Verdict> verdicts,
                     const BatchOptions& options) const {
  if (verdicts.size() != moves.size()) throw std::invalid_argument("World::validate: moves and verdicts differ in size");
  if (std::string why = check_settings(settings); !why.empty()) throw std::invalid_argument("World::validate: " + why);
  // The tolerance must leave a body to sweep: an error of the settings, not a verdict on a claim.
  if (std::string why = check_claims(moves, settings); !why.empty()) throw std::invalid_argument("World::validate: " + why);
  const SweepPath path = options.path == SweepPath::simd ? SweepPath::simd : SweepPath::scalar;
  OtherAgents others;
  const bool agents = settings.movement.agents_collide && moves.size() > 1;
  if (agents) {
    others.starts.resize(moves.size());
    others.agents.reserve(moves.size());
    for (std::size_t i = 0; i < moves.size(); ++i) {
      Agent a;
      a.capsule = moves[i].from;
      a.shape = moves[i].shape;
      a.ellipsoid = moves[i].ellipsoid;
      a.id = std::uint32_t(i);
      others.starts[i] = start_capsule(a);
      others.agents.push_back(a);
    }
    others.grid.build(others.starts);
  }
  parallel::StopCheck stop(options.stop);
  parallel::in_arena(options.threads, [&] {
    parallel::for_ranges<std::size_t>(0, moves.size(), 16, [&](const auto& range) {
      for (std::size_t i = range.begin(); i != range.end(); ++i) {
        if (stop.before(i)) return;
        judge(*this, moves[i], settings, path, options.layers, agents ? &others : nullptr, i, verdicts[i]);
      }
    });
  });
  stop.throw_if_stopped<Cancelled>("World::validate");
}

}  // namespace capsweep
