#include "core/move.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <new>
#include <numbers>
#include <type_traits>

#include "core/assert.h"

namespace capsweep {

namespace {

using detail::Step;

// The scratch traces of traced ticks (a walk's, a step's and a snap's: what a stage may not
// keep), recycled per thread as coroutine frames are (solver_step.h). Every crowd traces
// (tools/crowd.h: its falls are classified from the segments), and a 2 KB trace allocated,
// zeroed and freed per walk and snap was 4.4 % of World::move's instructions on the dungeon's
// crowd (callgrind). Only count is reset: nothing reads a trace past its count. A thread keeps
// at most kKeep, about 330 KB (a worker has up to 64 ticks in flight, each with at most two
// alive); more go back to the heap.
class TraceCache {
 public:
  struct Release {
    void operator()(MoveSegments* trace) const noexcept { TraceCache::release(trace); }
  };
  using Trace = std::unique_ptr<MoveSegments, Release>;

  static Trace take() {
    TraceCache* cache = detail::ThreadCache<TraceCache>::get();
    if (cache && cache->count_ > 0) {
      MoveSegments* trace = cache->kept_[--cache->count_];
      trace->count = 0;
      return Trace(trace);
    }
    return Trace(new MoveSegments);
  }

  ~TraceCache() {
    while (count_ > 0) delete kept_[--count_];
  }

 private:
  static constexpr int kKeep = 160;

  static void release(MoveSegments* trace) noexcept {
    TraceCache* cache = detail::ThreadCache<TraceCache>::get();
    if (!cache || cache->count_ == kKeep) return delete trace;
    cache->kept_[cache->count_++] = trace;
  }

  MoveSegments* kept_[kKeep];
  int count_ = 0;
};
using ScratchTrace = TraceCache::Trace;

constexpr Vec3 kUp{0, 1, 0};

Vec3 horizontal(const Vec3& v) { return {v.x, 0, v.z}; }

// Clipped motions lean off their planes by this fraction of their length, so that float
// rounding leaves them parallel-or-away (the sweep passes those) and never slightly into a plane.
constexpr float kLean = 2e-6f;

// The plane solver of one pass: the planes hit so far and the motion clipped against them
// (after Quake's PM_SlideMove and box2d's b2SolvePlanes, reduced to what a capsule needs).
class PlaneSet {
 public:
  // `max_descent`: the sine of the steepest walkable slope.
  explicit PlaneSet(float max_descent) : max_descent_(max_descent) {}

  // Clips `motion` after a hit on a plane with normal m. Returns false when the motion must
  // stop: a third plane, or two planes that pinch the body (their normals more than 120 degrees
  // apart: see kPinch).
  // `lift` (metres) moves the motion off the plane by at least that much: a start inside the
  // skin (see Solver::skin_deficit) leaves it along the slide instead of riding it.
  // `face`: a steep world face's own normal when a walk levelled it into m (a wall), else zero.
  bool clip(Vec3& motion, const Vec3& m, const Vec3& face, bool keep_horizontal_speed, float lift) {
    // The same plane met again (walking on along a ramp): still one plane.
    if (count_ > 0 && dot(m, plane_[count_ - 1]) > 0.99999f) --count_;
    if (count_ == 2) return stop();  // three planes: a corner; stopping is the only stable answer
    plane_[count_] = m;
    face_[count_] = face;
    ground_[count_++] = keep_horizontal_speed && m.y > 0;
    const float len = length(motion);
    // One plane: slide along it. On walkable ground walking keeps its horizontal speed (the
    // motion is lifted onto the plane vertically) so ramps do not slow agents down.
    Vec3 along = ground_[count_ - 1] ? on_ground(motion, m) : motion - m * dot(motion, m);
    // A wall (or an agent) met while walking on walkable ground: levelling it keeps the rise the
    // ground gave the motion's whole horizontal part, which the wall has just cut short, so what
    // is left would climb the wall (a 45 degree ramp into a 60 degree face rose 17 cm for 3 cm
    // across). The rise follows the ground along what is left instead.
    if (count_ == 2 && m.y == 0 && ground_[0]) along = on_ground(along, plane_[0]);
    if (count_ == 1 || dot(along, plane_[0]) >= 0) {
      // It leaves the first plane: forget it.
      if (count_ == 2) plane_[0] = m, face_[0] = face, ground_[0] = ground_[1], count_ = 1;
      motion = along + m * std::fmax(kLean * len, lift);
      return true;
    }
    // Two steep faces whose own crease is no steeper than a walkable slope (a trough, the
    // crevice that holds a wedged body): walked like a walkable slope, keeping the motion's
    // horizontal progress along it, where their levelled walls would have stopped it.
    if (face_[0] != Vec3{} && face != Vec3{}) {
      const Vec3 trough = cross(face_[0], face);
      const Vec3 level{trough.x, 0, trough.z};
      const float level_sq = length_sq(level);
      if (level_sq > 1e-12f && std::fabs(trough.y) <= max_descent_ * length(trough)) {
        const float facing = std::fmax(1.f + dot(face_[0], face), kPinch);
        motion = trough * (dot(motion, level) / level_sq) + (face_[0] + face) * (std::fmax(kLean * len, lift) / facing);
        return true;
      }
    }
    // Two planes and the slide along the newer runs into the older: follow their crease.
    const Vec3 crease = cross(plane_[0], m);
    const float crease_sq = length_sq(crease);
    const float facing = 1.f + dot(plane_[0], m);
    if (!(crease_sq > 1e-12f) || facing < kPinch) return stop();
    motion = crease * (dot(motion, crease) / crease_sq) + (plane_[0] + m) * (std::fmax(kLean * len, lift) / facing);
    return true;
  }

