// capsweep: the command-line tool. Each command registers itself on CLI11 (options with their
// defaults, ranges and choices; `capsweep CMD --help`); errors end the process with a message
// that names the file or option and exit code 1, or 2 for usage errors.
#include "parallel/executor.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <capsweep/files.h>
#include <capsweep/navigation.h>
#include <capsweep/version.h>
#include <capsweep/world.h>

#include "cli/commands.h"
#include "tools/arena.h"
#include "tools/obj_file.h"
#include "tools/builtin_scene.h"
#include "tools/heightmaps.h"
#include "tools/workloads.h"
#include "io/query_format.h"

namespace capsweep {

void add_scene_options(CLI::App& command, SceneArgs& scene, bool required) {
  CLI::Option* o = command.add_option("--scene", scene.path,
                                      "A mesh (OBJ, glTF, PLY, STL, FBX, ..., FILE.gz), @arena, or a snapshot (capsweep build)");
  if (required) o->required();
  command.add_option("--scale", scene.scale, "Multiply every coordinate of a mesh (e.g. 0.0254 for inches)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_flag("--z-up", scene.z_up, "The mesh is Z up: turn it Y up");
  command.add_option("--layers", scene.layers,
                     "A layer table: lines `NAME LAYER[,LAYER...]` put a material, mesh or node's triangles on "
                     "layers 1-32 (others stay on layer 1)");
  command.add_option("--dynamic-prefix", scene.dynamic_prefix,
                     "glTF nodes whose name starts with this become instances (as do nodes marked "
                     "extras.capsweep.dynamic): parts that move, posed by --poses");
  command.add_option("--tiles", scene.tiles,
                     "Tiles streamed into the world (CSV: id,x,y,z,mesh[,layers] a row: a mesh file whose "
                     "coordinates are relative to the origin x,y,z)");
  // Checked as soon as the command line is parsed, before any file is read.
  command.parse_complete_callback([&scene] { check_scene_args(scene); });
}

void check_scene_args(const SceneArgs& scene) {
  if ((scene.scale != 1.f || scene.z_up) && looks_like_snapshot(scene.path)) {
    throw UsageError("--scale and --z-up do not apply to a snapshot (" + scene.path +
                     "): they were applied when it was built");
  }
  if (!scene.layers.empty() && looks_like_snapshot(scene.path)) {
    throw UsageError("--layers does not apply to a snapshot (" + scene.path + "): its layers were set when it was built");
  }
  if (!scene.dynamic_prefix.empty() && looks_like_snapshot(scene.path)) {
    throw UsageError("--dynamic-prefix does not apply to a snapshot (" + scene.path +
                     "): its instances were made when it was built");
  }
}

void add_poses(CLI::App& command, SceneArgs& scene) {
  command.add_option("--poses", scene.poses,
                     "The instances' poses (CSV: id,tx,ty,tz,qx,qy,qz,qw a row, in world space); instances without a "
                     "row keep the scene's");
}

SceneOptions scene_options(const SceneArgs& scene) {
  return {scene.scale, scene.z_up, scene.layers, scene.dynamic_prefix};
}

SweepFile read_sweep_file(const std::string& path) {
  SweepFile f;
  const std::uint32_t version = query_file_version(path);
  // Claimed moves of either shape (versions 7, 8): swept as the shape of the first (a file that
  // mixes them is refused by the reader, naming the first move of the other shape).
  f.of_ellipsoids = holds_ellipsoids(version) ||
                    (holds_shapes(version) && [&] {
                      const std::vector<ClaimedMove> moves = read_claimed_moves(path);
                      return !moves.empty() && moves[0].shape == AgentShape::ellipsoid;
                    }());
  if (f.of_ellipsoids) {
    f.ellipsoids = read_ellipsoid_queries(path);
  } else {
    f.capsules = read_queries(path);
  }
  return f;
}

World load_world(const SceneArgs& scene) {
  check_scene_args(scene);
  World world = open_world_or_builtin(scene.path, scene_options(scene)).world;
  if (!scene.tiles.empty()) world = streamed_from_file(world, scene.tiles);
  if (scene.poses.empty()) return world;
  return posed_from_file(world, scene.poses);
}

CLI::Option* add_threads(CLI::App& command, int& threads) {
  return command.add_option("--threads", threads, "Worker threads (0 = every core, at most " + std::to_string(kMaxThreads) + ")")
      ->check(CLI::Range(0, kMaxThreads))
      ->capture_default_str();
}

int effective_threads(int requested) { return requested > 0 ? requested : parallel::default_threads(); }

CLI::Option* add_mask(CLI::App& command, std::uint32_t& layers, const std::string& help) {
  return command
      .add_option_function<std::string>(
          "--mask",
          [&layers](const std::string& text) {
            try {
              layers = parse_layer_list(text);
            } catch (const std::invalid_argument& e) {
              throw CLI::ValidationError(std::string("--mask: ") + e.what());
            }
          },
          help.empty() ? "The layers the batch sees, e.g. 1,3 (triangles on none of them are not there); default every layer"
                       : help)
      ->default_str("all");
}

CLI::Option* add_path(CLI::App& command, SweepPath& path) {
  return command
      .add_option_function<std::string>(
          "--path",
          [&path](const std::string& text) {
            if (!parse_sweep_path(text, path)) throw CLI::ValidationError("--path must be simd, scalar or brute");
          },
          "simd (BVH + wide kernel), scalar (BVH + the exact scalar kernel) or brute (every triangle)")
      ->default_str("simd");
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Command add_sweep(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string queries, out;
    int threads = 0;
    SweepPath path = SweepPath::simd;
    std::uint32_t layers = kAllLayers;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand(
      "sweep", "Answers every query of a CWSQ file (capsules, rays and segments; or ellipsoids, version 3) against a "
               "scene and writes a CWSR file (version 2, naming each hit's instance or tile, for a world with either)");
  add_scene_options(*c, a->scene);
  add_poses(*c, a->scene);
  c->add_option("--queries", a->queries, "The queries (CWSQ)")->required();
  c->add_option("--out", a->out, "The answers (CWSR), written atomically")->required();
  add_threads(*c, a->threads);
  add_path(*c, a->path);
  add_mask(*c, a->layers,
           "The layers the batch sees, e.g. 1,3 (with each query's own, from a version 4 or 6 file: both); default "
           "every layer");
  return [a] {
    SweepOptions so;
    so.threads = a->threads;
    so.path = a->path;
    so.layers = a->layers;
    const SweepFile queries = read_sweep_file(a->queries);
    const bool ellipsoids = queries.of_ellipsoids;
    const std::size_t count = queries.size();
    const World world = load_world(a->scene);
    std::vector<SweepHit> hits(count);
    const auto start = Clock::now();
    if (ellipsoids) {
      world.sweep_ellipsoid(queries.ellipsoids, hits, so);
    } else {
      world.sweep(queries.capsules, hits, so);
    }
    const double elapsed = seconds_since(start);
    // Version 2, naming each hit's instance or tile, for a world with either; else version 1.
    write_results(a->out, hits, world, std::vector<std::string>{a->queries, a->scene.path, a->scene.poses, a->scene.tiles});
    std::size_t hit_count = 0, starts = 0;
    for (const SweepHit& h : hits) {
      hit_count += h.hit;
      starts += h.started_in_contact();
    }
    const int threads = effective_threads(so.threads);
    const double rate = elapsed > 0 ? double(count) / elapsed : 0;
    std::printf("%zu %s, %zu hits (%zu starting in contact), %zu triangles, %.3f s, %.0f sweeps/s "
                "(%.0f per core on %d threads), path %s -> %s\n",
                count, ellipsoids ? "ellipsoids" : "queries", hit_count, starts, world.triangle_count(), elapsed, rate, rate / threads, threads,
                name(so.path), a->out.c_str());
    return 0;
  };
}

Command add_queries(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string workload, out, shape = "capsule";
    std::size_t count = 0;
    std::uint64_t seed = 1;
    std::uint32_t layers = kAllLayers;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("queries", "Writes a seeded workload as a CWSQ file");
  add_scene_options(*c, a->scene);
  c->add_option("--workload", a->workload,
                "tick (0.05-0.2 m), validate (0.5-2 m) or long (5-30 m) for a person; ray: a ray (radius 0) from a "
                "person's eyes, 5-30 m in any direction")
      ->required()
      ->check(CLI::IsMember({"tick", "validate", "long", "ray"}));
  c->add_option("--shape", a->shape,
                "capsule, or ellipsoid: the person as an ellipsoid (radii 0.35, 0.9, 0.35 at the capsule's centre), "
                "written as a version 3 file")
      ->check(CLI::IsMember({"capsule", "ellipsoid"}))
      ->capture_default_str();
  c->add_option("--count", a->count, "How many queries")->required()->check(CLI::Range(1, 100'000'000));
  c->add_option("--seed", a->seed, "The same scene, workload, count and seed give the same file")->capture_default_str();
  c->add_option("--out", a->out, "The queries (CWSQ), written atomically")->required();
  add_mask(*c, a->layers,
           "The layers every query sees, e.g. 1,3: written with each query (CWSQ version 4, or 6 for ellipsoids); "
           "default every layer (version 1 or 3)");
  return [a] {
    Workload w;
    if (!parse_workload(a->workload, w)) throw UsageError("--workload must be tick, validate, long or ray");
    const bool ellipsoids = a->shape == "ellipsoid";
    if (ellipsoids && w == Workload::ray) throw UsageError("--shape ellipsoid has no ray workload (a ray is a capsule of radius 0)");
    const World world = load_world(a->scene);
    const std::vector<std::string> inputs{a->scene.path};
    if (ellipsoids) {
      std::vector<SweepEllipsoidQuery> queries = make_ellipsoid_workload(world, w, a->count, a->seed);
      for (SweepEllipsoidQuery& q : queries) q.layers = a->layers;
      write_ellipsoid_queries(a->out, queries, inputs);
    } else {
      std::vector<SweepQuery> queries = make_workload(world, w, a->count, a->seed);
      for (SweepQuery& q : queries) q.layers = a->layers;
      write_queries(a->out, queries, inputs);
    }
    std::printf("%zu %s %s queries (seed %llu) -> %s\n", a->count, name(w), a->shape.c_str(),
                (unsigned long long)a->seed, a->out.c_str());
    return 0;
  };
}

Command add_build(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string heightmap;
    std::vector<float> cell{1.f};
    float height_scale = 1.f;
    std::vector<float> origin{0.f, 0.f, 0.f};
    std::vector<std::uint32_t> raw_size;
    std::string holes;
    std::uint32_t terrain_layers = kDefaultLayers;
    std::string out;
    bool navmesh = false;
    std::string navmesh_from;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("build",
                                   "Builds a world once (a mesh, a heightmap, or a heightmap with a mesh on it) and "
                                   "saves it as a checksummed snapshot (CWSW)");
  add_scene_options(*c, a->scene, false);
  c->add_option("--heightmap", a->heightmap,
                "Terrain: a grayscale PNG (16 or 8 bits) or raw little-endian float32 heights (with --raw-size); "
                "image rows run along +z, columns along +x");
  c->add_option("--cell", a->cell, "Metres between samples: M, or MX,MZ")->delimiter(',')->expected(1, 2)->capture_default_str();
  c->add_option("--height-scale", a->height_scale, "Metres per PNG sample step (multiplies raw floats)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  c->add_option("--origin", a->origin, "Where the first sample stands at height 0: X,Y,Z")
      ->delimiter(',')
      ->expected(3)
      ->capture_default_str();
  c->add_option("--raw-size", a->raw_size, "COLUMNS,ROWS of a raw float32 heightmap")->delimiter(',')->expected(2);
  c->add_option("--holes", a->holes, "A grayscale PNG with a pixel per cell: 0 = ground, anything else = a hole");
  c->add_option_function<std::string>(
      "--terrain-layers",
      [a](const std::string& text) {
        try {
          a->terrain_layers = parse_layer_list(text);
        } catch (const std::invalid_argument& e) {
          throw CLI::ValidationError("--terrain-layers", e.what());
        }
      },
      "The layers of the heightmap's triangles (default 1)");
  c->add_option("--out", a->out, "The snapshot, written atomically")->required();
  CLI::Option* navmesh = c->add_flag("--navmesh", a->navmesh,
                                     "Also build the world's navmesh (as capsweep navmesh does with its defaults: the "
                                     "person and MoveSettings) and keep it in the snapshot, for demo and the service");
  c->add_option("--navmesh-from", a->navmesh_from,
                "Keep this navmesh file (capsweep navmesh, any body and settings; checked) in the snapshot")
      ->excludes(navmesh);
  return [a, c] {
    const bool terrain = !a->heightmap.empty();
    if (a->scene.path.empty() && !terrain) throw UsageError("build needs --scene, --heightmap or both");
    if (!terrain) {
      for (const char* option : {"--cell", "--height-scale", "--origin", "--raw-size", "--holes", "--terrain-layers"}) {
        if (c->count(option) > 0) throw UsageError(std::string(option) + " describes a --heightmap, and none is given");
      }
    }
    if (!a->scene.path.empty() && looks_like_snapshot(a->scene.path)) {
      throw UsageError(a->scene.path + " is already a snapshot");
    }
    const auto start = Clock::now();
    std::vector<std::string> inputs;
    std::string source;
    std::optional<World> world;
    if (terrain) {
      HeightmapOptions o;
      o.cell_x = a->cell[0];
      o.cell_z = a->cell.size() > 1 ? a->cell[1] : a->cell[0];
      o.height_scale = a->height_scale;
      o.origin = {a->origin[0], a->origin[1], a->origin[2]};
      if (!a->raw_size.empty()) o.columns = a->raw_size[0], o.rows = a->raw_size[1];
      o.holes = a->holes;
      o.layers = a->terrain_layers;
      Heightfield field = load_heightmap(a->heightmap, o);
      inputs.push_back(a->heightmap);
      if (!a->holes.empty()) inputs.push_back(a->holes);
      source = describe_heightmap(a->heightmap, o);
      InstancedScene mesh;
      if (!a->scene.path.empty()) {
        if (a->scene.path == kArenaName) {
          mesh.static_part.triangles = load_scene_or_builtin(a->scene.path, scene_options(a->scene));
        } else {
          mesh = load_instanced_scene(a->scene.path, scene_options(a->scene));
        }
        inputs.push_back(a->scene.path);
        source += " + " + describe_source(a->scene.path, scene_options(a->scene));
      }
      World ground(std::move(field), std::move(mesh.static_part.triangles), std::move(mesh.static_part.layers));
      world.emplace(place_instances(std::move(ground), std::move(mesh), a->scene.path));
    } else {
      WorldFile file = open_world_or_builtin(a->scene.path, scene_options(a->scene));
      inputs.push_back(a->scene.path);
      source = file.source;
      world.emplace(std::move(file.world));
    }
    if (!a->scene.tiles.empty()) {
      world.emplace(streamed_from_file(*world, a->scene.tiles));
      inputs.push_back(a->scene.tiles);
      source += " + tiles " + a->scene.tiles;
    }
    const double built = seconds_since(start);
    std::vector<SnapshotSection> sections;
    std::optional<NavMesh> navmesh;
    double navmesh_seconds = 0;
    if (a->navmesh || !a->navmesh_from.empty()) {
      const auto navmesh_start = Clock::now();
      if (a->navmesh) {
        const Capsule person{{0, 0, 0}, {0, kPersonAxis, 0}, kPersonRadius};
        navmesh = NavMesh::build(*world, navmesh_settings(MoveSettings{}, person));
      } else {
        navmesh = NavMesh::read(a->navmesh_from);
        inputs.push_back(a->navmesh_from);
      }
      navmesh_seconds = seconds_since(navmesh_start);
      sections.push_back({kNavMeshSection, navmesh->bytes()});
    }
    const auto save_start = Clock::now();
    save_snapshot(*world, source, a->out, inputs, sections);
    const double saved = seconds_since(save_start);
    const auto check_start = Clock::now();
    const Snapshot loaded = load_snapshot(a->out);  // what a server will do: refuse here, not there
    const double loads = seconds_since(check_start);
    const WorldStats stats = loaded.world.stats();
    const std::string field = stats.heightfield_columns > 0
                                  ? " (heightfield " + std::to_string(stats.heightfield_columns) + " x " +
                                        std::to_string(stats.heightfield_rows) + " samples, " +
                                        std::to_string(stats.heightfield_triangles) + " triangles)"
                                  : "";
    auto count = [](std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); };
    const std::string instances = stats.instances > 0 ? " (" + std::to_string(stats.instance_triangles) + " of them in " +
                                                            count(stats.instances, "instance") + " of " +
                                                            count(stats.prototypes, "prototype") + ")"
                                                      : "";
    const std::string tiles = stats.tiles > 0 ? " (" + std::to_string(stats.tile_triangles) + " of them in " +
                                                    count(stats.tiles, "tile") + ")"
                                              : "";
    std::printf("%zu triangles%s%s%s, %zu BVH nodes, %zu blocks: built in %.3f s, saved in %.3f s, loads in %.3f s, "
                "%.1f MB -> %s\n",
                stats.triangles, field.c_str(), instances.c_str(), tiles.c_str(), stats.bvh_nodes, stats.triangle_blocks, built, saved,
                loads, double(loaded.bytes) / 1e6, a->out.c_str());
    if (navmesh) {
      const NavMeshStats n = navmesh->stats();
      std::printf("navmesh: %zu tiles, %zu polygons, %s in %.3f s, %.1f MB of the snapshot\n", n.tiles, n.polygons,
                  a->navmesh ? "built" : ("read from " + a->navmesh_from).c_str(), navmesh_seconds,
                  double(loaded.section(kNavMeshSection)->bytes.size()) / 1e6);
    }
    return 0;
  };
}

Command add_heightmap(CLI::App& app) {
  struct Args {
    std::uint32_t size = 1025;
    std::uint64_t seed = 1;
    std::string out;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("heightmap", "Writes seeded synthetic hills as a 16-bit grayscale PNG heightmap");
  c->add_option("--size", a->size, "Samples along each side")->check(CLI::Range(2u, 16385u))->capture_default_str();
  c->add_option("--seed", a->seed, "The same size and seed give the same file")->capture_default_str();
  c->add_option("--out", a->out, "The PNG, written atomically")->required();
  return [a] {
    const std::vector<std::uint16_t> hills = synthetic_hills(a->size, a->seed);
    write_gray_png(a->out, a->size, a->size, hills);
    std::printf("%u x %u samples (seed %llu) -> %s\n", a->size, a->size, (unsigned long long)a->seed, a->out.c_str());
    return 0;
  };
}

Command add_arena(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand("arena", "Writes the built-in arena as a Wavefront OBJ");
  c->add_option("--out", *out, "The OBJ file, written atomically")->required();
  return [out] {
    const std::vector<Triangle> arena = make_arena();
    write_obj(*out, arena);
    std::printf("%zu triangles -> %s\n", arena.size(), out->c_str());
    return 0;
  };
}

// Sweeps/s of one workload on one thread and on all of them; the answers of both runs must agree.
void bench_workload(const World& world, Workload w, std::size_t count, int threads, SweepPath path) {
  const std::vector<SweepQuery> queries = make_workload(world, w, count, 2026);
  std::vector<SweepHit> one(queries.size()), all(queries.size());
  auto timed = [&](int n, std::vector<SweepHit>& hits) {
    SweepOptions so;
    so.threads = n;
    so.path = path;
    const auto start = Clock::now();
    world.sweep(queries, hits, so);
    return seconds_since(start);
  };
  timed(threads, all);  // warm-up, untimed: the first pass pays for cold caches
  const double t1 = timed(1, one), tn = timed(threads, all);
  std::size_t hits = 0, mismatches = 0;
  for (std::size_t i = 0; i < queries.size(); ++i) {
    hits += one[i].hit;
    mismatches += !identical(one[i], all[i]);
  }
  std::printf("  %-9s %8zu %8zu %14.0f %14.0f %10.2f\n", name(w), queries.size(), hits, double(queries.size()) / t1,
              double(queries.size()) / tn, t1 / tn);
  if (mismatches) throw std::runtime_error(std::to_string(mismatches) + " answers differ between 1 and N threads");
}

Command add_throughput(CLI::App& app) {
  struct Args {
    int threads = 0;
    std::size_t count = 200000;
    SweepPath path = SweepPath::simd;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("throughput", "Sweeps/s on the built-in arena (tick, validate, long, ray), 1 core and all");
  add_threads(*c, a->threads);
  c->add_option("--count", a->count, "Queries per workload")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  add_path(*c, a->path);
  return [a] {
    const int threads = effective_threads(a->threads);
    const World world(make_arena());
    std::printf("capsweep throughput: sweeps on the built-in arena (%zu triangles), path %s%s%s, %d threads\n",
                world.triangle_count(), name(a->path), a->path == SweepPath::simd ? " " : "",
                a->path == SweepPath::simd ? kernel_isa() : "", threads);
    std::printf("  %-9s %8s %8s %14s %14s %10s\n", "workload", "queries", "hits", "sweeps/s/core", "sweeps/s all",
                "speed-up");
    for (Workload w : {Workload::tick, Workload::validate, Workload::long_range, Workload::ray}) {
      bench_workload(world, w, a->count, threads, a->path);
    }
    std::printf("answers identical on 1 and %d threads\n", threads);
    return 0;
  };
}

int run(int argc, char** argv) {
  CLI::App app("capsweep " CAPSWEEP_VERSION_STRING
               " - exact swept-capsule queries and movement against static triangle meshes.\n"
               "Scenes: any mesh Assimp reads (OBJ, glTF, PLY, STL, FBX, ...), FILE.gz, @arena (built in), or a\n"
               "snapshot written by capsweep build. Units are metres, Y up. Formats: docs/FORMATS.md.",
               "capsweep");
  app.set_version_flag("--version", "capsweep " CAPSWEEP_VERSION_STRING, "Print the version (the CMake package's)");
  app.require_subcommand(1);
  app.fallthrough(false);
  std::vector<std::pair<CLI::App*, Command>> commands;
  auto add = [&](Command (*make)(CLI::App&)) {
    Command c = make(app);
    commands.emplace_back(app.get_subcommands([](CLI::App*) { return true; }).back(), std::move(c));
  };
  add(add_demo);
  add(add_arena_demo);
  add(add_navmesh);
  add(add_crowd);
  add(add_validate);
  add(add_throughput);
  add(add_sweep);
  add(add_queries);
  add(add_build);
  add(add_serve);
  add(add_client);
  add(add_bench_service);
  add(add_view);
  add(add_arena);
  add(add_heightmap);
  CLI::App* help = app.add_subcommand("help", "Print this help");
  CLI::App* version = app.add_subcommand("version", "Print the version");
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* c : app.get_subcommands([](CLI::App*) { return true; })) known = known || c->get_name() == argv[1];
    if (!known) throw UsageError(std::string("unknown command '") + argv[1] + "'");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "capsweep: %s (see 'capsweep%s --help')\n", e.what(),
                 app.get_subcommands().empty() ? "" : (" " + app.get_subcommands().front()->get_name()).c_str());
    return 2;
  }
  if (help->parsed()) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (version->parsed()) {
    std::printf("capsweep %s\n", CAPSWEEP_VERSION_STRING);
    return 0;
  }
  // A CAPSWEEP_ISA the CPU does not run is a usage error, not a silent fallback.
  if (std::string why = kernel_isa_problem(); !why.empty()) throw UsageError(why);
  for (auto& [command, runner] : commands) {
    if (command->parsed()) return runner();
  }
  throw UsageError("no command");
}

}  // namespace
}  // namespace capsweep

int main(int argc, char** argv) {
  try {
    return capsweep::run(argc, argv);
  } catch (const capsweep::UsageError& e) {
    std::fprintf(stderr, "capsweep: %s (see 'capsweep help')\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "capsweep: %s\n", e.what());
    return 1;
  }
}
