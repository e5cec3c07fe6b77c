#include <capsweep/files.h>

#include <chrono>
#include <cstdio>


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
  if (!extras.empty()) s += " (" + extras + ")";
  return s;
}

WorldFile open_world(const std::string& path, const SceneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  if (looks_like_snapshot(path)) {
    Snapshot s = load_snapshot(path);
    return WorldFile{std::move(s.world), std::move(s.source), true, elapsed()};
  }
  LayeredScene scene = load_layered_scene(path, options);
  try {
    World world(std::move(scene.triangles), std::move(scene.layers));
    return WorldFile{std::move(world), describe_source(path, options), false, elapsed()};
  } catch (const WorldError& e) {
    throw SceneError(path + ": " + e.what());
  }
}

}  // namespace capsweep
