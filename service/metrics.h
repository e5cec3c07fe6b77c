// Request and query counters and latency histograms per RPC, lock-free (atomics), readable as
// the Info message and as a Prometheus text page.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <grpcpp/support/status.h>

#include "service/capsweep.pb.h"

namespace capsweep::service {

namespace pb = ::capsweep::v1;

enum class Rpc { sweep, move, validate, overlap, info, sweep_ellipsoid };
inline constexpr int kRpcCount = 6;
const char* name(Rpc rpc);

// Bucket bounds, seconds: 100 us to 10 s in 1-2.5-5 steps (a batch of one to a batch of 16k
// long sweeps on a loaded machine).
inline constexpr std::array<double, 16> kLatencyBounds = {1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2,
                                                          5e-2, 0.1,    0.25,   0.5,  1,    2.5,    5,    10};
inline constexpr int kStatusCodes = 17;  // grpc::StatusCode OK .. UNAUTHENTICATED

class Metrics {
 public:
  // A call has started: it counts as in flight until its record().
  void begin(Rpc rpc);
  // One finished call: its gRPC status, how many queries it answered and how many of them
  // were refused (per-query status), and how long it took on the server.
  void record(Rpc rpc, grpc::StatusCode code, std::uint64_t queries, std::uint64_t refused, double seconds);

  void fill(pb::InfoResponse& info) const;  // the rpcs field
  // The Prometheus text exposition format (version 0.0.4); `extra` lines are appended.
  std::string prometheus(const std::string& extra) const;

 private:
  struct PerRpc {
    std::atomic<std::uint64_t> requests{0}, queries{0}, refused{0};
    std::atomic<std::int64_t> in_flight{0};
    std::array<std::atomic<std::uint64_t>, kStatusCodes> codes{};
    std::array<std::atomic<std::uint64_t>, kLatencyBounds.size() + 1> buckets{};
    std::atomic<std::uint64_t> nanoseconds{0};
  };
  std::array<PerRpc, kRpcCount> rpcs_;
};

const char* code_name(grpc::StatusCode code);

}  // namespace capsweep::service
