// Request and query counters and latency histograms per RPC, kept in a prometheus-cpp registry
// (atomic counters; one short lock per finished call for its histogram), readable as the Info
// message and as a Prometheus text page.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/support/status.h>
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include "service/capsweep.pb.h"

namespace capsweep::service {

namespace pb = ::capsweep::v1;

enum class Rpc { sweep, move, validate, overlap, info, sweep_ellipsoid, upload_poses, navigate };
inline constexpr int kRpcCount = 8;
const char* name(Rpc rpc);

// Bucket bounds, seconds: 100 us to 10 s in 1-2.5-5 steps (a batch of one to a batch of 16k
// long sweeps on a loaded machine).
inline constexpr std::array<double, 16> kLatencyBounds = {1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
                                                          5e-2, 0.1,    0.25,   0.5,  1,    2.5,    5,    10};
inline constexpr int kStatusCodes = 17;  // grpc::StatusCode OK .. UNAUTHENTICATED

class Metrics {
 public:
  Metrics();
  // A call has started: it counts as in flight until its record().
  void begin(Rpc rpc);
  // One finished call: its gRPC status, how many queries it answered and how many of them
  // were refused (per-query status), and how long it took on the server.
  void record(Rpc rpc, grpc::StatusCode code, std::uint64_t queries, std::uint64_t refused, double seconds);
  // A world served under `world` now has `triangles` (at start and on each reload).
  void set_world(const std::string& world, std::uint64_t triangles);
  // A request answered at poses of its own (carried or named by pose set).
  void posed(Rpc rpc);
  // A pose set kept (UploadPoses, or a request carrying its poses and their id), `evicted` sets
  // leaving to make room for it, `held` now held.
  void pose_set_kept(std::size_t evicted, std::size_t held);

  void fill(pb::InfoResponse& info) const;  // the rpcs field
  // The Prometheus text exposition format (version 0.0.4), with the uptime as of now.
  std::string text(double uptime_seconds) const;

 private:
  struct PerRpc {
    prometheus::Counter *requests, *queries, *refused;
    prometheus::Gauge* in_flight;
    prometheus::Histogram* latency;
    prometheus::Counter* posed;
    // An error series is added at its first error, so the page lists only codes that happened;
    // cached here so later errors skip the family's lock and lookup.
    std::array<std::atomic<prometheus::Counter*>, kStatusCodes> errors{};
  };
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* errors_;
  prometheus::Family<prometheus::Gauge>* worlds_;
  prometheus::Gauge* uptime_;
  prometheus::Counter *pose_sets_kept_, *pose_sets_evicted_;
  prometheus::Gauge* pose_sets_held_;
  std::array<PerRpc, kRpcCount> rpcs_;
};

}  // namespace capsweep::service
