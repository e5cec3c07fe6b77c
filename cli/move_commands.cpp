// capsweep demo | crowd | validate: the movement commands.
#include <unistd.h>

#include <sstream>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include "tools/arena.h"
#include "tools/moving_arena.h"
#include "io/atomic_file.h"
#include "cli/commands.h"
#include "tools/crowd.h"
#include "tools/picture.h"
#include "core/body.h"
#include <capsweep/files.h>
#include "io/query_format.h"

namespace capsweep {

namespace {

struct CrowdRun {
  std::string scene_name;
  std::size_t ticks = 600;
  std::string trace_path, png_path;
  std::span<const MovingPart> parts;  // the instances the picture marks, by id and name
};

// Where each named part went over a run: the box of its triangles at every frame, from above.
class PartPaths {
 public:
  PartPaths(const World& world, std::span<const MovingPart> parts) {
    for (const MovingPart& part : parts) {
      std::vector<std::uint32_t> triangles;
      for (std::uint32_t i = 0; i < world.triangle_count(); ++i) {
        const Instance* in = world.instance_of(i);
        if (in && in->id == part.id) triangles.push_back(i);
      }
      paths_.push_back({part.name, std::move(triangles), {}});
    }
    add(world);
  }
  void add(const World& frame) {
    for (Path& p : paths_) {
      for (std::uint32_t i : p.triangles) p.box.grow(bounds(frame.triangle(i)));
    }
  }
  // Each drawn in the picture's colour for its order; returns "door orange, lift cyan".
  std::string draw(TopDownPicture& picture) const {
    std::string legend;
    for (std::size_t k = 0; k < paths_.size(); ++k) {
      if (paths_[k].box.empty()) continue;
      picture.moving_part(paths_[k].box, k);
      legend += (legend.empty() ? "" : ", ") + std::string(paths_[k].name) + " " + TopDownPicture::part_colour_name(k);
    }
    return legend;
  }
  // The parts' names, part k's in the picture's colour k (a part that never got a box keeps its place).
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const Path& p : paths_) out.push_back(p.name);
    return out;
  }

 private:
  struct Path {
    const char* name;
    std::vector<std::uint32_t> triangles;
    Aabb box;
  };
  std::vector<Path> paths_;
};

// A hash of every agent's state: equal for runs that are equal bit for bit.
std::uint64_t state_hash(const std::vector<Agent>& agents) {
  std::uint64_t h = 1469598103934665603ull;
  for (const Agent& a : agents) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&a);
    for (std::size_t k = 0; k < sizeof(Capsule); ++k) h = (h ^ p[k]) * 1099511628211ull;
    const unsigned char* e = reinterpret_cast<const unsigned char*>(&a.ellipsoid);
    for (std::size_t k = 0; k < sizeof(Ellipsoid); ++k) h = (h ^ e[k]) * 1099511628211ull;
    std::uint32_t vs;
    std::memcpy(&vs, &a.vertical_speed, sizeof vs);
    h = (h ^ vs) * 1099511628211ull;
  }
  return h;
}

class ProgressBar {
 public:
  explicit ProgressBar(std::size_t total) : total_(total), tty_(isatty(2)) {}
  void update(std::size_t done) {
    const int percent = int(100 * done / total_);
    if (percent == shown_ || (!tty_ && percent % 25 != 0)) return;
    shown_ = percent;
    const int filled = percent * 40 / 100;
    std::fprintf(stderr, "%s[%s%s] %3d%%  tick %zu/%zu%s", tty_ ? "\r" : "", std::string(std::size_t(filled), '#').c_str(),
                 std::string(std::size_t(40 - filled), '.').c_str(), percent, done, total_, tty_ ? "" : "\n");
    if (tty_ && done == total_) std::fputc('\n', stderr);
    std::fflush(stderr);
  }

 private:
  std::size_t total_;
  bool tty_;
  int shown_ = -1;
};