  // Whether the planes met hold a falling body up: it was stopped by two or three of them, or
  // the crease of two runs down no steeper than a walkable slope (which would hold it as such a
  // slope does). A V-shaped crevice, a body between a slope and a wall. Jolt's CharacterVirtual
  // asks the same question (is a downward motion blocked by the steep contacts together?) by
  // solving its contact constraints for it.
  bool hold_up() const {
    if (stopped_) return true;
    if (count_ < 2) return false;
    const Vec3 crease = cross(plane_[0], plane_[1]);
    return std::fabs(crease.y) <= max_descent_ * length(crease);
  }
  // The normal a held body rests on: the planes' normals together.
  Vec3 support_normal() const {
    const Vec3 sum = count_ == 2 ? plane_[0] + plane_[1] : plane_[0];
    return sum / length(sum);
  }

 private:
  // Two planes whose normals are more than 120 degrees apart (a pinch between a wall and an
  // agent, a narrow V) leave almost no room along their crease, and the lift that keeps the body
  // off both grows as 1/sqrt(1 + n0.n1): past this it would be more than twice the lift off one
  // plane, so that rounding inside the skin could throw the body along the crease faster than it
  // walks. Stopping is the stable answer.
  static constexpr float kPinch = 0.5f;

  bool stop() {
    stopped_ = true;
    return false;
  }

  // The motion lifted (or lowered) onto walkable plane m vertically: its horizontal part kept.
  static Vec3 on_ground(const Vec3& motion, const Vec3& m) {
    return {motion.x, -(m.x * motion.x + m.z * motion.z) / m.y, motion.z};
  }

  float max_descent_;
  Vec3 plane_[2];
  Vec3 face_[2];
  bool ground_[2] = {false, false};  // walkable ground the walk keeps its horizontal speed on
  int count_ = 0;
  bool stopped_ = false;
};

enum class Pass { walk, fall };

struct PassOutcome {
  bool find_steps = false;  // a walk asks whether its steep contacts could be steps (could_be_step)
  bool hit_steep = false;   // a walk hit world geometry too steep to walk that could be a step
  bool landed = false;     // a fall reached walkable ground
  bool held = false;       // a fall was held up by steep planes together (PlaneSet::hold_up)
  bool met = false;        // the pass met something (a face or an agent) on its way
  MoveHit ground;
  Vec3 ground_normal;
};

class Solver {
 public:
  Solver(const MoveCollider& world, const MoveSettings& s, MoveResult& result, MoveSegments* segments,
         MoveInFlight::Wait& wait)
      : world_(world), s_(s), result_(result), segments_(segments), wait_(wait),
        min_up_(std::cos(s.max_slope_degrees * std::numbers::pi_v<float> / 180.f)),
        max_descent_(std::sin(s.max_slope_degrees * std::numbers::pi_v<float> / 180.f)) {}

