// The capsweep commands, on CLI11: each add_* registers one subcommand with its options (with
// their defaults, ranges and choices, so `capsweep CMD --help` tells everything) and returns what
// runs it once the command line is parsed. Shared helpers for the options several commands take.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <capsweep/files.h>
#include <capsweep/world.h>

namespace capsweep {

// A command line that cannot be run: exit code 2, like CLI11's own parse errors.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Command = std::function<int()>;

// --scene FILE (a mesh, FILE.gz, @arena or a snapshot), --scale S, --z-up, --layers TABLE,
// --dynamic-prefix P, --tiles FILE.
struct SceneArgs {
  std::string path;
  float scale = 1.f;
  bool z_up = false;
  std::string layers{};          // a layer table (SceneOptions::layers)
  std::string dynamic_prefix{};  // SceneOptions::dynamic_prefix
  std::string poses{};           // --poses FILE (add_poses): the instances' poses, CSV
  std::string tiles{};           // --tiles FILE: tiles streamed in, CSV (read_tiles)
};
void add_scene_options(CLI::App& command, SceneArgs& scene, bool required = true);
// --poses FILE, for the commands that answer against the scene.
void add_poses(CLI::App& command, SceneArgs& scene);
// The world named by --scene, with the tiles of --tiles streamed in and at the poses of --poses
// when given (a still frame: streamed_from_file, posed_from_file). The scene options only apply to meshes: given with a snapshot (already built
// with its own) they are a usage error, never silently ignored.
World load_world(const SceneArgs& scene);

// A CWSQ file of either kind: capsules, rays and segments (versions 1, 2, 4, 5) or ellipsoids
// (versions 3, 6), each query with its layers, or the moves of capsule or ellipsoid agents
// (version 7, all of one shape), for the commands that answer both (sweep, client).
struct SweepFile {
  bool of_ellipsoids = false;
  std::vector<SweepQuery> capsules;
  std::vector<SweepEllipsoidQuery> ellipsoids;
  std::size_t size() const { return of_ellipsoids ? ellipsoids.size() : capsules.size(); }
};
SweepFile read_sweep_file(const std::string& path);
SceneOptions scene_options(const SceneArgs& scene);
// Throws UsageError for --scale or --z-up given with a snapshot.
void check_scene_args(const SceneArgs& scene);

// --threads N (0 = every core).
CLI::Option* add_threads(CLI::App& command, int& threads);
int effective_threads(int requested);
// --path simd|scalar|brute.
CLI::Option* add_path(CLI::App& command, SweepPath& path);
// --mask LIST: the layers a batch sees ("1,3"; default every layer); `help` says it otherwise.
CLI::Option* add_mask(CLI::App& command, std::uint32_t& layers, const std::string& help = "");

Command add_demo(CLI::App& app);           // the main job: the navigating crowd
Command add_arena_demo(CLI::App& app);     // the crowd on the built-in arena whose parts move
Command add_navmesh(CLI::App& app);        // a scene's navmesh, to a file
Command add_crowd(CLI::App& app);          // the crowd on any scene
Command add_validate(CLI::App& app);       // judge recorded moves
Command add_serve(CLI::App& app);          // the gRPC query service
Command add_client(CLI::App& app);         // a CWSQ file through the service
Command add_bench_service(CLI::App& app);  // throughput through the service vs in-process
Command add_view(CLI::App& app);           // the viewer in the browser

}  // namespace capsweep