int run_crowd(const World& world, CrowdSettings settings, const CrowdRun& run) {
  const int threads = effective_threads(settings.batch.threads);
  const char* shapes = settings.agent_shapes.empty() || settings.agent_shapes == std::vector{AgentShape::capsule}
                           ? "capsules"
                       : settings.agent_shapes == std::vector{AgentShape::ellipsoid} ? "ellipsoids"
                                                                                        : "capsules and ellipsoids";
  std::printf("capsweep crowd: %zu agents (%s), %zu ticks at %.0f Hz on %s (%zu triangles), agents %s, %d threads, %s "
              "kernel (%s)\n",
              settings.agents, shapes, run.ticks, 1.0 / settings.move.dt, run.scene_name.c_str(), world.triangle_count(),
              settings.move.agents_collide ? "collide" : "pass through each other", threads, kernel_isa(),
              kernel_isa_reason());

  // One core, first: the per-core rate, and the reference the all-core run must match bit for bit.
  const std::size_t probe_ticks = std::min<std::size_t>(run.ticks, 60);
  CrowdSettings one = settings;
  one.batch.threads = 1;
  one.trace = false;
  Crowd single(world, one);
  std::vector<std::uint64_t> reference;
  for (std::size_t t = 0; t < probe_ticks; ++t) {
    single.tick();
    reference.push_back(state_hash(single.agents()));
  }

  settings.trace = !run.trace_path.empty();
  Crowd crowd(world, settings);
  // The trace is a claimed-move file (CWSQ version 2): each segment with the state its agent
  // started the tick in, which is what a server validating it would know (Crowd::claims); version
  // 5 when the agents see fewer than every layer, so that each claim carries its agent's mask;
  // version 7 when some are ellipsoids.
  std::vector<ClaimedMove> claims;
  std::unique_ptr<QueryWriter> trace;
  if (settings.trace) {
    trace = std::make_unique<QueryWriter>(run.trace_path, std::vector<std::string>{run.scene_name},
                                          crowd.has_ellipsoids() ? QueryRecords::shaped_claimed_moves
                                          : crowd.masked()       ? QueryRecords::masked_claimed_moves
                                                                 : QueryRecords::claimed_moves);
  }
  std::optional<TopDownPicture> picture;
  std::optional<PartPaths> paths;
  if (!run.png_path.empty()) {
    picture.emplace(world);
    paths.emplace(world, run.parts);
  }
  ProgressBar bar(run.ticks);
  std::size_t penetrating = 0, overlapping = 0, bad_ticks = 0, mismatched = 0;
  CrowdTotals probe_span;  // the all-thread run over the ticks the one-core run covered
  for (std::size_t t = 0; t < run.ticks; ++t) {
    crowd.tick();
    if (t + 1 == probe_ticks) probe_span = crowd.totals();
    if (t < reference.size() && state_hash(crowd.agents()) != reference[t]) ++mismatched;
    const CrowdViolations v = crowd.check();
    penetrating += v.penetrating;
    overlapping += v.overlapping;
    if (v.penetrating + v.overlapping > 0 && bad_ticks++ < 5) {
      std::fprintf(stderr, "\ninvariant violated at tick %zu: %zu agents inside the skin, %zu pairs overlapping\n", t,
                   v.penetrating, v.overlapping);
    }
    if (trace) {
      claims.clear();
      crowd.claims(claims);
      for (const ClaimedMove& m : claims) trace->add(m);
    }
    if (picture) {
      paths->add(crowd.frame());
      for (std::size_t i = 0; i < crowd.agents().size(); ++i) {
        const MoveResult& r = crowd.results()[i];
        const Vec3 from = crowd.previous()[i].capsule.a;
        const float speed = length(Vec3{r.moved.x, 0, r.moved.z}) / settings.move.dt;
        picture->trail(from, r.capsule.a, speed, settings.max_speed);
        for (int k = 0; k < r.contact_count; ++k) {
          const MoveContact& c = r.contacts[k];
          if (c.agent != kNoAgent || c.normal.y < 0.7071f) picture->contact(c.point, c.agent != kNoAgent);
        }
      }
    }
    bar.update(t + 1);
  }
  if (trace) trace->finish();

  const CrowdTotals& total = crowd.totals();
  const CrowdTotals& first = single.totals();
  const double rate_all = double(total.agent_ticks) / total.move_seconds;
  const double rate_one = double(first.agent_ticks) / first.move_seconds;
  // Scaling compares the same ticks: later ticks cost more (agents crowd at their goals).
  const double rate_same = double(probe_span.agent_ticks) / probe_span.move_seconds;
  std::printf("agent-ticks/s: %.0f per core (1 thread, first %zu ticks), %.0f on %d threads over the same ticks "
              "(%.2fx), %.0f over all %zu ticks\n",
              rate_one, probe_ticks, rate_same, threads, rate_same / rate_one, rate_all, run.ticks);
  std::printf("a %zu-agent tick takes %.2f ms on 1 core, %.2f ms on %d threads\n", settings.agents,
              1e3 * double(settings.agents) / rate_one, 1e3 * double(settings.agents) / rate_all, threads);
  std::printf("sweeps per agent-tick: %.2f\n", double(total.sweeps) / double(total.agent_ticks));
  if (settings.keep_neighbourhoods) {
    const MoveCacheCounts kept = crowd.neighbourhoods().counts();
    std::printf("kept neighbourhoods (margin %.2f m): gathered in %.1f %% of agent-ticks, none kept in %.2f %%, "
                "%.1f KB an agent\n",
                double(settings.neighbourhoods.margin), 100.0 * double(kept.gathered) / double(std::max<std::uint64_t>(kept.agent_ticks, 1)),
                100.0 * double(kept.uncached) / double(std::max<std::uint64_t>(kept.agent_ticks, 1)),
                double(crowd.neighbourhoods().memory_bytes()) / 1024.0 / double(std::max<std::size_t>(crowd.agents().size(), 1)));
  }
  std::printf("agent-ticks: %llu; stepped up %llu, snapped down %llu, blocked %llu, falling %llu, held by other "
              "agents %llu, wedged %llu\n",
              (unsigned long long)total.agent_ticks, (unsigned long long)total.stepped,
              (unsigned long long)total.snapped, (unsigned long long)total.blocked, (unsigned long long)total.falling,
              (unsigned long long)total.held, (unsigned long long)total.wedged);
  if (settings.poses) {
    std::printf("moving parts: %llu agent-ticks carried (grounded on a part that moved), %llu crushed (a part ran "
                "into them with nowhere to go: flagged, left where they were, not counted inside the skin)\n",
                (unsigned long long)total.carried, (unsigned long long)total.crushed);
  }
  std::printf("depenetration pushes: %llu (%.4f m in total; not travel); respawned after falling off the world: "
              "%llu (%llu through holes of the level, %llu through cracks between triangles)\n",
              (unsigned long long)total.depenetrated, total.pushed, (unsigned long long)total.respawned,
              (unsigned long long)total.fell_through_holes, (unsigned long long)total.fell_through_cracks);
  // A crack is a path through a triangle: say where, for whoever fixes the solver.
  for (std::size_t k = 0; k < std::min<std::size_t>(crowd.cracks().size(), 5); ++k) {
    const FallThroughCrack& c = crowd.cracks()[k];
    const bool ellipsoid = c.segment.ellipsoid.radii.x > 0;
    const Vec3 from = ellipsoid ? c.segment.ellipsoid.centre : c.segment.capsule.a, by = c.segment.motion;
    std::fprintf(stderr,
                 "fell through a crack: agent %zu at tick %llu, its %s from (%.6g, %.6g, %.6g) by (%.6g, %.6g, "
                 "%.6g) met triangle %u at t = %.6g (depth %.3g)\n",
                 c.agent, (unsigned long long)c.tick, ellipsoid ? "centre" : "capsule's base", double(from.x),
                 double(from.y), double(from.z), double(by.x), double(by.y), double(by.z), c.hit.triangle,
                 double(c.hit.t), double(c.hit.depth));
  }
  if (trace) std::printf("trace: %llu segments -> %s\n", (unsigned long long)trace->count(), run.trace_path.c_str());
  if (picture) {
    for (const Agent& a : crowd.agents()) picture->agent(a.capsule.a, a.capsule.radius);
    const std::string legend = paths->draw(*picture);
    picture->legend(settings.max_speed, paths->names());
    picture->write_png(run.png_path, std::vector<std::string>{run.scene_name});
    std::printf("picture: %dx%d -> %s%s\n", picture->width(), picture->height(), run.png_path.c_str(),
                legend.empty() ? "" : (" (" + legend + ")").c_str());
  }
  std::printf("determinism: the first %zu ticks are %s on 1 and %d threads\n", probe_ticks,
              mismatched ? "NOT identical" : "identical", threads);
  std::printf("invariants: %zu agent-ticks inside the skin, %zu overlapping agent pairs, %llu falls through cracks "
              "between triangles (tolerance %.1e m)\n",
              penetrating, overlapping, (unsigned long long)total.fell_through_cracks, double(crowd.tolerance()));
  return penetrating + overlapping + mismatched + total.fell_through_cracks > 0 ? 1 : 0;
}