  // Every stage that sweeps the world is a detail::Step: it waits at each sweep (co_await
  // sweep(...)) until the driver answers it (MoveInFlight).
  Step<void> run(const Agent& agent) {
    const Body start = body_of(agent);
    Body c = start;
    skin_reach_ = skin_reach(c, s_.skin);
    depenetrate(c);

    MoveHit ground;
    Vec3 ground_normal;
    const bool carried = carried_ground(agent, c, ground, ground_normal);
    bool grounded_at_start = carried;
    if (!grounded_at_start) grounded_at_start = co_await probe_ground(c, s_.ground_distance, ground, ground_normal);
    float vertical_speed = agent.vertical_speed;
    if (grounded_at_start && vertical_speed <= 0) vertical_speed = 0;

    const Vec3 walk = horizontal(agent.displacement);
    const float wanted = length(walk);
    if (wanted >= s_.min_distance) co_await walk_or_step(c, walk, grounded_at_start && vertical_speed == 0);

    bool grounded = false;
    if (grounded_at_start && vertical_speed == 0) {
      grounded = carried && stays_on(c, ground, ground_normal);
      if (!grounded) grounded = co_await snap(c, start, walk, ground, ground_normal);
    }
    if (!grounded) {
      vertical_speed = std::fmax(vertical_speed - s_.gravity * s_.dt, -s_.max_fall_speed);
      PassOutcome fall;
      const float fall_from = position(c).y;
      if (vertical_speed != 0) co_await slide_pass(c, kUp * (vertical_speed * s_.dt), Pass::fall, fall, segments_);
      if (fall.landed) {
        grounded = true;
        ground = fall.ground;
        ground_normal = fall.ground_normal;
        vertical_speed = 0;
      } else if (fall.held) {
        // Wedged: steep faces together hold it up. It stops gaining fall speed (the next tick
        // falls from rest, a few millimetres, and is held again) but is not on walkable ground,
        // so it neither steps nor snaps: it walks out the way it came.
        vertical_speed = 0;
        result_.flags |= kMoveWedged;
        result_.ground_normal = fall.ground_normal;
      } else if (fall.met) {
        // A fall (or a rise) turned by what it met keeps no more speed than its motion shows:
        // sliding along a face (or a crease) too steep to stand on goes at least sin^2(max
        // slope) of the way gravity drives it, so a real slide keeps its speed, while a fall
        // thrown between steep faces or lifted out of their skin no longer gathers speed in
        // place (it reached terminal speed there and turned it into sideways jumps), and a jump
        // that meets a ceiling stops rising instead of sliding along under it.
        const float shown = (position(c).y - fall_from) / s_.dt / std::fmax(max_descent_ * max_descent_, 1e-6f);
        vertical_speed = vertical_speed < 0 ? std::fmax(vertical_speed, std::fmin(shown, -s_.gravity * s_.dt))
                                            : std::fmin(vertical_speed, std::fmax(shown, 0.f));
      }
      if (!grounded && !fall.held && vertical_speed <= 0) {
        // A fall that ended a hair above walkable ground without touching it: the next tick's
        // probe finds that ground and stands on it, so say so now. `grounded` then always means
        // what the next tick will start from, which a server validating moves relies on.
        const bool below = co_await probe_ground(c, s_.ground_distance, ground, ground_normal);
        if (below) {
          grounded = true;
          vertical_speed = 0;
        }
      }
    }

    result_.capsule = agent_capsule(c);
    result_.shape = c.shape;
    if (!c.is_capsule()) result_.ellipsoid = c.ellipsoid;
    result_.moved = position(c) - position(start);
    result_.vertical_speed = vertical_speed;
    result_.grounded = grounded;
    if (grounded) {
      result_.ground_normal = ground_normal;
      result_.ground_triangle = ground.hit.triangle;
    } else if (!(result_.flags & kMoveWedged)) {
      result_.flags |= kMoveFalling;
    }
    if (wanted >= s_.min_distance && dot(horizontal(result_.moved), walk) < 0.9f * wanted * wanted) {
      result_.flags |= kMoveBlocked;
    }
  }

