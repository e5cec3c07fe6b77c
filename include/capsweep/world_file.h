// A world from a file: a snapshot (capsweep build) is mapped, anything else is loaded as a scene
// and built.
#pragma once

#include <string>

#include <capsweep/world.h>
#include <capsweep/scene.h>

namespace capsweep {

struct WorldFile {
  World world;
  std::string source;  // scene path and options, or the snapshot's own source
  bool snapshot = false;
  double load_seconds = 0;
};

// Throws SceneError or SnapshotError naming the file. Scene options do not apply to snapshots
// (they were applied when it was built).
WorldFile open_world(const std::string& path, const SceneOptions& options = {});

// "PATH" or "PATH (scale S, z-up, layers TABLE)": how a world was made, for snapshots and the service's Info.
std::string describe_source(const std::string& path, const SceneOptions& options);

}  // namespace capsweep