// Which part of a too_fast move's allowance it broke, for the CSV's reason column.
std::string too_fast_reason(const Vec3& motion, const MoveAllowance& allowed) {
  char text[160];
  const double h = std::hypot(double(motion.x), double(motion.z)), y = motion.y;
  if (h > allowed.horizontal) {
    std::snprintf(text, sizeof text, "horizontal %.4g m > %.4g m allowed", h, double(allowed.horizontal));
  } else {
    std::snprintf(text, sizeof text, "vertical %+.4g m outside [%.4g, %.4g] m allowed", y, double(allowed.down),
                  double(allowed.up));
  }
  return text;
}

// The time of a 10,000-agent tick, measured rather than scaled: the arena holds 2,000 people
// standing apart, so five arenas side by side (45 m apart) hold the 10,000. 20 ticks on one
// core, then on every thread; only World::move is timed, as for the rates above.
void report_big_tick(CrowdSettings settings) {
  constexpr std::size_t kAgents = 10'000, kTicks = 20;
  std::vector<Triangle> arenas;
  const std::vector<Triangle> one = make_arena();
  for (int k = 0; k < 5; ++k) {
    for (Triangle t : one) {
      for (Vec3& v : t.v) v.x += 45.f * float(k);
      arenas.push_back(t);
    }
  }
  const World world(arenas);
  settings.agents = kAgents;
  const int threads = effective_threads(settings.batch.threads);
  double ms[2] = {};
  for (int run = 0; run < 2; ++run) {
    CrowdSettings s = settings;
    s.batch.threads = run == 0 ? 1 : settings.batch.threads;
    Crowd crowd(world, s);
    for (std::size_t t = 0; t < kTicks; ++t) crowd.tick();
    ms[run] = 1e3 * crowd.totals().move_seconds / double(kTicks);
  }
  std::printf("a 10000-agent tick (five arenas side by side, %zu ticks) takes %.2f ms on 1 core, %.2f ms on %d "
              "threads (target: under 10 ms on 1 core)\n",
              kTicks, ms[0], ms[1], threads);
}

