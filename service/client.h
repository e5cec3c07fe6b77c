// A C++ client for the query service, for embedding in game servers and tools: the World batch
// API, answered by one server or by replicas behind gRPC's round_robin load balancing.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "broadphase/world.h"

namespace capsweep::v1 {
class InfoResponse;
}

namespace capsweep::service {

struct ClientOptions {
  // Where the replicas are: "host:port" entries (IP addresses, spread round robin), or one
  // gRPC target such as "dns:///capsweep.game.svc:50051" (every address the name resolves to).
  std::vector<std::string> servers;
  double deadline_seconds = 30;  // per request
  // Requests larger than this many queries are split (Sweep, Validate, Overlap; Move is one
  // tick and is never split). Several are in flight at once.
  std::size_t batch = 16384;
  int in_flight = 4;
  // Tries per request when a replica is unreachable or goes away (UNAVAILABLE): every RPC only
  // reads the world, so a retry is always safe, and gRPC sends it to another replica.
  int max_attempts = 8;  // with backoff from 20 ms doubling to 1.3 s: about 2.5 s in all
};

// A request the service refused or could not answer: the gRPC code and the server's message.
class ServiceError : public std::runtime_error {
 public:
  ServiceError(int code, const std::string& message);
  int code() const { return code_; }  // grpc::StatusCode

 private:
  int code_;
};

class Client {
 public:
  explicit Client(const ClientOptions& options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The same contracts as World's methods (broadphase/world.h), over the named world; throw
  // ServiceError. `status`, when given, receives each query's status.
  void sweep(const std::string& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
             std::span<Status> status = {}, SweepPath path = SweepPath::simd);
  void move(const std::string& world, std::span<const Agent> agents, const MoveSettings& settings,
            std::span<MoveResult> results, std::span<Status> status = {}, SweepPath path = SweepPath::simd);
  void validate(const std::string& world, std::span<const ClaimedMove> moves, const ValidateSettings& settings,
                std::span<Verdict> verdicts, SweepPath path = SweepPath::simd);
  void overlap(const std::string& world, std::span<const Capsule> capsules, float clearance,
               std::span<OverlapResult> results, std::span<Status> status = {});
  capsweep::v1::InfoResponse info();

  std::size_t retries() const;  // attempts beyond the first, so far

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The gRPC target for a server list: one entry as is (a "scheme:" target or "dns:///host:port"),
// several IP "host:port" entries as one "ipv4:" (or "ipv6:") list. Throws std::invalid_argument.
std::string channel_target(const std::vector<std::string>& servers);

}  // namespace capsweep::service
