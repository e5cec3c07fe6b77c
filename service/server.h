// The query service: a gRPC server answering capsweep.proto over named, read-only worlds,
// batches on the oneTBB engine. Stateless: any number of replicas may serve the same worlds.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <capsweep/world.h>

namespace capsweep {
class NavMesh;
}

namespace capsweep::service {

struct ServedWorld {
  std::string name;
  World world;
  std::string source;  // what it was built from
  bool snapshot = false;
  double load_seconds = 0;
  // The navmesh its snapshot keeps (capsweep build --navmesh), or null: Navigate walks it when
  // its settings are those a request derives (ServerConfig::navmesh_body), instead of building one.
  std::shared_ptr<const NavMesh> navmesh;
};

struct ServerConfig {
  std::string listen = "127.0.0.1:50051";  // host:port; port 0 picks a free one (see port())
  std::vector<ServedWorld> worlds;
  std::size_t max_batch = 262144;                 // queries per request; more: RESOURCE_EXHAUSTED
  std::size_t max_message_bytes = 64u << 20;      // request size; more: RESOURCE_EXHAUSTED
  int threads = 0;                                // batch worker threads, 0 to kMaxThreads; 0 = every core
  // Pose sets kept (UploadPoses), the least recently used leaving first; 0 keeps none. Each
  // costs 64 bytes a pose, at most one pose per instance of its world.
  std::size_t pose_sets = 64;
  // Navigate's agents: the navmesh of each world is built for this body (the demo's person,
  // 0.35 m by 1.8 m) and the request's movement settings and layers, on first use, then kept.
  // A request's bodies may be no wider than it.
  Capsule navmesh_body{{0, 0.35f, 0}, {0, 1.45f, 0}, 0.35f};
};

class Server {
 public:
  // Listens at once; throws std::runtime_error when it cannot (address in use, no worlds, two
  // worlds of one name), std::invalid_argument for threads outside 0 to kMaxThreads.
  explicit Server(ServerConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  // Stops taking calls (new ones get UNAVAILABLE), lets the calls in flight finish for up to
  // `drain_seconds`, cancels what is left, and returns when every handler has returned.
  void shutdown(double drain_seconds);
  // Blocks until shutdown() has finished.
  void wait();
  // Serves `world` under its name from the next call on; calls in flight finish on the world
  // they started with. False when no world has that name. (capsweep serve reloads on SIGHUP.)
  bool replace_world(ServedWorld world);
  // The counters as a Prometheus text page.
  std::string metrics_text() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace capsweep::service