// The options demo and crowd share.
struct CrowdArgs {
  std::size_t agents = 0, ticks = 600;
  std::uint64_t seed = 1;
  int threads = 0;
  float speed = 0;  // 0: each agent walks at 1-2 m/s
  bool no_agent_collisions = false;
  bool no_neighbourhoods = false;
  float margin = MoveCacheSettings{}.margin;
  std::uint32_t layers = kAllLayers;  // every agent's (Agent::layers)
  std::string shape = "capsule";      // capsule, ellipsoid or mixed
  std::string png, trace;
  SceneArgs scene;
};

void add_crowd_options(CLI::App& c, CrowdArgs& a) {
  c.add_option("--seed", a.seed, "Spawn places, goals and speeds")->capture_default_str();
  add_threads(c, a.threads);
  c.add_option("--speed", a.speed, "Every agent's walking speed, m/s (default: 1-2 m/s each)")
      ->check(CLI::Range(0.f, 1e5f) & CLI::PositiveNumber);
  c.add_flag("--no-agent-collisions", a.no_agent_collisions, "Agents pass through each other");
  c.add_flag("--no-neighbourhoods", a.no_neighbourhoods,
             "Keep no agent's neighbourhood between ticks (MoveCache): the same moves, every walk from the BVH's root");
  c.add_option("--neighbourhood-margin", a.margin,
               "How far each agent's kept neighbourhood reaches beyond one tick's reach, metres")
      ->check(CLI::Range(0.f, 100.f))
      ->capture_default_str();
  add_mask(c, a.layers,
           "The layers every agent collides with, e.g. 1,3 (the trace then carries them: CWSQ version 5); default "
           "every layer");
  c.add_option("--shape", a.shape,
               "capsule; ellipsoid: each agent the person as an ellipsoid (radii 0.35, 0.9, 0.35); mixed: every "
               "other agent an ellipsoid (the trace is then CWSQ version 7)")
      ->check(CLI::IsMember({"capsule", "ellipsoid", "mixed"}))
      ->capture_default_str();
}