 private:
  // Stage 1: a start inside geometry is pushed out along the discrete penetration normal, the
  // deepest overlap first, a bounded number of times, and a skin beyond (for an ellipsoid, as far
  // as its skin reaches). Pushes are not travel (no segment).
  void depenetrate(Body& c) {
    for (int i = 0; i < s_.max_depenetration_iterations; ++i) {
      MoveOverlap contact;
      if (!world_.deepest_overlap(c, contact)) return;
      const float push = contact.depth + skin_reach_;
      c = moved_by(c, contact.normal * push);
      result_.pushed += push;
      result_.flags |= kMoveDepenetrated;
    }
  }

  // Stage 2: is there walkable ground within `distance` below?
  Step<bool> probe_ground(const Body& c, float distance, MoveHit& ground, Vec3& normal) {
    ground = co_await sweep(c, kUp * -distance);
    co_return supports(c, kUp * -distance, ground, normal);
  }

  // Stage 2, cheaper: the triangle the agent stood on at the end of the last tick, checked as
  // the probe would see it. The probe's sweep would find the first hit below, so this agrees
  // with it whenever nothing else lies between the body and that triangle within the ground
  // distance; where something does (another surface a few centimetres under the body), the
  // agent is told grounded a tick earlier or later than the probe would say, and the snap or
  // the fall that follows settles it. A pushed start has moved: no carrying.
  bool carried_ground(const Agent& agent, const Body& c, MoveHit& ground, Vec3& normal) {
    if (agent.ground_triangle == kNoTriangle || result_.pushed != 0) return false;
    const Vec3 down = kUp * -s_.ground_distance;
    world_.sweep_triangle(with_skin(c, s_.skin), down, agent.ground_triangle, ground);
    return supports(c, down, ground, normal);
  }

  // Stage 3: walk. Collide-and-slide; if an obstacle that could be a step blocked a grounded
  // agent, also try up / forward / down and keep whichever got further.
  Step<void> walk_or_step(Body& c, Vec3 walk, bool grounded) {
    const Body start = c;
    // Scratch traces only when tracing: a stage's locals live in its coroutine frame, where
    // constructing two unused 2 KB traces per walk cost 3 % of a crowd's tick.
    const ScratchTrace plain_trace = scratch_trace();
    PassOutcome plain;
    plain.find_steps = grounded && s_.step_height > 0;
    co_await slide_pass(c, walk, Pass::walk, plain, plain_trace.get());
    if (plain.hit_steep) {
      // A refused step leaves no contacts behind (its sweeps still count).
      const std::uint8_t contact_count = result_.contact_count;
      MoveContact contacts[kMaxMoveContacts];
      std::copy(std::begin(result_.contacts), std::end(result_.contacts), contacts);
      const ScratchTrace step_trace = scratch_trace();
      Body stepped = start;
      const Vec3 dir = walk / length(walk);
      const bool stepped_up = co_await step_up(stepped, walk, step_trace.get());
      if (stepped_up && within_wanted(position(stepped) - position(start), walk) &&
          dot(position(stepped) - position(start), dir) > dot(position(c) - position(start), dir) + s_.min_distance) {
        c = stepped;
        result_.flags |= kMoveSteppedUp;
        if (segments_) append(*step_trace);
        co_return;
      }
      result_.contact_count = contact_count;
      std::copy(std::begin(contacts), std::end(contacts), result_.contacts);
    }
    // A slide thrown further than wanted (planes the pinch rule let through, lifts adding up)
    // is not kept: the agent stays where it was, which its last tick left clear.
    if (!within_wanted(position(c) - position(start), walk)) {
      c = start;
      co_return;
    }
    if (segments_) append(*plain_trace);
  }

