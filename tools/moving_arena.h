// The main job's world (issue 37, `capsweep demo`): the built-in arena (tools/arena.h, its
// triangles first and unchanged) with parts that move. In its south-west corner a room behind a
// wall, whose 2 m doorway a sliding door closes and opens (the door runs in a pocket of the
// wall, so it pushes only who stands in the doorway); in its north-east corner an upper floor
// 2.5 m up, railed where it is not walled, reached only by a lift: a 2.5 m square platform on a
// column, flush with the ground at its lower stop and with the upper floor at its upper one. A
// gate in the railing (sliding in a pocket of it, as the door does) stands open only while the
// lift is up: nobody walks off the upper floor into the empty shaft, where the rising lift would
// carry whoever is below into whoever fell (a carry sweeps against the world, not the agents).
// `@arena` stays the static arena (tests pin its triangles); this is a world of its own.
// Metres, Y up, 60 Hz ticks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include <capsweep/instances.h>
#include <capsweep/world.h>

namespace capsweep {

inline constexpr std::uint32_t kArenaDoorId = 1;
inline constexpr std::uint32_t kArenaLiftId = 2;
inline constexpr std::uint32_t kArenaGateId = 3;
inline constexpr float kUpperFloorHeight = 2.5f;  // the upper floor's top, the lift's upper stop

// The door's cycle: open 2 s, closing 1.5 s, closed 1 s, opening 1.5 s (6 s). The lift's: at the
// ground 1.5 s, rising 1.5 s, at the upper floor 3 s, going down 1.5 s (7.5 s); its gate opens
// in the first 0.6 s of the lift's stop up there and closes in the last 0.6 s.
inline constexpr double kDoorCycleSeconds = 6.0;
inline constexpr double kLiftCycleSeconds = 7.5;

// The moving arena's first frame: the door open, the lift at the ground and its gate closed
// (poses at tick 0).
World make_moving_arena();

// How the door, the lift and its gate move, tick by tick: each on its cycle, except that a door
// or gate closing waits while its next step would meet an agent (a safety edge, as automatic
// doors have). A sliding panel pushes whoever stands in its way along its way, and the push
// sweeps against the world, not the other agents (docs/INSTANCES.md): a doorway of people would
// be pressed into each other. So nobody is pushed or crushed by them here; the lift waits at
// the upper floor until its gate has closed. Every tick of a stop gives the same pose (a stopped
// part moves nobody); poses are exact in double. One per crowd: it keeps the parts' clocks, so
// the same agents tick after tick give the same poses (a copy starts where the original was).
class ArenaMotion {
 public:
  explicit ArenaMotion(double dt = 1.0 / 60) : dt_(dt) {}
  // The poses of the next tick, the agents standing where the last one left them: a crowd's
  // pose schedule (CrowdSettings::poses).
  std::vector<InstancePose> next(std::span<const Agent> agents);
  // The poses now (before the first next(): make_moving_arena's).
  std::vector<InstancePose> poses() const;
  std::uint64_t door_waits() const { return door_waits_; }  // ticks the door waited for someone
  std::uint64_t gate_waits() const { return gate_waits_; }  // and the gate (the lift with it)

 private:
  double dt_;
  double door_clock_ = 0, lift_clock_ = 0;  // seconds into their cycles (the gate keeps the lift's)
  std::uint64_t door_waits_ = 0, gate_waits_ = 0;
};

// What the picture names: each moving part's id and name.
struct MovingPart {
  std::uint32_t id;
  const char* name;
};
inline constexpr MovingPart kArenaMovingParts[] = {
    {kArenaDoorId, "door"}, {kArenaLiftId, "lift"}, {kArenaGateId, "lift gate"}};

}  // namespace capsweep