CrowdSettings crowd_settings(const CrowdArgs& a) {
  CrowdSettings s;
  s.agents = a.agents;
  s.seed = a.seed;
  s.batch.threads = a.threads;
  s.move.agents_collide = !a.no_agent_collisions;
  s.keep_neighbourhoods = !a.no_neighbourhoods;
  s.neighbourhoods.margin = a.margin;
  if (a.speed > 0) s.min_speed = s.max_speed = a.speed;
  if (a.layers != kAllLayers) s.agent_layers = {a.layers};
  if (a.shape == "ellipsoid") s.agent_shapes = {AgentShape::ellipsoid};
  if (a.shape == "mixed") s.agent_shapes = {AgentShape::capsule, AgentShape::ellipsoid};
  return s;
}

}  // namespace

Command add_arena_demo(CLI::App& app) {
  auto a = std::make_shared<CrowdArgs>();
  a->agents = 2000;
  a->png = "capsweep_demo.png";
  CLI::App* c = app.add_subcommand("demo-arena",
                                   "The moving arena: 2,000 agents walk the built-in arena, with a sliding door and a lift "
                                   "up to an upper floor, toward random goals for 600 ticks at 60 Hz; prints "
                                   "agent-ticks/s, the agent-ticks the moving parts carried and crushed, and any "
                                   "invariant violation");
  c->add_option("--agents", a->agents, "Agents")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  c->add_option("--ticks", a->ticks, "Ticks at 60 Hz")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  c->add_option("--png", a->png, "The trails from above, the door's and the lift's paths marked; written atomically")
      ->capture_default_str();
  c->add_option("--trace", a->trace,
                "Every straight segment travelled as a claimed move, as crowd --trace writes it (capsweep view --scene "
                "@arena --trace replays it)");
  add_crowd_options(*c, *a);
  return [a] {
    const World world = make_moving_arena();
    CrowdRun run;
    run.scene_name = "the built-in arena with a door and a lift";
    run.ticks = a->ticks;
    run.png_path = a->png;
    run.trace_path = a->trace;
    run.parts = kArenaMovingParts;
    CrowdSettings settings = crowd_settings(*a);
    settings.poses = [motion = ArenaMotion(settings.move.dt)](std::uint64_t, std::span<const Agent> agents) mutable {
      return motion.next(agents);
    };
    const int code = run_crowd(world, settings, run);
    report_big_tick(crowd_settings(*a));
    return code;
  };
}

Command add_crowd(CLI::App& app) {
  auto a = std::make_shared<CrowdArgs>();
  CLI::App* c = app.add_subcommand("crowd", "The demo's crowd on any scene");
  add_scene_options(*c, a->scene);
  add_poses(*c, a->scene);
  c->add_option("--agents", a->agents, "Agents")->required()->check(CLI::Range(1, 10'000'000));
  c->add_option("--ticks", a->ticks, "Ticks at 60 Hz")->required()->check(CLI::Range(1, 10'000'000));
  c->add_option("--trace", a->trace,
                "Every straight segment travelled as a claimed move (CWSQ version 2, 5 with --mask, 7 with ellipsoids: "
                "the body where it starts, its displacement, the agent's state); validate it with --rule "
                "straight_segment, since each claim is one straight piece of a tick");
  c->add_option("--png", a->png, "The trails from above");
  add_crowd_options(*c, *a);
  return [a] {
    CrowdRun run;
    run.scene_name = a->scene.path;
    run.ticks = a->ticks;
    run.trace_path = a->trace;
    run.png_path = a->png;
    const World world = load_world(a->scene);
    return run_crowd(world, crowd_settings(*a), run);
  };
}

