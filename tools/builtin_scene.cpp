#include "tools/builtin_scene.h"

#include <chrono>

#include "tools/arena.h"

namespace capsweep {

std::vector<Triangle> load_scene_or_builtin(const std::string& path, const SceneOptions& options) {
  if (path != kArenaName) return load_scene(path, options);
  if (!options.layers.empty()) {
    throw SceneError(options.layers + ": the built-in scene " + path + " has no named parts to put on layers");
  }
  if (!options.dynamic_prefix.empty()) {
    throw SceneError(path + ": the built-in scene has no glTF nodes to make dynamic (the prefix '" +
                     options.dynamic_prefix + "')");
  }
  return transform_scene(make_arena(), path, options);
}

WorldFile open_world_or_builtin(const std::string& path, const SceneOptions& options) {
  if (path != kArenaName) return open_world(path, options);
  const auto start = std::chrono::steady_clock::now();
  World world(load_scene_or_builtin(path, options));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return WorldFile{std::move(world), describe_source(path, options), false, seconds, {}};
}

}  // namespace capsweep
