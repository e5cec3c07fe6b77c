#include "tools/moving_arena.h"

#include <algorithm>
#include <cmath>

#include "core/body.h"

#include "tools/arena.h"
#include "tools/mesh_builder.h"

namespace capsweep {

namespace {

// The wall of the room, 3 m high, 0.6 m thick, along z = -10 from the west wall to x = -9.7,
// then south to the south wall along x = -10. Its doorway is x in [-16, -14]; west of it the
// wall is a pocket (two 0.2 m skins around a 0.2 m slot) that the open door slides into.
constexpr float kDoorwayWest = -16, kDoorwayEast = -14, kWallZ = -10;
// The upper floor: x in [15, 20], z in [12, 20]; the lift's shaft west of it, z in [15, 17.5].
constexpr float kUpperWest = 15, kUpperSouth = 12;
constexpr float kLiftHalf = 1.25f, kLiftX = kUpperWest - kLiftHalf, kLiftZ = 16.25f;
constexpr float kRail = 1.1f;  // railings' height: no step climbs it

void add_room_wall(MeshBuilder& m) {
  const float s = kWallZ - 0.3f, n = kWallZ + 0.3f;
  m.box({-20, 0, s}, {-18.2f, 3, n});                      // solid, the pocket's back
  m.box({-18.2f, 0, s}, {kDoorwayWest, 3, kWallZ - 0.1f});  // the pocket's skins
  m.box({-18.2f, 0, kWallZ + 0.1f}, {kDoorwayWest, 3, n});
  m.box({kDoorwayEast, 0, s}, {-9.7f, 3, n});               // east of the doorway
  m.box({-10.3f, 0, -20}, {-9.7f, 3, s});                   // the room's east side
}

// A 1.1 m railing (no step climbs it), 0.4 m thick on the west side: north of the lift it is the
// gate's pocket (two 0.15 m skins around a 0.1 m slot), x in [15, 15.4]. Ridged, as the gate is:
// an agent perched on a flat top beside the shaft would meet the riders the lift brings up.
constexpr float kGateX = kUpperWest + 0.2f;

void add_upper_floor(MeshBuilder& m) {
  const float h = kUpperFloorHeight, rail = h + kRail;
  const float lift_south = kLiftZ - kLiftHalf, lift_north = kLiftZ + kLiftHalf;
  m.box({kUpperWest, 0, kUpperSouth}, {20, h, 20});
  // Inside, a plate 1 m up (facing down: not walkable): the arena's floor runs on under the
  // block, and a person spawned there would be clear of every face and walk about inside it.
  m.quad({kUpperWest, 1, kUpperSouth}, {20, 1, kUpperSouth}, {20, 1, 20}, {kUpperWest, 1, 20}, {0, -1, 0});
  m.ridged_box({kUpperWest, h, kUpperSouth}, {kUpperWest + 0.4f, rail, lift_south});  // west, south of the lift
  m.ridged_box({kUpperWest, h, lift_north}, {kGateX - 0.05f, rail, 20});             // the pocket's skins
  m.ridged_box({kGateX + 0.05f, h, lift_north}, {kUpperWest + 0.4f, rail, 20});
  m.ridged_box({kUpperWest + 0.4f, h, kUpperSouth}, {20, rail, kUpperSouth + 0.2f});  // south
}

// The door in its own frame: a 2 m x 2.88 m panel 0.1 m thick (and a ridge, under the wall's
// 3 m: nobody stands on it), its leading edge at x = 0, 2 cm above the floor (it slides over it),
// so that the pose's x is where the leading edge is.
std::vector<Triangle> door() {
  MeshBuilder m;
  m.ridged_box({-2, 0.02f, -0.05f}, {0, 2.9f, 0.05f}, /*bottom=*/true);
  return m.take();
}

// The lift: a 2.5 m square platform on a column as deep as it rises, its top at y = 0, so that
// the pose's y is the platform's height (at the ground, the column is below the floor). Railed
// (ridged, 0.15 m thick) on its south and north sides: riders get on and off to the west at the
// ground and to the east at the upper floor, and riding they keep clear of its edges there.
std::vector<Triangle> lift() {
  MeshBuilder m;
  m.box({-kLiftHalf, -kUpperFloorHeight, -kLiftHalf}, {kLiftHalf, 0, kLiftHalf}, /*bottom=*/true);
  m.ridged_box({-kLiftHalf, 0, -kLiftHalf}, {kLiftHalf, kRail, -kLiftHalf + 0.15f});
  m.ridged_box({-kLiftHalf, 0, kLiftHalf - 0.15f}, {kLiftHalf, kRail, kLiftHalf});
  return m.take();
}

// The lift's gate: a 2.5 m x 1.08 m panel 6 cm thick (and a ridge), its leading edge at z = 0,
// 2 cm above the upper floor, so that the pose's z is where the leading edge is.
std::vector<Triangle> gate() {
  MeshBuilder m;
  m.ridged_box({-0.03f, 0.02f, 0}, {0.03f, kRail, 2 * kLiftHalf}, /*bottom=*/true);
  return m.take();
}

// 0 -> 1 with no jolt at either end (smoothstep).
double ease(double u) {
  u = std::clamp(u, 0.0, 1.0);
  return u * u * (3 - 2 * u);
}

// Where a part is in its cycle: `rest0` s at 0, `move` s to 1, `rest1` s at 1, `move` s back.
double travel(double seconds, double rest0, double move, double rest1) {
  const double t = std::fmod(seconds, rest0 + move + rest1 + move);
  if (t < rest0) return 0;
  if (t < rest0 + move) return ease((t - rest0) / move);
  if (t < rest0 + move + rest1) return 1;
  return 1 - ease((t - rest0 - move - rest1) / move);
}

Pose door_pose(double seconds) {
  const double closed = travel(seconds, 2.0, 1.5, 1.0);
  return Pose{Vec3d(kDoorwayWest + (kDoorwayEast - kDoorwayWest) * closed, 0, kWallZ), Quat{}};
}

Pose lift_pose(double seconds) {
  return Pose{Vec3d(kLiftX, kUpperFloorHeight * travel(seconds, 1.5, 1.5, 3.0), kLiftZ), Quat{}};
}

// Open only within the lift's stop up there (3 s from 3 s into its cycle): 0.6 s opening, 1.8 s
// open, 0.6 s closing.
Pose gate_pose(double seconds) {
  const double at_the_top = std::fmod(seconds, kLiftCycleSeconds) - 3.0;
  const double open = at_the_top >= 0 && at_the_top < 3.0 ? travel(at_the_top, 0.0, 0.6, 1.8) : 0.0;
  const double closed_z = kLiftZ - kLiftHalf, open_z = kLiftZ + kLiftHalf;
  return Pose{Vec3d(kGateX, kUpperFloorHeight, closed_z + (open_z - closed_z) * open), Quat{}};
}

// Where the door's and the gate's panels are at a pose (their prototypes' boxes, placed).
Aabb door_box(const Pose& p) {
  const Vec3 at = to_float(p.position);
  return {{at.x - 2, 0.02f, at.z - 0.05f}, {at.x, 2.99f, at.z + 0.05f}};  // and its ridge
}
Aabb gate_box(const Pose& p) {
  const Vec3 at = to_float(p.position);
  const float top = at.y + kRail + 0.06f;  // and its ridge
  return {{at.x - 0.03f, at.y + 0.02f, at.z}, {at.x + 0.03f, top, at.z + 2 * kLiftHalf}};
}

// Where a closing panel goes that it was not: its box at the next pose less its box now, along
// the one axis it slides on (the rest it already holds, and nobody stands inside it).
Aabb leading_step(const Aabb& now, const Aabb& next) {
  Aabb step = next;
  if (next.max.x > now.max.x) step.min.x = now.max.x;
  if (next.min.z < now.min.z) step.max.z = now.min.z;
  return step;
}

// Whether a panel at `next` would meet an agent: its box within 5 cm (beyond the solver's skin
// and backoff) of the agent's (conservative: boxes, not the capsules themselves).
bool meets_anyone(const Aabb& next, std::span<const Agent> agents) {
  constexpr float kMargin = 0.05f;
  const Aabb near{next.min - Vec3{kMargin, kMargin, kMargin}, next.max + Vec3{kMargin, kMargin, kMargin}};
  for (const Agent& a : agents) {
    if (swept_bounds(agent_capsule(body_of(a)), {}).overlaps(near)) return true;
  }
  return false;
}

}  // namespace

static_assert(2.0 + 1.5 + 1.0 + 1.5 == kDoorCycleSeconds && 1.5 + 1.5 + 3.0 + 1.5 == kLiftCycleSeconds);

World make_moving_arena() {
  MeshBuilder m;
  add_room_wall(m);
  add_upper_floor(m);
  std::vector<Triangle> scene = make_arena();  // first, as @arena has them
  const std::vector<Triangle> added = m.take();
  scene.insert(scene.end(), added.begin(), added.end());
  std::vector<World> prototypes{World(door()), World(lift()), World(gate())};
  std::vector<Instance> parts{{.id = kArenaDoorId, .prototype = 0, .pose = door_pose(0)},
                              {.id = kArenaLiftId, .prototype = 1, .pose = lift_pose(0)},
                              {.id = kArenaGateId, .prototype = 2, .pose = gate_pose(0)}};
  return World(World(std::move(scene)), std::move(prototypes), std::move(parts));
}

std::vector<InstancePose> ArenaMotion::next(std::span<const Agent> agents) {
  // A closing panel (its leading edge moving into its doorway) waits while its next step meets
  // someone; opening, it only withdraws into its pocket. The lift keeps to its gate's clock.
  const double door_next = door_clock_ + dt_;
  const Pose door_now = door_pose(door_clock_), door_then = door_pose(door_next);
  const bool door_closing = door_then.position.x > door_now.position.x;
  if (door_closing && meets_anyone(leading_step(door_box(door_now), door_box(door_then)), agents)) {
    ++door_waits_;
  } else {
    door_clock_ = door_next;
  }
  const double lift_next = lift_clock_ + dt_;
  const Pose gate_now = gate_pose(lift_clock_), gate_then = gate_pose(lift_next);
  const bool gate_closing = gate_then.position.z < gate_now.position.z;
  if (gate_closing && meets_anyone(leading_step(gate_box(gate_now), gate_box(gate_then)), agents)) {
    ++gate_waits_;
  } else {
    lift_clock_ = lift_next;
  }
  return poses();
}

std::vector<InstancePose> ArenaMotion::poses() const {
  return {{kArenaDoorId, door_pose(door_clock_)}, {kArenaLiftId, lift_pose(lift_clock_)},
          {kArenaGateId, gate_pose(lift_clock_)}};
}

}  // namespace capsweep
