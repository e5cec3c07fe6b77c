// capsweep serve | client | bench-service: the query service from the command line.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <capsweep/files.h>
#include <capsweep/navigation.h>

#include "tools/builtin_scene.h"
#include "cli/commands.h"
#include "tools/server_process.h"
#include "tools/workloads.h"
#include "service/capsweep.pb.h"
#include <capsweep/client.h>
#include "service/metrics_page.h"
#include "service/server.h"

namespace capsweep {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// A world to serve, with the navmesh its snapshot keeps (a damaged one is refused here, naming
// the file, as a damaged world is).
service::ServedWorld served(const std::string& name, WorldFile&& file, const std::string& path) {
  std::shared_ptr<const NavMesh> navmesh;
  if (std::optional<NavMesh> kept = NavMesh::from_snapshot(file.sections, path)) {
    navmesh = std::make_shared<const NavMesh>(*std::move(kept));
  }
  return {name, std::move(file.world), file.source, file.snapshot, file.load_seconds, std::move(navmesh)};
}

}  // namespace

// "HOST:PORT" with a port in [0, 65535] (0: any free port), or why not.
std::string check_address(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) return "wants HOST:PORT, got '" + address + "'";
  const std::string port = address.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stol(port) > 65535) {
    return "port must be a number from 0 to 65535, got '" + port + "'";
  }
  return "";
}

Command add_serve(CLI::App& app) {
  struct Args {
    std::string listen, metrics;
    std::vector<std::string> worlds;
    std::size_t max_batch = 262144;
    std::size_t max_message_mb = 64;
    int threads = 0;
    double drain = 10;
    std::size_t pose_sets = 64;
    SceneArgs scene;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("serve", "The gRPC query service (service/capsweep.proto): Sweep, Move, Validate, "
                                            "Overlap, Info; SIGHUP reloads the worlds, SIGTERM drains and exits");
  const CLI::Validator address([](std::string& text) { return check_address(text); }, "HOST:PORT");
  c->add_option("--listen", a->listen, "Where to listen (port 0: any free port)")->required()->check(address);
  c->add_option("--world", a->worlds, "NAME=FILE, once per world (a mesh, @arena or a snapshot)")->required();
  c->add_option("--metrics", a->metrics, "Serve GET /metrics (Prometheus text) on HOST:PORT")->check(address);
  c->add_option("--max-batch", a->max_batch, "Most queries in one request")->check(CLI::Range(1, 1 << 26))->capture_default_str();
  c->add_option("--max-message-mb", a->max_message_mb, "Largest request or response, MiB")
      ->check(CLI::Range(1, 2047))
      ->capture_default_str();
  add_threads(*c, a->threads);
  c->add_option("--pose-sets", a->pose_sets, "Pose sets kept (UploadPoses), least recently used out first")
      ->check(CLI::Range(0, 1 << 20))
      ->capture_default_str();
  c->add_option("--drain-seconds", a->drain, "How long calls in flight may finish after SIGTERM")
      ->check(CLI::Range(0.0, 3600.0))
      ->capture_default_str();
  c->add_option("--scale", a->scene.scale, "Multiply every coordinate of the meshes")->check(CLI::PositiveNumber);
  c->add_flag("--z-up", a->scene.z_up, "The meshes are Z up");
  c->add_option("--layers", a->scene.layers, "A layer table for the meshes (snapshots carry their own layers)");
  return [a] {
    // Before any thread exists (loading a scene starts oneTBB's workers): every thread inherits
    // the mask, so SIGTERM and SIGINT reach only the sigwait below.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGHUP);  // reload the worlds
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    service::ServerConfig config;
    config.listen = a->listen;
    config.max_batch = a->max_batch;
    config.max_message_bytes = a->max_message_mb << 20;
    config.threads = a->threads;
    config.pose_sets = a->pose_sets;
    const double drain = a->drain;
    for (const std::string& spec : a->worlds) {
      const auto eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
        throw UsageError("--world wants NAME=FILE, got '" + spec + "'");
      }
      SceneArgs scene = a->scene;
      scene.path = spec.substr(eq + 1);
      check_scene_args(scene);
      WorldFile file = open_world_or_builtin(scene.path, scene_options(scene));
      service::ServedWorld world = served(spec.substr(0, eq), std::move(file), scene.path);
      std::printf("world %s: %zu triangles from %s (%s in %.3f s%s)\n", world.name.c_str(), world.world.triangle_count(),
                  world.source.c_str(), world.snapshot ? "snapshot loaded" : "built", world.load_seconds,
                  world.navmesh ? ", with its navmesh for Navigate" : "");
      config.worlds.push_back(std::move(world));
    }
    service::Server server(std::move(config));
    std::unique_ptr<service::MetricsPage> page;
    if (!a->metrics.empty()) {
      page = std::make_unique<service::MetricsPage>(a->metrics, [&server] { return server.metrics_text(); });
      std::printf("metrics on http://%s:%d/metrics\n", a->metrics.substr(0, a->metrics.rfind(':')).c_str(), page->port());
    }
    const std::string listen = a->listen;
    std::printf("listening on %s:%d\n", listen.substr(0, listen.rfind(':')).c_str(), server.port());
    std::fflush(stdout);

    // SIGHUP reloads every world from its file (deploy: write the new snapshot under another
    // name, rename it over the served one, send SIGHUP); a file that does not load leaves the
    // world served as it was. SIGTERM or SIGINT drains and exits.
    int received = 0;
    for (;;) {
      sigwait(&stop_signals, &received);
      if (received != SIGHUP) break;
      for (const std::string& spec : a->worlds) {
        const std::string name = spec.substr(0, spec.find('=')), file = spec.substr(spec.find('=') + 1);
        try {
          SceneArgs scene = a->scene;
          scene.path = file;
          WorldFile loaded = open_world_or_builtin(file, scene_options(scene));
          server.replace_world(served(name, std::move(loaded), file));
          std::printf("SIGHUP: world %s reloaded from %s (%.3f s)\n", name.c_str(), file.c_str(), loaded.load_seconds);
        } catch (const std::exception& e) {
          std::printf("SIGHUP: world %s kept as it was: %s\n", name.c_str(), e.what());
        }
      }
      std::fflush(stdout);
    }
    std::printf("%s: draining calls in flight (up to %.1f s), then exiting\n", received == SIGTERM ? "SIGTERM" : "SIGINT",
                drain);
    std::fflush(stdout);
    server.shutdown(drain);
    server.wait();
    page.reset();
    std::printf("stopped cleanly\n");
    return 0;
  };
}