  Step<bool> step_up(Body& c, Vec3 walk, MoveSegments* t) {
    const float feet = bottom(c);
    const Vec3 up = kUp * s_.step_height;
    const MoveHit ceiling = co_await sweep(c, up);  // a ceiling stops the lift
    const float lift = s_.step_height * (ceiling.hit.hit ? advance(c, up, ceiling, t) : 1.f);
    if (!ceiling.hit.hit) travel(c, up, t);
    if (lift < s_.min_distance) co_return false;
    PassOutcome forward;
    co_await slide_pass(c, walk, Pass::walk, forward, t);
    const Vec3 down = kUp * -(lift + s_.snap_distance);
    const MoveHit land = co_await sweep(c, down);
    Vec3 normal;
    if (!land.hit.hit || land.hit.t == 0.f || !supports(c, down, land, normal)) co_return false;
    // A step is what the feet can reach: landing on a rim higher than that (hanging on the
    // edge of a ledge, lifted by the rounded bottom) is no step.
    if (land.hit.point.y > feet + s_.step_height + skin_reach_) co_return false;
    advance(c, down, land, t);
    co_return true;
  }

  // Stage 4: follow the ground down (stairs, slopes) up to the snap distance: a fall pass
  // (sliding off rims on the way) that only counts if it lands.
  // A snap that slides off a rim sideways is refused when it would take the tick's horizontal
  // move outside what was wanted (within_wanted): the agent then falls off that rim at gravity's
  // pace instead of being thrown along it in one tick.
  Step<bool> snap(Body& c, const Body& start, const Vec3& walk, MoveHit& ground, Vec3& normal) {
    const float reach = std::fmax(s_.snap_distance, s_.ground_distance);
    Body snapped = c;
    const ScratchTrace local = scratch_trace();
    PassOutcome fall;
    co_await slide_pass(snapped, kUp * -reach, Pass::fall, fall, local.get());
    if (!fall.landed) co_return false;
    if (!within_wanted(position(snapped) - position(start), walk)) co_return false;
    if (position(c).y - position(snapped).y > s_.skin) result_.flags |= kMoveSnapped;
    c = snapped;
    if (segments_) append(*local);
    ground = fall.ground;
    normal = fall.ground_normal;
    co_return true;
  }

  // Stage 4, cheaper: an agent that carried its ground and, where the walk left it, still stands
  // on that triangle no further than the backoff above its skin (flat ground, a walk along a
  // slope's plane) would not move in the snap: the snap's pass would land there at once and back
  // off as far as it came. Checked by one sweep against that triangle alone, as the carried ground
  // is. The agent does not move, so the clearance the walk left stays; the snap's world sweep
  // could only have met another surface first within that backoff, a tie at a seam or the rim
  // of a steeper face (measured with the carried ground: tests/broadphase/carried_ground_test.cpp).
  bool stays_on(const Body& c, MoveHit& ground, Vec3& normal) {
    const Vec3 down = kUp * -std::fmax(s_.snap_distance, s_.ground_distance);
    MoveHit h;
    world_.sweep_triangle(with_skin(c, s_.skin), down, ground.hit.triangle, h);
    if (!h.hit.hit || h.hit.t == 0.f) return false;
    // The snap would leave it here to the bit: its advance is 0, or rounds away in float.
    const float fraction = advance_fraction(down, h);
    if (fraction > 0 && !unmoved_by(c, down * fraction)) return false;
    if (!supports(c, {}, h, normal)) return false;
    ground = h;
    return true;
  }

  // The bound on a grounded tick's horizontal move: no further than the wanted walk, and never
  // against it, by more than the skin restorations of one tick can push (restore_skin's longest
  // push, 4 (skin reach + backoff): 6 cm at the defaults).
  bool within_wanted(const Vec3& moved, const Vec3& walk) const {
    const float slack = 4.f * (skin_reach_ + s_.backoff);
    const Vec3 h = horizontal(moved);
    const float wanted = length(walk);
    if (length(h) > wanted + slack) return false;
    return !(wanted > 0) || dot(h, walk) >= -slack * wanted;
  }

