// capsweep: the command-line tool. Each command is a function below; errors end the process
// with a message that names the file or option and exit code 1 (2 for usage errors).
#include <tbb/info.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <thread>

#include <capsweep/snapshot.h>
#include <capsweep/version.h>
#include <capsweep/world.h>
#include "tools/builtin_scene.h"
#include "tools/arena.h"
#include "cli/commands.h"
#include "cli/options.h"
#include <capsweep/query_file.h>
#include <capsweep/scene.h>
#include "tools/workloads.h"
#include <capsweep/world_file.h>
#include "simd/block_sweep.h"
#include "broadphase/world_arrays.h"

namespace capsweep {

int thread_count(const Options& o) {
  return int(o.integer("threads", 0, 0, 4096));
}

int effective_threads(int requested) { return requested > 0 ? requested : tbb::info::default_concurrency(); }

SceneOptions scene_options(const Options& o) {
  SceneOptions so;
  so.scale = float(o.number("scale", 1.0));
  so.z_up = o.has("z-up");
  return so;
}

World load_world(const Options& o) { return open_world_or_builtin(o.text("scene"), scene_options(o)).world; }

namespace {

constexpr const char* kUsage = R"(capsweep - exact swept-capsule queries and movement against static triangle meshes

usage:
  capsweep --version
      Prints the version (the same as the installed CMake package's).
  capsweep demo [--agents N] [--ticks T] [--seed S] [--threads N] [--png FILE] [--speed M/S]
                [--no-agent-collisions]
      The main job: 2,000 agents walk the built-in arena toward random goals for 600 ticks at
      60 Hz. Prints agent-ticks/s per core and in total, sweeps per agent-tick and any
      invariant violation; draws their trails in capsweep_demo.png.
  capsweep crowd --scene FILE --agents N --ticks T [--seed S] [--trace moves.cwsq] [--png FILE]
                 [--threads N] [--speed M/S] [--no-agent-collisions] [--scale S] [--z-up]
      The same on any scene. --trace writes every straight segment an agent travelled (CWSQ:
      the capsule where it starts, its displacement).
  capsweep validate --scene FILE --moves M.cwsq --out V.csv [--dt S] [--max-speed M/S]
                    [--tolerance M] [--threads N] [--scale S] [--z-up]
      Judges claimed moves (CWSQ: capsule at the last accepted position, claimed displacement):
      ok, blocked, start_overlaps or too_fast, with the furthest legal point and the corrected
      position, one CSV line per move.
  capsweep throughput [--threads N] [--count N] [--path simd|scalar|brute]
      Sweeps/s on the built-in arena (tick, validate and long workloads), 1 core and all cores.
  capsweep sweep --scene FILE --queries Q.cwsq --out R.cwsr [--threads N]
                 [--path simd|scalar|brute] [--scale S] [--z-up]
      Answers every query of a CWSQ file against a scene and writes a CWSR file. Paths: simd
      (default: BVH + wide kernel), scalar (BVH + the exact scalar kernel), brute (every
      triangle, for verification).
  capsweep queries --scene FILE --workload tick|validate|long --count N --out Q.cwsq
                   [--seed S] [--scale S] [--z-up]
      Writes a seeded workload as a CWSQ file.
  capsweep build --scene FILE --out WORLD.cwsw [--scale S] [--z-up]
      Builds a world once (BVH, triangle blocks, adjacency) and saves it as a checksummed
      snapshot that every command and the server map in milliseconds instead of rebuilding.
  capsweep serve --listen HOST:PORT --world NAME=FILE [--world NAME=FILE ...] [--metrics HOST:PORT]
                 [--max-batch N] [--max-message-mb M] [--threads N] [--drain-seconds S]
      The gRPC query service (service/capsweep.proto): Sweep, Move, Validate, Overlap, Info.
  capsweep client --server ADDR[,ADDR...] --world NAME --queries Q.cwsq --out R.cwsr
                  [--batch N] [--in-flight N] [--deadline-ms MS] [--path simd|scalar|brute]
      Sends a CWSQ file to one or more servers (round robin, retried) and writes the CWSR file.
  capsweep bench-service [--scene FILE] [--server ADDR] [--world NAME] [--workload W]
                         [--batches 1,64,1024,16384] [--seconds S] [--in-flight N (3)]
      Sustained sweeps/s and latency through the service, next to in-process throughput.
  capsweep arena --out FILE.obj
      Writes the built-in arena as a Wavefront OBJ.

Scenes: any mesh Assimp reads (OBJ, glTF, PLY, STL, FBX, ...), FILE.obj.gz, @arena (built in), or a
snapshot written by capsweep build.
Units are metres, Y up; --scale multiplies coordinates, --z-up turns a Z-up file to Y up.
Formats: docs/FORMATS.md.
)";

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

int cmd_sweep(int argc, char** argv) {
  const Options o(argc, argv, 2, {"scene", "queries", "out", "threads", "path", "scale"}, {"z-up"});
  SweepOptions so;
  so.threads = thread_count(o);
  if (!parse_sweep_path(o.text("path", "simd"), so.path)) throw UsageError("--path must be simd, scalar or brute");
  const std::string out = o.text("out");
  const std::vector<SweepQuery> queries = read_queries(o.text("queries"));
  const World world = load_world(o);
  std::vector<SweepHit> hits(queries.size());
  const auto start = Clock::now();
  world.sweep(queries, hits, so);
  const double elapsed = seconds_since(start);
  write_results(out, hits, std::vector<std::string>{o.text("queries"), o.text("scene")});
  std::size_t hit_count = 0, starts = 0;
  for (const SweepHit& h : hits) {
    hit_count += h.hit;
    starts += h.started_in_contact();
  }
  const int threads = effective_threads(so.threads);
  const double rate = elapsed > 0 ? double(queries.size()) / elapsed : 0;
  std::printf("%zu queries, %zu hits (%zu starting in contact), %zu triangles, %.3f s, %.0f sweeps/s "
              "(%.0f per core on %d threads), path %s -> %s\n",
              queries.size(), hit_count, starts, world.triangle_count(), elapsed, rate, rate / threads, threads,
              name(so.path), out.c_str());
  return 0;
}

int cmd_queries(int argc, char** argv) {
  const Options o(argc, argv, 2, {"scene", "workload", "count", "seed", "out", "scale"}, {"z-up"});
  Workload w;
  if (!parse_workload(o.text("workload"), w)) throw UsageError("--workload must be tick, validate or long");
  const auto count = std::size_t(o.integer("count", 0, 1, 100'000'000));
  if (!o.has("count")) throw UsageError("--count is required");
  const auto seed = std::uint64_t(o.integer("seed", 1, 0, INT64_MAX));
  const std::string out = o.text("out");
  const World world = load_world(o);
  write_queries(out, make_workload(world, w, count, seed), std::vector<std::string>{o.text("scene")});
  std::printf("%zu %s queries (seed %llu) -> %s\n", count, name(w), (unsigned long long)seed, out.c_str());
  return 0;
}

int cmd_build(int argc, char** argv) {
  const Options o(argc, argv, 2, {"scene", "out", "scale"}, {"z-up"});
  const std::string out = o.text("out");
  const auto start = Clock::now();
  const WorldFile file = open_world_or_builtin(o.text("scene"), scene_options(o));
  const double built = seconds_since(start);
  save_snapshot(file.world, file.source, out, std::vector<std::string>{o.text("scene")});
  const double saved = seconds_since(start) - built;
  const auto check_start = Clock::now();
  const Snapshot loaded = load_snapshot(out);  // what a server will do: refuse here, not there
  std::printf("%zu triangles, %zu BVH nodes, %zu blocks: built in %.3f s, saved in %.3f s, loads in %.3f s, "
              "%.1f MB -> %s\n",
              loaded.world.triangle_count(), loaded.world.arrays().bvh.nodes.size(), loaded.world.arrays().bvh.blocks.size(), built,
              saved, seconds_since(check_start), double(loaded.bytes) / 1e6, out.c_str());
  return 0;
}

int cmd_arena(int argc, char** argv) {
  const Options o(argc, argv, 2, {"out"}, {});
  const std::vector<Triangle> arena = make_arena();
  write_obj(o.text("out"), arena);
  std::printf("%zu triangles -> %s\n", arena.size(), o.text("out").c_str());
  return 0;
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

int cmd_throughput(int argc, char** argv) {
  const Options o(argc, argv, 2, {"threads", "count", "path"}, {});
  const int threads = effective_threads(thread_count(o));
  const auto count = std::size_t(o.integer("count", 200000, 1, 10'000'000));
  SweepPath path;
  if (!parse_sweep_path(o.text("path", "simd"), path)) throw UsageError("--path must be simd, scalar or brute");
  const World world(make_arena());
  std::printf("capsweep throughput: sweeps on the built-in arena (%zu triangles), path %s%s%s, %d threads\n",
              world.triangle_count(), name(path), path == SweepPath::simd ? " " : "",
              path == SweepPath::simd ? best_block_sweep().isa : "", threads);
  std::printf("  %-9s %8s %8s %14s %14s %10s\n", "workload", "queries", "hits", "sweeps/s/core", "sweeps/s all",
              "speed-up");
  for (Workload w : {Workload::tick, Workload::validate, Workload::long_range}) bench_workload(world, w, count, threads, path);
  std::printf("answers identical on 1 and %d threads\n", threads);
  return 0;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string command = argv[1];
  if (command == "help" || command == "--help" || command == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (command == "version" || command == "--version") {
    std::printf("capsweep %s\n", CAPSWEEP_VERSION_STRING);
    return 0;
  }
  if (command == "demo") return cmd_demo(argc, argv);
  if (command == "crowd") return cmd_crowd(argc, argv);
  if (command == "validate") return cmd_validate(argc, argv);
  if (command == "throughput") return cmd_throughput(argc, argv);
  if (command == "sweep") return cmd_sweep(argc, argv);
  if (command == "queries") return cmd_queries(argc, argv);
  if (command == "arena") return cmd_arena(argc, argv);
  if (command == "build") return cmd_build(argc, argv);
  if (command == "serve") return cmd_serve(argc, argv);
  if (command == "client") return cmd_client(argc, argv);
  if (command == "bench-service") return cmd_bench_service(argc, argv);
  throw UsageError("unknown command '" + command + "'");
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