namespace {

// --max-speed: m/s within (0, 1e6], or "none" for no limit (0 is not "none": it would refuse
// every move that goes anywhere).
float speed_limit(const std::string& text) {
  if (text == "none") return kNoSpeedLimit;
  float v = 0;
  std::size_t used = 0;
  try {
    v = std::stof(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !(v > 0 && v <= 1e6f)) {
    throw UsageError("--max-speed " + text + ": a speed limit must be within (0, 1e6] m/s; use --max-speed none for "
                     "no limit");
  }
  return v;
}

}  // namespace

Command add_validate(CLI::App& app) {
  struct Args {
    SceneArgs scene;
    std::string moves, out;
    double dt = 0;
    std::string max_speed = "7";
    std::string rule = "tick_end";
    float jump_speed = 0;
    float tolerance = ValidateSettings{}.tolerance;
    int threads = 0;
    std::uint32_t layers = kAllLayers;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("validate",
                                   "Judges claimed moves (CWSQ: the capsule at its last accepted position, the claimed "
                                   "displacement; version 2 adds dt, vertical speed and grounded): one CSV line per move");
  add_scene_options(*c, a->scene);
  add_poses(*c, a->scene);
  c->add_option("--moves", a->moves,
                "The claimed moves (CWSQ version 1, 2, 4, 5, 7 or 8; 4, 5, 7 and 8 carry each move's layers, 7 and 8 "
                "capsule or ellipsoid agents, 8 the ground triangle)")
      ->required();
  c->add_option("--out", a->out, "The verdicts (CSV), written atomically")->required();
  add_mask(*c, a->layers, "The layers the batch sees, e.g. 1,3 (with each move's own, from a version 4 or 5 file: both); "
                          "default every layer");
  CLI::Option* dt = c->add_option("--dt", a->dt,
                                  "Seconds each move took, for a version 1 or 4 file (the others' moves carry their "
                                  "own); without it their dt is unknown and no speed is checked")
                        ->check(CLI::Range(0.0, 1e6));
  CLI::Option* max_speed =
      c->add_option("--max-speed", a->max_speed,
                    "Fastest legal speed, m/s, over the horizontal part, or none for no limit (the library's default: "
                    "7); claims of unknown dt (a version 1 or 4 file without --dt) get no speed check")
          ->capture_default_str();
  c->add_option("--rule", a->rule,
                "How a claim's path is judged: tick_end (the claim is where a tick ended, as a server sees it) or "
                "straight_segment (one straight piece travelled, as a crowd --trace holds)")
      ->check(CLI::IsMember({"tick_end", "straight_segment"}))
      ->capture_default_str();
  c->add_option("--jump-speed", a->jump_speed, "Fastest take-off from the ground, m/s (0: agents do not jump)")
      ->check(CLI::Range(0.f, 1e6f))
      ->capture_default_str();
  c->add_option("--tolerance", a->tolerance, "How far a claim may graze into geometry, m (smaller than every radius)")
      ->check(CLI::Range(0.f, 0.999999f))
      ->capture_default_str();
  add_threads(*c, a->threads);
  return [a, dt, max_speed] {
    ValidateSettings vs;
    vs.max_speed = speed_limit(a->max_speed);
    vs.rule = a->rule == "straight_segment" ? ClaimRule::straight_segment : ClaimRule::tick_end;
    vs.jump_speed = a->jump_speed;
    vs.tolerance = a->tolerance;
    // Usage before files: which dt the moves have is known from the header alone.
    const std::uint32_t version = query_file_version(a->moves);
    if (holds_claim_state(version) && dt->count() > 0) {
      throw UsageError("--dt applies to version 1 and 4 files; " + a->moves + " is version " + std::to_string(version) +
                       ", whose moves carry their own dt");
    }
    // The default limit quietly checks nothing on moves of unknown dt; a limit asked for would
    // check nothing too, which is worth saying.
    if (max_speed->count() > 0 && std::isfinite(vs.max_speed) && !holds_claim_state(version) && !(a->dt > 0)) {
      throw UsageError("--max-speed requires --dt (the seconds each move took) > 0 for " + a->moves +
                       ", which is not a version 2, 5, 7 or 8 CWSQ file (whose moves carry their own dt)");
    }
    const std::string out_path = a->out;
    const std::vector<ClaimedMove> moves = read_claimed_moves(a->moves, float(a->dt));
    // The body shrunk by the tolerance must remain a body: say so once, naming the move, rather
    // than refusing every move with a radius error.
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const bool ellipsoid = moves[i].shape == AgentShape::ellipsoid;
      const float thinnest = ellipsoid ? smallest_radius(moves[i].ellipsoid) : moves[i].from.radius;
      if (!(vs.tolerance < thinnest)) {
        throw UsageError("--tolerance (" + std::to_string(vs.tolerance) + " m) must be smaller than the " +
                         (ellipsoid ? "ellipsoid's smallest radius (" : "capsule radius (") + std::to_string(thinnest) +
                         " m) of move " + std::to_string(i) + " in " + a->moves);
      }
    }
    const World world = load_world(a->scene);
    std::vector<Verdict> verdicts(moves.size());
    BatchOptions bo;
    bo.threads = a->threads;
    bo.layers = a->layers;
    const auto start = std::chrono::steady_clock::now();
    world.validate(moves, vs, verdicts, bo);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    std::ostringstream out;
    out << "move,verdict,legal_fraction,triangle,normal_x,normal_y,normal_z,point_x,point_y,point_z,"
           "furthest_x,furthest_y,furthest_z,corrected_x,corrected_y,corrected_z,grounded,in_skin,allowed_horizontal,"
           "allowed_down,allowed_up,reason,claimed,limit,next_vertical_speed,next_grounded,next_ground_triangle,"
           "detail\n";
    out.precision(9);
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
      const Verdict& v = verdicts[i];
      const bool hit = v.hit.hit;
      // Where the body is: a capsule's first endpoint, an ellipsoid's centre.
      const bool ellipsoid = moves[i].shape == AgentShape::ellipsoid;
      const Vec3 furthest = ellipsoid ? v.furthest_ellipsoid.centre : v.furthest.a;
      const Vec3 corrected = ellipsoid ? v.corrected_ellipsoid.centre : v.corrected.a;
      out << i << ',' << name(v.kind) << ',' << v.legal_fraction << ',';
      if (hit && v.hit.triangle != kNoTriangle) out << v.hit.triangle;
      out << ',' << (hit ? v.hit.normal.x : 0) << ',' << (hit ? v.hit.normal.y : 0) << ',' << (hit ? v.hit.normal.z : 0)
          << ',' << (hit ? v.hit.point.x : 0) << ',' << (hit ? v.hit.point.y : 0) << ',' << (hit ? v.hit.point.z : 0)
          << ',' << furthest.x << ',' << furthest.y << ',' << furthest.z << ',' << corrected.x << ',' << corrected.y
          << ',' << corrected.z << ',' << (v.grounded ? 1 : 0) << ',' << (v.in_skin ? 1 : 0)
          << ',' << v.allowed.horizontal
          << ',' << v.allowed.down << ',' << v.allowed.up << ',' << name(v.reason) << ',' << v.claimed << ','
          << v.limit << ',' << v.next.vertical_speed << ',' << (v.next.grounded ? 1 : 0) << ',';
      if (v.next.ground_triangle != kNoTriangle) out << v.next.ground_triangle;
      out << ',';
      if (v.kind == VerdictKind::refused) out << describe(v.status);
      if (v.kind == VerdictKind::too_fast) out << too_fast_reason(moves[i].motion, v.allowed);
      out << '\n';
    }
    write_file_atomically(out_path, out.str(), std::vector<std::string>{a->moves, a->scene.path, a->scene.poses, a->scene.tiles});
    std::size_t counts[5] = {};
    for (const Verdict& v : verdicts) ++counts[int(v.kind)];
    std::printf("%zu moves in %.3f s: %zu ok, %zu blocked, %zu start_overlaps, %zu too_fast, %zu refused -> %s\n",
                verdicts.size(), seconds, counts[0], counts[1], counts[2], counts[3], counts[4], out_path.c_str());
    return 0;
  };
}

}  // namespace capsweep
