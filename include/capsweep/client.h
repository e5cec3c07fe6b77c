// A C++ client for the query service, for embedding in game servers and tools: the World batch
// API, answered by one server or by replicas behind gRPC's round_robin load balancing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/world.h>

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
  // Requests at poses (each method's `poses`): a set of at least this many poses is sent by its
  // id alone, and carried only to a replica that answers FAILED_PRECONDITION (it does not hold
  // the set yet; it keeps it from then on); fewer poses travel with every request.
  std::size_t poses_by_id_from = 256;
};

// A request the service refused or could not answer: the gRPC code and the server's message.
class ServiceError : public std::runtime_error {
 public:
  ServiceError(int code, const std::string& message);
  int code() const { return code_; }  // grpc::StatusCode

 private:
  int code_;
};

// What a server says of itself (the Info call): its worlds, version, limits and counters.
struct ServerInfo {
  struct World {
    std::string name, source;  // source: the scene (and options) it was built from
    std::uint64_t triangles = 0, memory_bytes = 0;
    bool snapshot = false;  // mapped from a snapshot (else built at start-up)
    double load_seconds = 0;
  };
  struct Rpc {
    std::string rpc;  // Sweep, SweepEllipsoid, Move, Validate, Overlap, Info, UploadPoses
    std::uint64_t requests = 0, queries = 0, refused_queries = 0;
  };
  std::vector<World> worlds;
  std::string version, build;
  int threads = 0;
  std::uint32_t max_batch = 0;
  std::uint64_t max_message_bytes = 0;
  std::uint32_t max_pose_sets = 0, pose_sets = 0;  // pose sets kept at most (--pose-sets), and now
  double uptime_seconds = 0;
  std::vector<Rpc> rpcs;
  std::string metrics_text;  // the same counters as a Prometheus text page
};

class Client {
 public:
  explicit Client(const ClientOptions& options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // The same contracts as World's methods (<capsweep/world.h>), over the named world; throw
  // ServiceError. `status`, when given, receives each query's status. `layers`: the layers the
  // batch sees (SweepOptions::layers). `poses`: answered on the world's still frame at those
  // poses (World::posed; instances without a row keep theirs; no instance moved, so move()
  // carries and pushes no agent); empty: the world as loaded. Refused poses: INVALID_ARGUMENT.
  void sweep(const std::string& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
             std::span<Status> status = {}, SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers,
             std::span<const InstancePose> poses = {});
  void sweep_ellipsoid(const std::string& world, std::span<const SweepEllipsoidQuery> queries,
                       std::span<SweepHit> hits, std::span<Status> status = {}, SweepPath path = SweepPath::simd,
                       std::uint32_t layers = kAllLayers, std::span<const InstancePose> poses = {});
  void move(const std::string& world, std::span<const Agent> agents, const MoveSettings& settings,
            std::span<MoveResult> results, std::span<Status> status = {}, SweepPath path = SweepPath::simd,
            std::uint32_t layers = kAllLayers, std::span<const InstancePose> poses = {});
  void validate(const std::string& world, std::span<const ClaimedMove> moves, const ValidateSettings& settings,
                std::span<Verdict> verdicts, SweepPath path = SweepPath::simd, std::uint32_t layers = kAllLayers,
                std::span<const InstancePose> poses = {});
  void overlap(const std::string& world, std::span<const Capsule> capsules, float clearance,
               std::span<OverlapResult> results, std::span<Status> status = {}, std::uint32_t layers = kAllLayers,
               std::span<const InstancePose> poses = {});
  // Keeps `poses` on the replica the call reaches (UploadPoses) and returns their pose-set id (the
  // same on every replica). The methods above do this themselves where a replica lacks a set.
  std::string upload_poses(const std::string& world, std::span<const InstancePose> poses);
  ServerInfo info();
  // The whole Info answer as a serialized capsweep.v1.InfoResponse (service/capsweep.proto), for
  // tools that read what ServerInfo leaves out (errors by code, latency histograms).
  std::string info_message();

  std::size_t retries() const;  // attempts beyond the first, so far
  std::size_t pose_resends() const;  // requests sent again with their poses (FAILED_PRECONDITION)

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// The gRPC target for a server list: one entry as is (a "scheme:" target or "dns:///host:port"),
// several IP "host:port" entries as one "ipv4:" (or "ipv6:") list. Throws std::invalid_argument.
std::string channel_target(const std::vector<std::string>& servers);

}  // namespace capsweep::service