  static bool unmoved_by(const Body& c, const Vec3& d) {
    const Body m = moved_by(c, d);
    return c.is_capsule() ? m.capsule.a == c.capsule.a && m.capsule.b == c.capsule.b : m.ellipsoid.centre == c.ellipsoid.centre;
  }

  // One collide-and-slide pass: sweep, advance to the contact (the sweep uses the body grown by
  // the skin, so the agent stops one skin short), clip the rest of the motion against the planes
  // hit, repeat.
  Step<void> slide_pass(Body& c, Vec3 motion, Pass pass, PassOutcome& out, MoveSegments* trace) {
    PlaneSet planes(max_descent_);
    for (int i = 0; i < s_.max_iterations; ++i) {
      if (!(length(motion) >= s_.min_distance)) co_return;
      // Walking along a slope follows its plane, which ends somewhere: go at most one radius
      // along it before looking again, so a long step cannot run off the top of a ramp into
      // the air (the rest waits, level, for the next iteration; the snap covers the overshoot).
      Vec3 later;
      if (pass == Pass::walk && motion.y != 0) {
        const float len = length(motion), radius = side_radius(c);
        if (len > radius) {
          later = horizontal(motion) * (1.f - radius / len);
          motion = motion * (radius / len);
        }
      }
      const MoveHit h = co_await sweep(c, motion);
      if (!h.hit.hit) {
        travel(c, motion, trace);
        motion = later;
        if (later == Vec3{}) co_return;
        continue;
      }
      out.met = true;
      const Vec3 rest = motion * (1.f - advance(c, motion, h, trace));
      motion = rest + later;
      Vec3 ground_normal;
      const bool is_agent = h.agent != kNoAgent;
      if (pass == Pass::fall && supports(c, {}, h, ground_normal)) {
        co_await restore_skin(c, h, trace);
        out.landed = true;  // ground is reported as ground, not as a contact
        out.ground = h;
        out.ground_normal = ground_normal;
        co_return;
      }
      add_contact(h);
      const Vec3 face = h.hit.normal;
      Vec3 n = face;
      bool walkable_plane = false, levelled = false;
      if (pass == Pass::walk) {
        walkable_plane = !is_agent && n.y >= min_up_;
        if (!walkable_plane) {
          // Too steep to walk (or another agent): a wall. Clipping against its horizontal
          // normal keeps the slide level, so steep surfaces are never climbed by sliding.
          // Agents are not climbed: no step for them.
          if (out.find_steps && !out.hit_steep && !is_agent) out.hit_steep = could_be_step(c, rest, h);
          const Vec3 w = horizontal(n);
          if (length_sq(w) > 1e-8f) n = w / length(w), levelled = !is_agent;
        }
      }
      const bool slides = planes.clip(motion, n, levelled ? face : Vec3{}, walkable_plane, skin_deficit(h));
      if (pass == Pass::fall && planes.hold_up()) {
        out.held = true;
        out.ground_normal = planes.support_normal();
      }
      if (!slides || out.held) {
        // Stopped where the sweep started inside the skin (rounding's drift, in a corner or a
        // pinch the lift could not leave along): push back out before the pass ends, so that
        // no deficit outlives the tick that met it.
        if (skin_deficit(h) > 0) co_await restore_skin(c, h, trace);
        co_return;
      }
    }
  }

  // Whether a steep contact that stopped `rest` of a walk could be a step: lifted by the step
  // height, the body no longer meets that triangle on the same way. If it still does (a wall,
  // a steep slope, a box higher than a step), the step-up would be stopped there too: trying it
  // would cost three or more world sweeps to be refused.
  bool could_be_step(const Body& c, const Vec3& rest, const MoveHit& h) const {
    MoveHit again;
    world_.sweep_triangle(with_skin(moved_by(c, kUp * s_.step_height), s_.skin), rest, h.hit.triangle, again);
    return !again.hit.hit;
  }

  // Whether the hit of `c` moving by `motion` is ground to stand on. A contact normal too
  // steep to walk still counts on the rim of a walkable face (the top of a step touched by the
  // rounded bottom) if the rim lies under the body: within 0.9 radius of the axis (an
  // ellipsoid: 0.9 of its horizontal radii from the centre), horizontally.
  bool supports(const Body& c, const Vec3& motion, const MoveHit& h, Vec3& normal) const {
    if (!h.hit.hit || !world_.walkable(h, min_up_, normal)) return false;
    if (h.hit.normal.y >= min_up_) return true;
    return under_body(c, motion * h.hit.t, h.hit.point, 0.81f);
  }

