// The benchmark scenes and workloads, loaded and built once per process and shared by every
// benchmark (capsweep and its peers see the same triangles and the same queries).
#pragma once

#include <string>
#include <vector>

#include <capsweep/world.h>
#include "tools/workloads.h"

namespace capsweep::bench {

// "arena" or a file name in scenes/.
const std::vector<std::string>& scene_names();
const World& world_for(const std::string& scene);
// 8192 seeded queries of the workload (the same on every run).
const std::vector<SweepQuery>& queries_for(const std::string& scene, Workload workload);

}  // namespace capsweep::bench
