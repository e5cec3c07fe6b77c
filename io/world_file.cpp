#include <capsweep/files.h>

#include <chrono>
#include <cstdio>
#include <optional>


namespace capsweep {

std::string describe_source(const std::string& path, const SceneOptions& options) {
  std::string s = path;
  std::string extras;
  if (options.scale != 1.f || options.z_up) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", double(options.scale));
    extras += std::string("scale ") + scale + (options.z_up ? ", z-up" : "");
  }
  if (!options.layers.empty()) extras += (extras.empty() ? "layers " : ", layers ") + options.layers;
  if (!options.dynamic_prefix.empty()) {
    extras += (extras.empty() ? "dynamic prefix " : ", dynamic prefix ") + options.dynamic_prefix;
  }
  if (!extras.empty()) s += " (" + extras + ")";
  return s;
}

WorldFile open_world(const std::string& path, const SceneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (looks_like_snapshot(path)) {
    Snapshot s = load_snapshot(path);
    return WorldFile{std::move(s.world), std::move(s.source), true, elapsed(), std::move(s.sections)};
  }
  InstancedScene scene = load_instanced_scene(path, options);
  std::optional<World> static_part;
  try {
    static_part.emplace(std::move(scene.static_part.triangles), std::move(scene.static_part.layers));
  } catch (const WorldError& e) {
    throw SceneError(path + ": " + e.what());
  }
  World world = place_instances(std::move(*static_part), std::move(scene), path);
  return WorldFile{std::move(world), describe_source(path, options), false, elapsed(), {}};
}

}  // namespace capsweep
