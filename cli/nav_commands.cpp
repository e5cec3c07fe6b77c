// capsweep demo | navmesh: the navigating crowd (the main job) and navmesh files.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include <capsweep/files.h>
#include <capsweep/navigation.h>

#include "cli/commands.h"
#include "tools/builtin_scene.h"
#include "tools/detour_alone.h"
#include "tools/nav_run.h"
#include "tools/picture.h"
#include "tools/workloads.h"

namespace capsweep {

namespace {

// The scene the demo walks when none is named: Recast's own test level, in the repository's
// scenes/ (the build records where that is, so the demo runs from any folder of a fresh clone).
std::string default_scene() { return std::string(CAPSWEEP_DEFAULT_SCENES) + "/recast_nav_test.obj"; }

// The navmesh of --navmesh when given (its agent must hold the demo's person), else the scene's
// own when it is a snapshot that keeps one (capsweep build --navmesh), else built. `from` says which.
NavMesh navmesh_for(const WorldFile& scene, const std::string& scene_path, const std::string& file,
                    const NavCrowdSettings& crowd, int threads, double& seconds, std::string& from) {
  const Capsule person{{0, 0, 0}, {0, kPersonAxis, 0}, kPersonRadius};
  const auto start = std::chrono::steady_clock::now();
  std::optional<NavMesh> mesh;
  if (!file.empty()) {
    mesh = NavMesh::read(file);
    from = "read from " + file;
  } else if ((mesh = NavMesh::from_snapshot(scene.sections, scene_path))) {
    from = "read from the snapshot";
  } else {
    mesh = NavMesh::build(scene.world, navmesh_settings(crowd.move, person), threads);
    from = "built";
  }
  seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return *mesh;
}

std::string describe(const NavMeshSettings& s) {
  char text[256];
  std::snprintf(text, sizeof text,
                "agent radius %.3f m, height %.2f m, climb %.2f m, slope %.0f deg; cells %.3f x %.3f m, tiles of %d cells",
                double(s.agent_radius), double(s.agent_height), double(s.climb), double(s.max_slope_degrees),
                double(s.cell_size), double(s.cell_height), s.tile_cells);
  return text;
}

struct DemoArgs {
  std::string scene, navmesh, png = "capsweep_demo.png", trace;
  std::size_t agents = 2000, ticks = 600;
  std::uint64_t seed = 1;
  int threads = 0;
  bool no_avoidance = false;
  bool detour = true;
  bool big_tick = true;
};

int run_demo(const DemoArgs& a) {
  const std::string scene = a.scene.empty() ? default_scene() : a.scene;
  const WorldFile file = open_world_or_builtin(scene, {});
  const World& world = file.world;
  const int threads = effective_threads(a.threads);
  NavRunSettings settings;
  settings.agents = a.agents;
  settings.seed = a.seed;
  settings.crowd.batch.threads = a.threads;
  settings.crowd.avoidance = !a.no_avoidance;
  settings.crowd.trace = true;
  double build_seconds = 0;
  std::string navmesh_from;
  const NavMesh navmesh = navmesh_for(file, scene, a.navmesh, settings.crowd, a.threads, build_seconds, navmesh_from);
  const NavMeshStats ns = navmesh.stats();
  std::printf("capsweep demo: %zu agents walk to random reachable goals on %s (%zu triangles), %zu ticks at %.0f Hz, "
              "%d threads, %s kernel\n",
              a.agents, scene.c_str(), world.triangle_count(), a.ticks, 1.0 / settings.crowd.move.dt, threads,
              kernel_isa());
  std::printf("navmesh: %zu tiles, %zu polygons, %s in %.2f s (%s)\n", ns.tiles, ns.polygons,
              navmesh_from.c_str(), build_seconds,
              describe(navmesh.settings()).c_str());

  // One core first, without checks: the per-core rate, and the reference the all-thread run must
  // match bit for bit.
  const std::size_t probe_ticks = std::min<std::size_t>(a.ticks, 60);
  NavRunSettings one = settings;
  one.crowd.batch.threads = 1;
  one.crowd.trace = false;
  one.check_segments = false;
  NavRun single(world, navmesh, one);
  std::vector<std::uint64_t> reference;
  for (std::size_t t = 0; t < probe_ticks; ++t) {
    single.tick();
    reference.push_back(single.state_hash());
  }

  NavRun run(world, navmesh, settings);
  // The trace: every straight segment travelled, as a claimed move with the state its agent
  // started the tick in (CWSQ version 2, as crowd --trace writes it), for capsweep view and
  // capsweep validate. An agent that travels nothing in a tick (arrived, waiting for a path, held)
  // writes one segment of no motion where it stands, so that every agent is in every tick: a
  // replay finds even one that never moves.
  std::optional<QueryWriter> trace;
  if (!a.trace.empty()) trace.emplace(a.trace, std::vector<std::string>{scene}, QueryRecords::claimed_moves);
  std::vector<NavAgent> started;
  std::optional<TopDownPicture> picture;
  if (!a.png.empty()) {
    picture.emplace(world);
    for (const Triangle& t : navmesh.triangles()) picture->navmesh(t);
  }
  std::size_t mismatched = 0;
  NavRunTotals probe_span;
  std::vector<Vec3> before;
  for (std::size_t t = 0; t < a.ticks; ++t) {
    before.clear();
    for (const NavAgent& ag : run.crowd().agents()) before.push_back(ag.capsule.a);
    if (trace) started.assign(run.crowd().agents().begin(), run.crowd().agents().end());
    run.tick();
    if (trace) {
      const auto segments = run.crowd().segments();
      for (std::size_t i = 0; i < segments.size(); ++i) {
        if (segments[i].count == 0) {
          trace->add(ClaimedMove{started[i].capsule, Vec3{}, settings.crowd.move.dt, started[i].vertical_speed,
                                 started[i].ground_triangle != kNoTriangle, started[i].layers});
        }
        for (int k = 0; k < segments[i].count; ++k) {
          trace->add(ClaimedMove{segments[i].segment[k].capsule, segments[i].segment[k].motion, settings.crowd.move.dt,
                                 started[i].vertical_speed, started[i].ground_triangle != kNoTriangle, started[i].layers});
        }
      }
    }
    if (t + 1 == probe_ticks) probe_span = run.totals();
    if (t < reference.size() && run.state_hash() != reference[t]) ++mismatched;
    if (picture) {
      const auto agents = run.crowd().agents();
      for (std::size_t i = 0; i < agents.size(); ++i) {
        const float speed = length(Vec3{agents[i].velocity.x, 0, agents[i].velocity.z});
        picture->trail(before[i], agents[i].capsule.a, speed, settings.max_speed);
      }
    }
  }
  if (trace) {
    trace->finish();
    std::printf("trace: %llu segments -> %s\n", (unsigned long long)trace->count(), a.trace.c_str());
  }
  const NavRunTotals& total = run.totals();
  const NavRunTotals& first = single.totals();
  const double minutes = double(total.agent_ticks) * settings.crowd.move.dt / 60.0;
  const std::uint64_t finished = total.goals_reached + total.goals_given_up;
  std::printf("goals: %llu reached, %llu given up (%.1f %% reached), %.2f reached per agent-minute\n",
              (unsigned long long)total.goals_reached, (unsigned long long)total.goals_given_up,
              finished ? 100.0 * double(total.goals_reached) / double(finished) : 0.0,
              double(total.goals_reached) / minutes);
  std::printf("time to goal / shortest-path time at walking speed: median %.2f, p95 %.2f\n",
              double(percentile(total.time_ratios, 0.5)), double(percentile(total.time_ratios, 0.95)));
  std::printf("agent-ticks: %llu; blocked %.1f %% (stalled, walking under a tenth of its speed, not blocked: %.1f %%), "
              "no_path %llu, off_mesh %llu\n",
              (unsigned long long)total.agent_ticks, 100.0 * double(total.blocked) / double(total.agent_ticks),
              100.0 * double(total.stalled) / double(total.agent_ticks), (unsigned long long)total.no_path,
              (unsigned long long)total.off_mesh);
  const double one_rate = double(first.agent_ticks) / (first.planning_seconds + first.moving_seconds);
  const double same_rate = double(probe_span.agent_ticks) / (probe_span.planning_seconds + probe_span.moving_seconds);
  std::printf("agent-ticks/s including planning: %.0f per core (1 thread, first %zu ticks), %.0f on %d threads over the "
              "same ticks (%.2fx); planning + steering %.1f us, World::move %.1f us per agent-tick on 1 core (%.2fx)\n",
              one_rate, probe_ticks, same_rate, threads, same_rate / one_rate,
              1e6 * first.planning_seconds / double(first.agent_ticks), 1e6 * first.moving_seconds / double(first.agent_ticks),
              first.planning_seconds / first.moving_seconds);
  std::printf("over all %zu ticks on %d threads: planning + steering %.2f ms, World::move %.2f ms per tick (%.2fx)\n",
              a.ticks, threads, 1e3 * total.planning_seconds / double(total.ticks),
              1e3 * total.moving_seconds / double(total.ticks), total.planning_seconds / total.moving_seconds);
  if (picture) {
    const auto agents = run.crowd().agents();
    // Every tenth agent's planned path (all of them would hide the level).
    for (std::size_t i = 0; i < agents.size(); ++i) {
      picture->agent(agents[i].capsule.a, agents[i].capsule.radius);
      if (i % 10 != 0) continue;
      const std::vector<Vec3> corners = run.crowd().corners(i, 4);
      Vec3 from = agents[i].capsule.a;
      for (const Vec3& c : corners) {
        picture->path(from, c);
        from = c;
      }
    }
    constexpr TopDownPicture::Mark kMarks[] = {TopDownPicture::Mark::navmesh, TopDownPicture::Mark::path,
                                               TopDownPicture::Mark::agent};
    picture->legend(settings.max_speed, kMarks);
    picture->write_png(a.png, std::vector<std::string>{scene});
    std::printf("picture: %dx%d -> %s (navmesh teal, trails blue-green-red by speed, every tenth agent's planned "
                "path white, agents white discs; a legend and a scale bar)\n",
                picture->width(), picture->height(), a.png.c_str());
  }
  if (a.detour) {
    const DetourAloneTotals d = run_detour_alone(world, navmesh, settings, a.ticks);
    const double capsweep_us = 1e6 * (first.planning_seconds + first.moving_seconds) / double(first.agent_ticks);
    const double detour_us = 1e6 * d.update_seconds / double(d.agent_ticks);
    std::printf("against Detour alone (DetourCrowd's own integration on the same navmesh, spawn, speeds and goal rule, "
                "%zu ticks): %llu of %llu agent-ticks end inside geometry (%.2f %%), %llu pass through it (%.2f %%), "
                "%llu goals reached; capsweep: %llu and %llu\n",
                a.ticks, (unsigned long long)d.inside, (unsigned long long)d.agent_ticks,
                100.0 * double(d.inside) / double(d.agent_ticks), (unsigned long long)d.through,
                100.0 * double(d.through) / double(d.agent_ticks), (unsigned long long)d.goals_reached,
                (unsigned long long)total.penetrating, (unsigned long long)total.crossing_segments);
    std::printf("what exactness costs: capsweep's tick %.2f us per agent-tick (planning + World::move, 1 core), "
                "DetourCrowd's update %.2f us (1 thread): %.2fx\n",
                capsweep_us, detour_us, capsweep_us / detour_us);
  }
  std::printf("determinism: the first %zu ticks are %s on 1 and %d threads\n", probe_ticks,
              mismatched ? "NOT identical" : "identical", threads);
  std::printf("invariants: %llu agent-ticks inside the skin, %llu overlapping agent pairs, %llu of %llu traced "
              "segments through geometry (tolerance %.1e m)\n",
              (unsigned long long)total.penetrating, (unsigned long long)total.overlapping,
              (unsigned long long)total.crossing_segments, (unsigned long long)total.segments, double(run.tolerance()));
  return total.penetrating + total.overlapping + total.crossing_segments + mismatched > 0 ? 1 : 0;
}

// A 10,000-agent tick, measured: the scene five times side by side, its navmesh built, 20
// ticks after 10 on one core then on every thread (planning and World::move timed, checks not).
void report_big_tick(const DemoArgs& a) {
  constexpr std::size_t kAgents = 10'000, kWarmUp = 10, kTicks = 20;
  SceneArgs scene_args;
  scene_args.path = a.scene.empty() ? default_scene() : a.scene;
  const World world = side_by_side(load_world(scene_args), 5);
  NavRunSettings settings;
  settings.agents = kAgents;
  settings.seed = a.seed;
  settings.check_segments = false;
  settings.crowd.avoidance = !a.no_avoidance;
  const Capsule person{{0, 0, 0}, {0, kPersonAxis, 0}, kPersonRadius};
  const NavMesh navmesh = NavMesh::build(world, navmesh_settings(settings.crowd.move, person), a.threads);
  const int threads = effective_threads(a.threads);
  double ms[2] = {};
  for (int k = 0; k < 2; ++k) {
    NavRunSettings s = settings;
    s.crowd.batch.threads = k == 0 ? 1 : a.threads;
    NavRun run(world, navmesh, s);
    // Past the first paths (every agent plans at its first tick), then timed.
    for (std::size_t t = 0; t < kWarmUp; ++t) run.tick();
    const double before = run.totals().planning_seconds + run.totals().moving_seconds;
    for (std::size_t t = 0; t < kTicks; ++t) run.tick();
    ms[k] = 1e3 * (run.totals().planning_seconds + run.totals().moving_seconds - before) / double(kTicks);
  }
  std::printf("a 10000-agent tick (the scene five times side by side, %zu ticks after the first paths, planning included) takes %.2f ms on "
              "1 core, %.2f ms on %d threads\n",
              kTicks, ms[0], ms[1], threads);
}

}  // namespace

Command add_demo(CLI::App& app) {
  auto a = std::make_shared<DemoArgs>();
  CLI::App* c = app.add_subcommand(
      "demo",
      "The main job: 2,000 agents on Recast's test level (scenes/recast_nav_test.obj), each walking to a sequence of "
      "random reachable goals along Detour paths while World::move moves their bodies exactly, for 600 ticks at 60 Hz; "
      "prints goals reached, time to goal against the shortest path, blocked agent-ticks, agent-ticks/s with "
      "planning, a 10,000-agent tick, determinism and the invariants (the moving arena: capsweep demo-arena)");
  c->add_option("--scene", a->scene, "The level (default: the repository's scenes/recast_nav_test.obj)");
  c->add_option("--navmesh", a->navmesh, "Read the navmesh from this file (capsweep navmesh) instead of building it");
  c->add_option("--agents", a->agents, "Agents")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  c->add_option("--ticks", a->ticks, "Ticks at 60 Hz")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  c->add_option("--seed", a->seed, "Spawn places, goals and speeds")->capture_default_str();
  c->add_option("--png", a->png, "The navmesh, trails and paths from above; written atomically")->capture_default_str();
  c->add_option("--trace", a->trace,
                "Every straight segment travelled as a claimed move, as crowd --trace writes it (capsweep view --scene "
                "scenes/recast_nav_test.obj --trace replays it); written atomically");
  c->add_flag("--no-avoidance", a->no_avoidance, "Agents do not steer around each other (World::move still keeps them apart)");
  c->add_flag("!--no-detour", a->detour, "Skip the comparison with DetourCrowd alone");
  c->add_flag("!--no-big-tick", a->big_tick, "Skip the 10,000-agent tick");
  add_threads(*c, a->threads);
  return [a] {
    const int code = run_demo(*a);
    if (a->big_tick) report_big_tick(*a);
    return code;
  };
}

Command add_navmesh(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string out;
    int threads = 0;
    float step_height = MoveSettings{}.step_height;
    float max_slope = MoveSettings{}.max_slope_degrees;
    float radius = kPersonRadius, height = kPersonAxis + 2 * kPersonRadius;
    std::uint32_t layers = kAllLayers;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("navmesh",
                                   "Builds the scene's Recast navmesh for a body and MoveSettings (tiles in parallel) "
                                   "and writes it as a CWNM file (docs/FORMATS.md)");
  add_scene_options(*c, a->scene);
  c->add_option("--out", a->out, "The navmesh file, written atomically")->required();
  c->add_option("--step-height", a->step_height, "MoveSettings::step_height: the navmesh's climb, m")
      ->check(CLI::Range(0.f, 100.f))->capture_default_str();
  c->add_option("--max-slope", a->max_slope, "MoveSettings::max_slope_degrees: walkable slope, degrees")
      ->check(CLI::Range(0.f, 90.f))->capture_default_str();
  c->add_option("--radius", a->radius, "The body's radius, m")->check(CLI::Range(0.01f, 100.f))->capture_default_str();
  c->add_option("--height", a->height, "The body's height, m")->check(CLI::Range(0.02f, 1000.f))->capture_default_str();
  add_mask(*c, a->layers, "The layers agents collide with, e.g. 1,3 (default every layer)");
  add_threads(*c, a->threads);
  return [a] {
    if (a->height < 2 * a->radius) throw UsageError("--height must be at least twice --radius");
    const World world = load_world(a->scene);
    MoveSettings move;
    move.step_height = a->step_height;
    move.max_slope_degrees = a->max_slope;
    const Capsule body{{0, a->radius, 0}, {0, a->height - a->radius, 0}, a->radius};
    const auto start = std::chrono::steady_clock::now();
    const NavMesh mesh = NavMesh::build(world, navmesh_settings(move, body, a->layers), a->threads);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    mesh.write(a->out);
    const NavMeshStats s = mesh.stats();
    std::printf("navmesh of %s: %zu tiles, %zu polygons, built in %.3f s on %d threads (%s) -> %s\n",
                a->scene.path.c_str(), s.tiles, s.polygons, seconds, effective_threads(a->threads),
                describe(mesh.settings()).c_str(), a->out.c_str());
    return 0;
  };
}

}  // namespace capsweep