Command add_client(CLI::App& app) {
  struct Args {
    std::string servers, world, queries, out, poses;
    std::size_t batch = 16384;
    int deadline_ms = 30000, in_flight = 4;
    SweepPath path = SweepPath::simd;
    std::uint32_t layers = kAllLayers;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("client", "Sends a CWSQ file to one or more servers (round robin, retried) and "
                                             "writes the CWSR file");
  c->add_option("--server", a->servers, "ADDR[,ADDR...]: replicas, or one gRPC target such as dns:///name:port")->required();
  c->add_option("--world", a->world, "The world's name on the server")->required();
  c->add_option("--queries", a->queries,
                "The queries (CWSQ: capsules, rays and segments; or ellipsoids, version 3; versions 4 to 6 carry each "
                "query's layers)")
      ->required();
  c->add_option("--out", a->out, "The answers (CWSR), written atomically")->required();
  c->add_option("--batch", a->batch, "Queries per request")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  c->add_option("--deadline-ms", a->deadline_ms, "Per request")->check(CLI::Range(1, 86'400'000))->capture_default_str();
  c->add_option("--in-flight", a->in_flight, "Requests in flight")->check(CLI::Range(1, 256))->capture_default_str();
  add_path(*c, a->path);
  add_mask(*c, a->layers,
           "The layers the batch sees, e.g. 1,3 (with each query's own, from a version 4 or 6 file: both); default "
           "every layer");
  c->add_option("--poses", a->poses,
                "Answer at these instance poses (CSV rows id,tx,ty,tz,qx,qy,qz,qw), on a still frame; instances "
                "without a row keep theirs");
  return [a] {
    const std::vector<InstancePose> poses = a->poses.empty() ? std::vector<InstancePose>{} : read_poses(a->poses).poses;
    service::ClientOptions co;
    co.servers = split(a->servers, ',');
    co.batch = a->batch;
    co.deadline_seconds = double(a->deadline_ms) / 1000;
    co.in_flight = a->in_flight;
    const SweepPath path = a->path;
    const std::string out = a->out;
    const SweepFile queries = read_sweep_file(a->queries);  // version 3: ellipsoids, SweepEllipsoid
    const bool ellipsoids = queries.of_ellipsoids;
    const std::size_t count = queries.size();
    std::vector<SweepHit> hits(count);
    std::vector<Status> status(count);
    service::Client client(co);
    const auto start = Clock::now();
    if (ellipsoids) {
      client.sweep_ellipsoid(a->world, queries.ellipsoids, hits, status, path, a->layers, poses);
    } else {
      client.sweep(a->world, queries.capsules, hits, status, path, a->layers, poses);
    }
    const double elapsed = seconds_since(start);
    write_results(out, hits, std::vector<std::string>{a->queries});
    const auto refused = std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
    const auto hit_count = std::count_if(hits.begin(), hits.end(), [](const SweepHit& h) { return h.hit; });
    std::printf("%zu %s, %ld hits, %ld refused, %.3f s (%.0f sweeps/s) through %s, %zu retries -> %s\n", count,
                ellipsoids ? "ellipsoids" : "queries", long(hit_count), long(refused), elapsed,
                elapsed > 0 ? double(count) / elapsed : 0,
                service::channel_target(co.servers).c_str(), client.retries(), out.c_str());
    return 0;
  };
}

namespace {

struct Measured {
  double rate = 0;              // queries per second
  double p50 = 0, p99 = 0;      // seconds per request
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t k = std::min(v.size() - 1, std::size_t(p * double(v.size())));
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
  return v[k];
}

// Requests of `batch` consecutive queries (wrapping around) from `threads` callers for about
// `seconds`; `send` answers one request.
template <class Send>
Measured sustained(std::size_t total, std::size_t batch, int threads, double seconds, Send&& send) {
  std::atomic<std::size_t> next{0}, answered{0};
  std::mutex lock;
  std::vector<double> latencies;
  const auto start = Clock::now();
  auto caller = [&] {
    std::vector<double> mine;
    while (seconds_since(start) < seconds) {
      const std::size_t at = (next.fetch_add(batch) % total) / batch * batch;
      const auto t0 = Clock::now();
      send(at, std::min(batch, total - at));
      mine.push_back(seconds_since(t0));
      answered += std::min(batch, total - at);
    }
    std::lock_guard guard(lock);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(caller);
  caller();
  for (std::thread& t : pool) t.join();
  const double elapsed = seconds_since(start);
  return {double(answered.load()) / elapsed, percentile(latencies, 0.5), percentile(latencies, 0.99)};
}

}  // namespace

Command add_bench_service(CLI::App& app) {
  struct Args {
    SceneArgs scene{"@arena"};
    std::string server, world = "bench", workload = "validate", batches = "1,64,1024,16384";
    double seconds = 2.0;
    int in_flight = 3, threads = 0;
    std::size_t count = 65536;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("bench-service", "Sustained sweeps/s and latency through the service, next to "
                                                    "in-process throughput");
  add_scene_options(*c, a->scene, false);
  c->get_option("--scene")->capture_default_str();
  c->add_option("--server", a->server, "An existing server (default: a capsweep serve child on loopback)");
  c->add_option("--world", a->world, "The world's name on that server")->capture_default_str();
  c->add_option("--workload", a->workload, "tick, validate, long or ray")
      ->check(CLI::IsMember({"tick", "validate", "long", "ray"}))
      ->capture_default_str();
  c->add_option("--batches", a->batches, "Batch sizes, comma-separated")->capture_default_str();
  c->add_option("--seconds", a->seconds, "Per row")->check(CLI::Range(0.001, 600.0))->capture_default_str();
  c->add_option("--in-flight", a->in_flight, "Callers of the service")->check(CLI::Range(1, 256))->capture_default_str();
  add_threads(*c, a->threads);
  c->add_option("--count", a->count, "Distinct queries")->check(CLI::Range(1, 10'000'000))->capture_default_str();
  return [a] {
    const std::string scene = a->scene.path;
    Workload workload;
    if (!parse_workload(a->workload, workload)) throw UsageError("--workload must be tick, validate, long or ray");
    const double seconds = a->seconds;
    const int in_flight = a->in_flight;
    const auto count = a->count;
    std::vector<std::size_t> batches;
    for (const std::string& b : split(a->batches, ',')) {
      const long long v = std::atoll(b.c_str());
      if (v < 1 || v > (1 << 20)) throw UsageError("--batches wants sizes from 1 to 1048576");
      batches.push_back(std::size_t(v));
    }
    const SceneOptions so = scene_options(a->scene);
    const WorldFile file = open_world_or_builtin(scene, so);
    const World& world = file.world;
    const std::vector<SweepQuery> queries = make_workload(world, workload, count, 2026);
    BatchOptions local;
    local.threads = a->threads;

    // The server: given, or a `capsweep serve` child on loopback over the same scene.
    std::unique_ptr<ServerProcess> child;
    std::string address = a->server;
    std::string world_name = a->world;
    if (address.empty()) {
      char self[4096];
      const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
      if (n <= 0) throw std::runtime_error("cannot find the capsweep binary to start a server");
      self[n] = '\0';
      std::vector<std::string> args{"--world", world_name + "=" + scene, "--threads", std::to_string(local.threads)};
      if (so.scale != 1.f) args.insert(args.end(), {"--scale", std::to_string(so.scale)});
      if (so.z_up) args.push_back("--z-up");
      child = std::make_unique<ServerProcess>(self, args);
      address = child->address();
    }
    service::ClientOptions co;
    co.servers = {address};
    co.batch = 1 << 20;
    service::Client client(co);

    // The service must answer exactly what the library answers before its speed means anything.
    {
      std::vector<SweepHit> here(queries.size()), there(queries.size());
      world.sweep(queries, here, local);
      client.sweep(world_name, queries, there);
      for (std::size_t i = 0; i < queries.size(); ++i) {
        if (!identical(here[i], there[i])) throw std::runtime_error("query " + std::to_string(i) + ": the service answers differently");
      }
    }
    std::printf("capsweep bench-service: %s sweeps on %s (%zu triangles), %zu distinct queries, %.1f s per row,\n"
                "%d requests in flight, server %s (%s); answers checked identical to in-process\n",
                name(workload), scene.c_str(), world.triangle_count(), queries.size(), seconds, in_flight, address.c_str(),
                child ? "child process" : "given");
    std::printf("  %7s %16s %16s %8s %12s %12s %14s\n", "batch", "in-process/s", "service/s", "ratio", "p50 ms", "p99 ms",
                "in-process p50");
    for (std::size_t batch : batches) {
      // In-process: the same batches, one caller at a time on all the cores (how a game server
      // would call the library), so it measures the engine, not contention between callers.
      std::vector<SweepHit> hits(batch);
      const Measured here = sustained(queries.size(), batch, 1, seconds, [&](std::size_t at, std::size_t k) {
        world.sweep(std::span(queries).subspan(at, k), std::span(hits).first(k), local);
      });
      const Measured there = sustained(queries.size(), batch, in_flight, seconds, [&](std::size_t at, std::size_t k) {
        thread_local std::vector<SweepHit> mine;
        mine.resize(k);
        client.sweep(world_name, std::span(queries).subspan(at, k), mine);
      });
      std::printf("  %7zu %16.0f %16.0f %7.0f%% %12.3f %12.3f %14.3f\n", batch, here.rate, there.rate,
                  100 * there.rate / here.rate, there.p50 * 1e3, there.p99 * 1e3, here.p50 * 1e3);
      std::fflush(stdout);
    }
    if (child) {
      child->signal(SIGTERM);
      if (int code = child->wait(); code != 0) throw std::runtime_error("the server exited with " + std::to_string(code));
    }
    return 0;
  };
}

}  // namespace capsweep
