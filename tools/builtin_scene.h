// Scene arguments of the tools and the CLI: "@arena" names the built-in arena (tools/arena.h);
// anything else is a file for the library's load_scene / open_world.
#pragma once

#include <string>
#include <vector>

#include <capsweep/files.h>

namespace capsweep {

inline constexpr const char* kArenaName = "@arena";

// The arena (scaled and turned like a file would be) or the file.
std::vector<Triangle> load_scene_or_builtin(const std::string& path, const SceneOptions& options = {});
WorldFile open_world_or_builtin(const std::string& path, const SceneOptions& options = {});

}  // namespace capsweep