  // A world sweep of the body grown by the skin: the tick waits here for the driver's answer.
  struct SweepAwait {
    MoveInFlight::Wait& wait;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> tick) noexcept { wait.resume = tick; }
    MoveHit await_resume() const noexcept { return wait.answer; }
  };
  SweepAwait sweep(const Body& c, const Vec3& motion) {
    ++result_.sweeps;
    wait_.body = with_skin(c, s_.skin);
    wait_.motion = motion;
    return {wait_};
  }

  // How far a start contact lies inside the skin, plus the backoff: the lift that takes the
  // agent back out (0 for a contact met on the way or a real overlap, depenetration's case).
  float skin_deficit(const MoveHit& h) const {
    return h.hit.t == 0 && h.hit.depth > 0 && h.hit.depth <= skin_reach_ ? h.hit.depth + s_.backoff : 0.f;
  }

  // Far from the origin float positions round by up to half an ulp per tick (0.25 mm at
  // 5 km), and an agent riding a slope or a crease can drift into its skin a little every
  // tick. A sweep that starts inside the skin reports how far (depth = skin deficit): push back
  // out by that plus the backoff, as a swept move, so drift never builds up. When the push is
  // stopped at once by another surface whose skin the agent is also inside (a crease), the
  // push is recomputed to leave both (the shortest vector p with p . n_i = need_i); when it is
  // stopped on the way by a surface outside the skin (a wall beside a slope), to keep clear of
  // that one (need = 0, plus a lean).
  Step<void> restore_skin(Body& c, MoveHit h, MoveSegments* trace) {
    if (h.hit.t != 0 || !(h.hit.depth > 0) || h.hit.depth > skin_reach_) co_return;  // deeper: depenetration's case
    Vec3d n[3];
    double need[3];
    int count = 0;
    n[count] = to_double(h.hit.normal);
    need[count++] = double(h.hit.depth) + s_.backoff;
    for (;;) {
      Vec3d push;
      if (count == 1) {
        push = n[0] * need[0];
      } else if (count == 2) {
        const double k = dot(n[0], n[1]), det = 1 - k * k;
        if (!(det > 1e-6)) co_return;
        push = n[0] * ((need[0] - k * need[1]) / det) + n[1] * ((need[1] - k * need[0]) / det);
      } else {
        // Three planes: p = sum of need_i * (n_j x n_k) / (n_i . (n_j x n_k)).
        const double det = dot(n[0], cross(n[1], n[2]));
        if (!(std::fabs(det) > 1e-6)) co_return;
        push = (cross(n[1], n[2]) * need[0] + cross(n[2], n[0]) * need[1] + cross(n[0], n[1]) * need[2]) / det;
      }
      if (!(length(push) <= 4.0 * (skin_reach_ + s_.backoff))) co_return;
      const Vec3 p = to_float(push);
      const MoveHit block = co_await sweep(c, p);
      if (!block.hit.hit) {
        travel(c, p, trace);
        co_return;
      }
      const bool inside_skin = block.hit.t == 0 && block.hit.depth > 0 && block.hit.depth <= skin_reach_;
      if (count == 3 || !(inside_skin || block.hit.t > 0)) {
        advance(c, p, block, trace);
        co_return;
      }
      // A surface inside the skin too: leave it as well. A surface met on the way (a wall beside
      // the slope the agent drifted into): keep its distance, sliding out along it, leaning off
      // it by a hair so that float rounding never turns the push into it.
      n[count] = to_double(block.hit.normal);
      need[count++] = inside_skin ? double(block.hit.depth) + s_.backoff : double(kLean) * need[0];
    }
  }

