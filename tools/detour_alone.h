// The same crowd moved by DetourCrowd alone (issue 39): its own integration moves each agent on
// the navmesh's 2.5D polygons, never against the real geometry. Every tick is held to the exact
// oracle that capsweep's crowd meets (tools/nav_run.h): the body standing where Detour put it,
// and the body swept from where it was to there.
#pragma once

#include <cstdint>

#include <capsweep/navigation.h>

#include "tools/nav_run.h"

namespace capsweep {

struct DetourAloneTotals {
  std::uint64_t agent_ticks = 0;
  std::uint64_t inside = 0;   // the body where Detour put it overlaps the world deeper than the skin
  std::uint64_t through = 0;  // the body (shrunk by the skin) swept along the tick's move meets a triangle
  std::uint64_t goals_reached = 0;
  double update_seconds = 0;  // in dtCrowd::update (one thread: DetourCrowd is single-threaded)
};

// Spawns settings.agents as NavRun does (same places, speeds and goal rule), then runs `ticks`
// ticks of dtCrowd::update (RecastDemo's agent parameters: anticipate turns, obstacle
// avoidance, separation, visibility and topology optimisation), checking each.
DetourAloneTotals run_detour_alone(const World& world, const NavMesh& navmesh, const NavRunSettings& settings,
                                   std::size_t ticks);

}  // namespace capsweep
