// capsweep serve | client | bench-service: the query service from the command line.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

#include "tools/builtin_scene.h"
#include "cli/commands.h"
#include <capsweep/query_file.h>
#include "tools/server_process.h"
#include "tools/workloads.h"
#include <capsweep/world_file.h>
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

}  // namespace

int cmd_serve(int argc, char** argv) {
  // Before any thread exists (loading a scene starts oneTBB's workers): every thread inherits
  // the mask, so SIGTERM and SIGINT reach only the sigwait below.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const Options o(argc, argv, 2,
                  {"listen", "metrics", "max-batch", "max-message-mb", "threads", "drain-seconds", "scale"}, {"z-up"},
                  {"world"});
  service::ServerConfig config;
  config.listen = o.text("listen");
  config.max_batch = std::size_t(o.integer("max-batch", 262144, 1, 1 << 26));
  config.max_message_bytes = std::size_t(o.integer("max-message-mb", 64, 1, 2047)) << 20;
  config.threads = thread_count(o);
  const double drain = o.number("drain-seconds", 10);
  if (!(drain >= 0 && drain <= 3600)) throw UsageError("--drain-seconds must be within [0, 3600]");
  const std::vector<std::string> worlds = o.all("world");
  if (worlds.empty()) throw UsageError("--world NAME=FILE is required (once per world)");
  SceneOptions so;
  so.scale = float(o.number("scale", 1.0));
  so.z_up = o.has("z-up");
  for (const std::string& spec : worlds) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      throw UsageError("--world wants NAME=FILE, got '" + spec + "'");
    }
    WorldFile file = open_world_or_builtin(spec.substr(eq + 1), so);
    std::printf("world %s: %zu triangles from %s (%s in %.3f s)\n", spec.substr(0, eq).c_str(),
                file.world.triangle_count(), file.source.c_str(), file.snapshot ? "snapshot mapped" : "built",
                file.load_seconds);
    config.worlds.push_back({spec.substr(0, eq), std::move(file.world), file.source, file.snapshot, file.load_seconds});
  }
  service::Server server(std::move(config));
  std::unique_ptr<service::MetricsPage> page;
  if (o.has("metrics")) {
    page = std::make_unique<service::MetricsPage>(o.text("metrics"), [&server] { return server.metrics_text(); });
    std::printf("metrics on http://%s:%d/metrics\n", o.text("metrics").substr(0, o.text("metrics").rfind(':')).c_str(),
                page->port());
  }
  const std::string listen = o.text("listen");
  std::printf("listening on %s:%d\n", listen.substr(0, listen.rfind(':')).c_str(), server.port());
  std::fflush(stdout);

  int received = 0;
  sigwait(&stop_signals, &received);
  std::printf("%s: draining calls in flight (up to %.1f s), then exiting\n", received == SIGTERM ? "SIGTERM" : "SIGINT",
              drain);
  std::fflush(stdout);
  server.shutdown(drain);
  server.wait();
  page.reset();
  std::printf("stopped cleanly\n");
  return 0;
}

int cmd_client(int argc, char** argv) {
  const Options o(argc, argv, 2, {"server", "world", "queries", "out", "batch", "deadline-ms", "in-flight", "path"}, {});
  service::ClientOptions co;
  co.servers = split(o.text("server"), ',');
  co.batch = std::size_t(o.integer("batch", 16384, 1, 1 << 24));
  co.deadline_seconds = double(o.integer("deadline-ms", 30000, 1, 86'400'000)) / 1000;
  co.in_flight = int(o.integer("in-flight", 4, 1, 256));
  SweepPath path;
  if (!parse_sweep_path(o.text("path", "simd"), path)) throw UsageError("--path must be simd, scalar or brute");
  const std::string out = o.text("out");
  const std::vector<SweepQuery> queries = read_queries(o.text("queries"));
  std::vector<SweepHit> hits(queries.size());
  std::vector<Status> status(queries.size());
  service::Client client(co);
  const auto start = Clock::now();
  client.sweep(o.text("world"), queries, hits, status, path);
  const double elapsed = seconds_since(start);
  write_results(out, hits, std::vector<std::string>{o.text("queries")});
  const auto refused = std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
  const auto hit_count = std::count_if(hits.begin(), hits.end(), [](const SweepHit& h) { return h.hit; });
  std::printf("%zu queries, %ld hits, %ld refused, %.3f s (%.0f sweeps/s) through %s, %zu retries -> %s\n",
              queries.size(), long(hit_count), long(refused), elapsed, elapsed > 0 ? double(queries.size()) / elapsed : 0,
              service::channel_target(co.servers).c_str(), client.retries(), out.c_str());
  return 0;
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

int cmd_bench_service(int argc, char** argv) {
  const Options o(argc, argv, 2,
                  {"scene", "server", "world", "workload", "batches", "seconds", "in-flight", "threads", "count", "scale"},
                  {"z-up"});
  const std::string scene = o.text("scene", "@arena");
  Workload workload;
  if (!parse_workload(o.text("workload", "validate"), workload)) {
    throw UsageError("--workload must be tick, validate or long");
  }
  const double seconds = o.number("seconds", 2.0);
  if (!(seconds > 0 && seconds <= 600)) throw UsageError("--seconds must be within (0, 600]");
  const int in_flight = int(o.integer("in-flight", 3, 1, 256));
  const auto count = std::size_t(o.integer("count", 65536, 1, 10'000'000));
  std::vector<std::size_t> batches;
  for (const std::string& b : split(o.text("batches", "1,64,1024,16384"), ',')) {
    const long long v = std::atoll(b.c_str());
    if (v < 1 || v > (1 << 20)) throw UsageError("--batches wants sizes from 1 to 1048576");
    batches.push_back(std::size_t(v));
  }
  SceneOptions so;
  so.scale = float(o.number("scale", 1.0));
  so.z_up = o.has("z-up");
  const WorldFile file = open_world_or_builtin(scene, so);
  const World& world = file.world;
  const std::vector<SweepQuery> queries = make_workload(world, workload, count, 2026);
  BatchOptions local;
  local.threads = thread_count(o);

  // The server: given, or a `capsweep serve` child on loopback over the same scene.
  std::unique_ptr<ServerProcess> child;
  std::string address = o.text("server", "");
  std::string world_name = o.text("world", "bench");
  if (address.empty()) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) throw std::runtime_error("cannot find the capsweep binary to start a server");
    self[n] = '\0';
    std::vector<std::string> args{"--world", world_name + "=" + scene, "--threads", std::to_string(local.threads)};
    if (so.scale != 1.f) args.insert(args.end(), {"--scale", o.text("scale")});
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
}

}  // namespace capsweep