  // Moves to a hit, then back along the way it came until the hit surface is `backoff`
  // beyond the skin (the distance grows at least as fast as the cosine of the approach: it is
  // convex along the path). Returns the fraction of `motion` travelled.
  float advance(Body& c, const Vec3& motion, const MoveHit& h, MoveSegments* trace) const {
    const float fraction = advance_fraction(motion, h);
    if (fraction > 0) travel(c, motion * fraction, trace);
    return fraction;
  }

  float advance_fraction(const Vec3& motion, const MoveHit& h) const {
    const float len = length(motion);
    const float approach = -dot(h.hit.normal, motion) / len;  // cosine, > 0 for a hit moved into
    const float reached = h.hit.t * len;
    const float back = approach > 0 ? std::fmin(s_.backoff / approach, reached) : 0.f;
    return (reached - back) / len;
  }

  static void travel(Body& c, const Vec3& motion, MoveSegments* trace) {
    if (trace && trace->count < MoveSegments::kMax) {
      trace->segment[trace->count++] = {agent_capsule(c), motion, c.is_capsule() ? Ellipsoid{} : c.ellipsoid};
    }
    c = moved_by(c, motion);
  }

  // Where a stage traces what it may not keep (a walk, a step, a snap), when tracing.
  ScratchTrace scratch_trace() const { return segments_ ? TraceCache::take() : ScratchTrace(); }

  void append(const MoveSegments& more) {
    for (int i = 0; i < more.count && segments_->count < MoveSegments::kMax; ++i) {
      segments_->segment[segments_->count++] = more.segment[i];
    }
  }

  void add_contact(const MoveHit& h) {
    for (int i = 0; i < result_.contact_count; ++i) {
      const MoveContact& k = result_.contacts[i];
      if (k.triangle == h.hit.triangle && k.agent == h.agent) return;
    }
    if (result_.contact_count == kMaxMoveContacts) return;
    result_.contacts[result_.contact_count++] = {h.hit.point, h.hit.normal, h.agent == kNoAgent ? h.hit.triangle : kNoTriangle,
                                                 h.agent};
  }

  const MoveCollider& world_;
  const MoveSettings& s_;
  MoveResult& result_;
  MoveSegments* segments_;
  MoveInFlight::Wait& wait_;
  const float min_up_;
  const float max_descent_;  // sine of the steepest walkable slope: a crease no steeper holds a body
  float skin_reach_ = 0.f;  // how far the skin reaches beyond this agent's body (skin_reach)
};

static_assert(sizeof(Solver) <= sizeof(MoveInFlight::SolverBytes) && alignof(Solver) <= alignof(MoveInFlight::SolverBytes),
              "MoveInFlight holds the solver of its tick");
static_assert(std::is_trivially_destructible_v<Solver>, "a solver is dropped without a destructor");

}  // namespace

void MoveInFlight::start(const MoveCollider& collider, const Agent& agent, const MoveSettings& settings,
                         MoveResult& result, MoveSegments* segments) {
  result = MoveResult{};
  if (segments) segments->count = 0;
  // The solver lives here, the tick's stages in coroutine frames (one fewer frame than a solver
  // held in a coroutine of its own: 1 % of a crowd's tick).
  tick_ = {};  // a tick left waiting points at the solver about to be replaced: drop it first
  Solver* solver = new (&solver_) Solver(collider, settings, result, segments, wait_);
  tick_ = solver->run(agent);
  tick_.start();
  finish_if_done();
}

void MoveInFlight::finish_if_done() {
  if (!tick_.done()) return;
  const Step<void> ended = std::move(tick_);  // its frame is freed even when it threw
  ended.rethrow();
}

void MoveInFlight::answer(const MoveHit& hit) {
  CAPSWEEP_ASSERT(!done(), "an answer for a tick that waits");
  wait_.answer = hit;
  wait_.resume.resume();
  finish_if_done();
}

void move_agent(const MoveCollider& collider, const Agent& agent, const MoveSettings& settings, MoveResult& result,
                MoveSegments* segments) {
  MoveInFlight tick;
  tick.start(collider, agent, settings, result, segments);
  while (!tick.done()) {
    MoveHit h;
    collider.sweep(tick.body(), tick.motion(), h);
    tick.answer(h);
  }
}

}  // namespace capsweep
