#include "service/server.h"

#include <capsweep/version.h>

#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include "parallel/executor.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>

#include "service/capsweep.grpc.pb.h"
#include "service/convert.h"
#include "service/metrics.h"
#include "service/navigate.h"
#include "service/pose_sets.h"
#include "service/poses.h"

namespace capsweep::service {
namespace {

using Clock = std::chrono::steady_clock;

// Batches of independent queries are answered in chunks of this many, checking the deadline
// between chunks: a client that gave up stops costing the server within a chunk's time.
constexpr std::size_t kChunk = 4096;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

grpc::Status deadline_passed() {
  return {grpc::StatusCode::DEADLINE_EXCEEDED, "the deadline passed before the batch was answered"};
}

// World::posed's refusal, "pose 3 (instance 7): ...", as the row of the request's poses.
std::string as_row(const WorldError& e) {
  const std::string what = e.what();
  return what.rfind("pose ", 0) == 0 ? "row " + what.substr(5) : what;
}

bool gave_up(grpc::ServerContextBase* ctx) {
  return ctx->IsCancelled() || std::chrono::system_clock::now() > ctx->deadline();
}

// Every method takes its request as bytes and parses it in answer(): bytes that are not the
// method's message then get INVALID_ARGUMENT naming the method, where gRPC's own parsing would
// answer UNIMPLEMENTED with no details. The wire format is the same.
using RawService = pb::Capsweep::WithRawCallbackMethod_Sweep<pb::Capsweep::WithRawCallbackMethod_SweepEllipsoid<
    pb::Capsweep::WithRawCallbackMethod_Move<pb::Capsweep::WithRawCallbackMethod_Validate<
        pb::Capsweep::WithRawCallbackMethod_Overlap<pb::Capsweep::WithRawCallbackMethod_Info<
            pb::Capsweep::WithRawCallbackMethod_UploadPoses<pb::Capsweep::WithRawCallbackMethod_Navigate<
                pb::Capsweep::Service>>>>>>>>;

}  // namespace

class Server::Impl final : public RawService {
 public:
  explicit Impl(ServerConfig config)
      : config_(std::move(config)), arena_(config_.threads), pose_sets_(config_.pose_sets), started_(Clock::now()) {
    if (config_.worlds.empty()) throw std::runtime_error("no world to serve (--world NAME=FILE)");
    for (const ServedWorld& w : config_.worlds) {
      if (w.name.empty()) throw std::runtime_error("a world needs a name (--world NAME=FILE)");
      if (!worlds_.emplace(w.name, &w - config_.worlds.data()).second) {
        throw std::runtime_error("two worlds are named '" + w.name + "'");
      }
      metrics_.set_world(w.name, w.world.triangle_count());
    }
    generations_.assign(config_.worlds.size(), 0);
    options_.threads = 0;  // the arena above (or the whole machine) bounds the workers

    // The standard grpc.health.v1 service, for load balancers and Kubernetes gRPC probes:
    // SERVING once the worlds are loaded, NOT_SERVING from the moment a drain begins.
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(config_.listen, grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    builder.SetMaxReceiveMessageSize(int(std::min<std::size_t>(config_.max_message_bytes, INT32_MAX)));
    // Compressed requests are refused (UNIMPLEMENTED) before anything is inflated: gRPC 1.51
    // applies the size limit above to a compressed message only after inflating it, so a small
    // gzip request could make the server allocate hundreds of megabytes. Columns of floats
    // hardly compress anyway.
    builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
    builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
    builder.SetMaxSendMessageSize(-1);
    server_ = builder.BuildAndStart();
    if (!server_ || port_ == 0) throw std::runtime_error("cannot listen on " + config_.listen);
  }

  int port() const { return port_; }

  void shutdown(double drain_seconds) {
    if (auto* health = server_->GetHealthCheckService()) health->Shutdown();
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::microseconds(std::int64_t(drain_seconds * 1e6)));
  }

  void wait() { server_->Wait(); }

  bool replace_world(ServedWorld world) {
    const std::string name = world.name;
    std::uint64_t generation;
    {
      std::lock_guard guard(worlds_lock_);
      auto it = worlds_.find(name);
      if (it == worlds_.end()) return false;
      metrics_.set_world(name, world.world.triangle_count());
      config_.worlds[it->second] = std::move(world);
      generation = generations_[it->second] = ++reloads_;
    }
    // The old world's navmeshes go (calls in flight keep theirs). Taken after worlds_lock_ is
    // released, never inside it: a reload must not wait for a build to let other calls admit.
    std::lock_guard guard(navmeshes_lock_);
    std::erase_if(navmeshes_, [&](const auto& e) { return e.second.world == name && e.second.generation < generation; });
    return true;
  }

  std::string metrics_text() const { return metrics_.text(seconds_since(started_)); }

  // --- the RPCs ---

  grpc::ServerUnaryReactor* Sweep(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override {
    return answer<pb::SweepRequest, pb::SweepResponse>(
        ctx, Rpc::sweep, in, out, [&](const pb::SweepRequest* req, pb::SweepResponse* resp, Count& count) {
          return sweep_batch(ctx, Rpc::sweep, *req, *resp, count, [](const World& w, auto queries, auto hits, const BatchOptions& o, auto status) {
            return w.sweep(queries, hits, o, status);
          });
        });
  }

  grpc::ServerUnaryReactor* SweepEllipsoid(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in,
                                           grpc::ByteBuffer* out) override {
    return answer<pb::SweepEllipsoidRequest, pb::SweepResponse>(
        ctx, Rpc::sweep_ellipsoid, in, out, [&](const pb::SweepEllipsoidRequest* req, pb::SweepResponse* resp, Count& count) {
          return sweep_batch(ctx, Rpc::sweep_ellipsoid, *req, *resp, count, [](const World& w, auto queries, auto hits, const BatchOptions& o, auto status) {
            return w.sweep_ellipsoid(queries, hits, o, status);
          });
        });
  }

  grpc::ServerUnaryReactor* Move(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override {
    return answer<pb::MoveRequest, pb::MoveResponse>(ctx, Rpc::move, in, out,
                                                     [&](const pb::MoveRequest* req, pb::MoveResponse* resp, Count& count) -> grpc::Status {
      std::optional<World> held;
      const World* world;
      std::size_t n;
      SweepPath path;
      if (grpc::Status s = admit(ctx, req->world(), shape_of(*req), req->path(), held, world, n, path); !s.ok()) return s;
      if (grpc::Status s = check_layers(*req); !s.ok()) return s;
      if (grpc::Status s = pose(Rpc::move, *req, held, world); !s.ok()) return s;
      const MoveSettings settings = from_pb(req->settings());
      if (std::string why = check_settings(settings); !why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
      const std::vector<Agent> agents = read_request(*req, n);
      std::vector<MoveResult> results(n);
      std::vector<Status> status(n);
      // One tick is one piece of work: agents collide with each other across the whole batch.
      try {
        run([&] { count.refused = world->move(agents, settings, results, with(path, ctx, layers_of(*req)), {}, status); });
      } catch (const Cancelled&) {
        return deadline_passed();
      }
      if (gave_up(ctx)) return deadline_passed();
      write_response(results, status, *resp);
      count.queries = n;
      return grpc::Status::OK;
    });
  }

  grpc::ServerUnaryReactor* Validate(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override {
    return answer<pb::ValidateRequest, pb::ValidateResponse>(ctx, Rpc::validate, in, out,
                                                             [&](const pb::ValidateRequest* req, pb::ValidateResponse* resp, Count& count) -> grpc::Status {
      std::optional<World> held;
      const World* world;
      std::size_t n;
      SweepPath path;
      if (grpc::Status s = admit(ctx, req->world(), shape_of(*req), req->path(), held, world, n, path); !s.ok()) return s;
      if (grpc::Status s = check_layers(*req); !s.ok()) return s;
      if (grpc::Status s = pose(Rpc::validate, *req, held, world); !s.ok()) return s;
      if (!pb::ClaimRule_IsValid(req->settings().rule())) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "settings: rule must be CLAIM_RULE_TICK_END or CLAIM_RULE_STRAIGHT_SEGMENT"};
      }
      const ValidateSettings settings = from_pb(req->settings());
      if (std::string why = check_settings(settings); !why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
      const std::vector<ClaimedMove> moves = read_request(*req, n);
      // Before the chunks, which would number the claims from each chunk's start.
      if (std::string why = check_claims(moves, settings); !why.empty()) {
        return {grpc::StatusCode::INVALID_ARGUMENT, why};
      }
      std::vector<Verdict> verdicts(n);
      // Whole when agents collide: each claim is then judged against the others' starts.
      const std::size_t chunk = settings.movement.agents_collide ? std::max<std::size_t>(n, 1) : kChunk;
      if (grpc::Status s = in_chunks(ctx, n, chunk, [&](std::size_t at, std::size_t k) {
            world->validate(std::span(moves).subspan(at, k), settings, std::span(verdicts).subspan(at, k), with(path, ctx, layers_of(*req)));
          });
          !s.ok()) {
        return s;
      }
      for (const Verdict& v : verdicts) count.refused += v.status != Status::ok;
      write_response(verdicts, *resp);
      count.queries = n;
      return grpc::Status::OK;
    });
  }

  grpc::ServerUnaryReactor* Overlap(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override {
    return answer<pb::OverlapRequest, pb::OverlapResponse>(ctx, Rpc::overlap, in, out,
                                                           [&](const pb::OverlapRequest* req, pb::OverlapResponse* resp, Count& count) -> grpc::Status {
      std::optional<World> held;
      const World* world;
      std::size_t n;
      SweepPath path;
      if (grpc::Status s = admit(ctx, req->world(), shape_of(*req), pb::PATH_SIMD, held, world, n, path); !s.ok()) return s;
      if (grpc::Status s = check_layers(*req); !s.ok()) return s;
      if (grpc::Status s = pose(Rpc::overlap, *req, held, world); !s.ok()) return s;
      if (!(req->clearance() >= 0.f && req->clearance() <= kMaxCoordinate)) {
        return {grpc::StatusCode::INVALID_ARGUMENT, "clearance must be finite and >= 0"};
      }
      const std::vector<Capsule> capsules = read_request(*req, n);
      std::vector<OverlapResult> results(n);
      std::vector<Status> status(n);
      if (grpc::Status s = in_chunks(ctx, n, [&](std::size_t at, std::size_t k) {
            count.refused += world->overlap(std::span(capsules).subspan(at, k), req->clearance(),
                                            std::span(results).subspan(at, k), with(SweepPath::simd, ctx, layers_of(*req)),
                                            std::span(status).subspan(at, k));
          });
          !s.ok()) {
        return s;
      }
      write_response(results, status, *resp);
      count.queries = n;
      return grpc::Status::OK;
    });
  }

  grpc::ServerUnaryReactor* Info(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in, grpc::ByteBuffer* out) override {
    return answer<pb::InfoRequest, pb::InfoResponse>(ctx, Rpc::info, in, out,
                                                     [&](const pb::InfoRequest*, pb::InfoResponse* resp, Count&) -> grpc::Status {
      std::unique_lock guard(worlds_lock_);
      for (const ServedWorld& w : config_.worlds) {
        pb::WorldInfo* i = resp->add_worlds();
        i->set_name(w.name);
        i->set_source(w.source);
        i->set_triangles(w.world.triangle_count());
        i->set_bvh_nodes(w.world.stats().bvh_nodes);
        i->set_triangle_blocks(w.world.stats().triangle_blocks);
        i->set_memory_bytes(w.world.memory_bytes());
        i->set_snapshot(w.snapshot);
        i->set_load_seconds(w.load_seconds);
        add(*i->mutable_bounds(), w.world.bounds().min);
        add(*i->mutable_bounds(), w.world.bounds().max);
      }
      guard.unlock();
      resp->set_version(CAPSWEEP_VERSION_STRING);
      resp->set_build(std::string("gcc ") + __VERSION__ + ", SIMD " + kernel_isa() + " (" + kernel_isa_reason() + ")");
      resp->set_threads(config_.threads > 0 ? config_.threads : parallel::default_threads());
      resp->set_max_batch(std::uint32_t(std::min<std::size_t>(config_.max_batch, UINT32_MAX)));
      resp->set_max_message_bytes(config_.max_message_bytes);
      resp->set_max_pose_sets(std::uint32_t(std::min<std::size_t>(pose_sets_.capacity(), UINT32_MAX)));
      resp->set_pose_sets(std::uint32_t(pose_sets_.size()));
      resp->set_uptime_seconds(seconds_since(started_));
      metrics_.fill(*resp);
      resp->set_metrics_text(metrics_text());
      return grpc::Status::OK;
    });
  }

  grpc::ServerUnaryReactor* UploadPoses(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in,
                                        grpc::ByteBuffer* out) override {
    return answer<pb::UploadPosesRequest, pb::UploadPosesResponse>(
        ctx, Rpc::upload_poses, in, out, [&](const pb::UploadPosesRequest* req, pb::UploadPosesResponse* resp, Count& count) -> grpc::Status {
          std::optional<World> held;
          const World* world;
          std::size_t n;
          SweepPath path;
          // No batch: the poses' own limit is read_posed's.
          if (grpc::Status s = admit(ctx, req->world(), BatchShape{}, pb::PATH_SIMD, held, world, n, path); !s.ok()) return s;
          std::vector<InstancePose> poses;
          std::string id;
          if (grpc::Status s = read_posed(req->poses(), *world, poses, id); !s.ok()) return s;
          try {
            (void)world->posed(poses);  // an id the world has no instance of, a placement out of range
          } catch (const WorldError& e) {
            return {grpc::StatusCode::INVALID_ARGUMENT, "poses: " + as_row(e)};
          }
          n = poses.size();
          keep(id, std::move(poses));
          resp->set_pose_set(id);
          resp->set_poses(std::uint32_t(n));
          count.queries = n;
          return grpc::Status::OK;
        });
  }

  grpc::ServerUnaryReactor* Navigate(grpc::CallbackServerContext* ctx, const grpc::ByteBuffer* in,
                                     grpc::ByteBuffer* out) override {
    return answer<pb::NavigateRequest, pb::NavigateResponse>(
        ctx, Rpc::navigate, in, out, [&](const pb::NavigateRequest* req, pb::NavigateResponse* resp, Count& count) -> grpc::Status {
          std::optional<World> held;
          const World* world;
          std::size_t n;
          SweepPath path;
          std::uint64_t generation;
          std::shared_ptr<const NavMesh> kept;
          if (grpc::Status s = admit(ctx, req->world(), shape_of(*req), pb::PATH_SIMD, held, world, n, path, &generation, &kept);
              !s.ok()) {
            return s;
          }
          if (grpc::Status s = check_layers(*req); !s.ok()) return s;
          const MoveSettings move = from_pb(req->settings());
          if (std::string why = check_settings(move); !why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
          const std::uint32_t ticks = std::max(1u, req->ticks());
          if (ticks > kMaxNavigateTicks) {
            return {grpc::StatusCode::INVALID_ARGUMENT, "ticks: " + std::to_string(ticks) + " is more than " +
                                                            std::to_string(kMaxNavigateTicks)};
          }
          if (req->corners() > kMaxNavigateCorners) {
            return {grpc::StatusCode::INVALID_ARGUMENT, "corners: " + std::to_string(req->corners()) +
                                                            " is more than " + std::to_string(kMaxNavigateCorners)};
          }
          std::string why;
          const std::vector<NavigateAgent> agents = read_request(*req, n, why);
          if (!why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
          std::shared_ptr<const NavMesh> navmesh;
          if (grpc::Status s = navmesh_for(req->world(), generation, *world, kept, move, layers_of(*req), navmesh); !s.ok()) return s;
          std::optional<NavCrowd> crowd;
          try {
            crowd.emplace(*world, *navmesh, crowd_settings(*req, move, with(path, ctx, layers_of(*req))));
          } catch (const std::invalid_argument& e) {
            return {grpc::StatusCode::INVALID_ARGUMENT, e.what()};
          }
          for (std::size_t i = 0; i < n; ++i) {
            const NavigateAgent& a = agents[i];
            try {
              crowd->add(a.body, a.speed, a.id, a.layers);
              crowd->set_carried(i, a.vertical_speed, a.ground_triangle);
            } catch (const std::invalid_argument& e) {
              return {grpc::StatusCode::INVALID_ARGUMENT, "agent " + std::to_string(i) + ": " + e.what()};
            }
            crowd->set_goal(i, a.goal);
          }
          // Tick by tick, checking the deadline between ticks (and World::move within each).
          try {
            for (std::uint32_t t = 0; t < ticks; ++t) {
              if (gave_up(ctx)) return deadline_passed();
              run([&] { crowd->tick(); });
            }
          } catch (const Cancelled&) {
            return deadline_passed();
          }
          write_response(*crowd, req->corners(), *resp);
          count.queries = n * ticks;
          return grpc::Status::OK;
        });
  }

 private:
  struct Count {
    std::uint64_t queries = 0, refused = 0;
  };

  // Runs one RPC: parses the request bytes, runs `body(&request, &response, count)` and writes
  // the response. Nothing the body throws reaches gRPC (a bug answers INTERNAL, memory
  // exhaustion RESOURCE_EXHAUSTED), and every call is counted.
  template <class Request, class Response, class Body>
  grpc::ServerUnaryReactor* answer(grpc::CallbackServerContext* ctx, Rpc rpc, const grpc::ByteBuffer* in,
                                   grpc::ByteBuffer* out, Body&& body) {
    grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
    reactor->Finish(serve(rpc, [&](Count& count) -> grpc::Status {
      Request request;
      grpc::ByteBuffer bytes(*in);  // parsing consumes its buffer; the copy shares the slices
      if (!grpc::SerializationTraits<Request>::Deserialize(&bytes, &request).ok()) {
        return {grpc::StatusCode::INVALID_ARGUMENT, std::string(name(rpc)) + ": the request bytes are not a " +
                                                        Request::descriptor()->full_name() + " message"};
      }
      Response response;
      if (grpc::Status s = body(&request, &response, count); !s.ok()) return s;
      bool own_buffer;
      return grpc::SerializationTraits<Response>::Serialize(response, out, &own_buffer);
    }));
    return reactor;
  }

  template <class Body>
  grpc::Status serve(Rpc rpc, Body&& body) {
    const auto start = Clock::now();
    metrics_.begin(rpc);
    Count count;
    grpc::Status status;
    try {
      status = body(count);
    } catch (const std::bad_alloc&) {
      status = {grpc::StatusCode::RESOURCE_EXHAUSTED, "out of memory for this batch"};
    } catch (const std::exception& e) {
      status = {grpc::StatusCode::INTERNAL, e.what()};
    }
    if (!status.ok()) count = {};
    metrics_.record(rpc, status.error_code(), count.queries, count.refused, seconds_since(start));
    return status;
  }

  // Sweep and SweepEllipsoid: the request's queries through `sweep` (World::sweep or
  // sweep_ellipsoid) in chunks, answered in the same hit columns.
  template <class Request, class SweepFn>
  grpc::Status sweep_batch(grpc::CallbackServerContext* ctx, Rpc rpc, const Request& req, pb::SweepResponse& resp,
                           Count& count, const SweepFn& sweep) {
    std::optional<World> held;
    const World* world;
    std::size_t n;
    SweepPath path;
    if (grpc::Status s = admit(ctx, req.world(), shape_of(req), req.path(), held, world, n, path); !s.ok()) return s;
    if (grpc::Status s = check_layers(req); !s.ok()) return s;
    if (grpc::Status s = pose(rpc, req, held, world); !s.ok()) return s;
    const auto queries = read_request(req, n);
    std::vector<SweepHit> hits(n);
    std::vector<Status> status(n);
    if (grpc::Status s = in_chunks(ctx, n, [&](std::size_t at, std::size_t k) {
          count.refused += sweep(*world, std::span(queries).subspan(at, k), std::span(hits).subspan(at, k),
                                 with(path, ctx, layers_of(req)), std::span(status).subspan(at, k));
        });
        !s.ok()) {
      return s;
    }
    write_response(hits, status, resp);
    count.queries = n;
    return grpc::Status::OK;
  }

  // The layers a request sees: its own mask, or every layer when it sets none.
  template <class Request>
  static std::uint32_t layers_of(const Request& r) {
    return r.has_layers() ? r.layers() : kAllLayers;
  }
  template <class Request>
  static grpc::Status check_layers(const Request& r) {
    if (r.has_layers() && r.layers() == 0) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "layers: a mask of no layer sees nothing"};
    }
    return grpc::Status::OK;
  }

  // The frame a request is answered on: the world as loaded when it names no poses; else a still
  // frame at the poses it carries, or at the pose set it names (FAILED_PRECONDITION when this
  // replica does not hold it). A request carrying poses and their id has the set kept.
  template <class Request>
  grpc::Status pose(Rpc rpc, const Request& req, std::optional<World>& held, const World*& world) {
    if (!req.has_poses() && req.pose_set().empty()) return grpc::Status::OK;
    std::vector<InstancePose> carried;
    PoseSet named;
    std::string id;
    if (req.has_poses()) {
      if (grpc::Status s = read_posed(req.poses(), *world, carried, id); !s.ok()) return s;
      if (!req.pose_set().empty() && req.pose_set() != id) {
        return {grpc::StatusCode::INVALID_ARGUMENT,
                "pose_set: '" + req.pose_set() + "' is not the id of the poses sent with it ('" + id + "')"};
      }
    } else if (!(named = pose_sets_.find(req.pose_set()))) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "pose set '" + req.pose_set() +
                  "' is not held by this replica (never uploaded here, or evicted): send the request again with "
                  "its poses, or UploadPoses first"};
    }
    const std::vector<InstancePose>& poses = named ? *named : carried;
    try {
      held.emplace(still_frame(*world, poses));
    } catch (const WorldError& e) {
      return {grpc::StatusCode::INVALID_ARGUMENT, (named ? "pose set '" + req.pose_set() + "': " : "poses: ") + as_row(e)};
    }
    world = &*held;
    if (!req.pose_set().empty() && !named) keep(id, std::move(carried));
    metrics_.posed(rpc);
    return grpc::Status::OK;
  }

  // Poses as a request or an upload carries them, checked (their columns, the limit, a world with
  // instances, check_pose, each id once), and their id. World::posed checks the rest.
  grpc::Status read_posed(const pb::PoseColumns& columns, const World& world, std::vector<InstancePose>& poses,
                          std::string& id) const {
    std::size_t rows = 0;
    if (std::string why = rows_of(columns, rows); !why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
    if (rows > config_.max_batch) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "poses: " + std::to_string(rows) +
                                                        " rows are more than this server's limit of " +
                                                        std::to_string(config_.max_batch)};
    }
    const std::size_t instances = world.instances().size();
    if (instances == 0) {
      return {grpc::StatusCode::INVALID_ARGUMENT,
              "poses: the world has no instances to pose (a glTF scene's dynamic nodes are its instances)"};
    }
    if (rows > instances) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "poses: row " + std::to_string(instances) + ": more rows than the world's " +
                                                      std::to_string(instances) + " instances"};
    }
    if (std::string why = read_poses(columns, rows, poses); !why.empty()) return {grpc::StatusCode::INVALID_ARGUMENT, why};
    id = pose_set_id(poses);
    return grpc::Status::OK;
  }

  void keep(const std::string& id, std::vector<InstancePose> poses) {
    if (pose_sets_.capacity() == 0) return;
    pose_sets_.keep(id, std::make_shared<const std::vector<InstancePose>>(std::move(poses)),
                    [&](std::size_t evicted, std::size_t held) { metrics_.pose_set_kept(evicted, held); });
  }

  // The checks every batch passes before any work: the world, the columns, the limit, the path.
  grpc::Status admit(grpc::ServerContextBase* ctx, const std::string& name, const BatchShape& shape, pb::Path wire_path,
                     std::optional<World>& held, const World*& world, std::size_t& n, SweepPath& path,
                     std::uint64_t* generation = nullptr, std::shared_ptr<const NavMesh>* kept_navmesh = nullptr) const {
    if (gave_up(ctx)) return deadline_passed();
    {
      // The call keeps its own reference to the world: a reload (SIGHUP) swaps in a new one
      // for the calls after it, while this one finishes on what it started with.
      std::lock_guard guard(worlds_lock_);
      auto it = name.empty() && worlds_.size() == 1 ? worlds_.begin() : worlds_.find(name);
      if (it == worlds_.end()) return {grpc::StatusCode::NOT_FOUND, "no world named '" + name + "' (see Info)"};
      held.emplace(config_.worlds[it->second].world);
      if (generation) *generation = generations_[it->second];
      if (kept_navmesh) *kept_navmesh = config_.worlds[it->second].navmesh;
    }
    world = &*held;
    if (!shape.ok()) return {grpc::StatusCode::INVALID_ARGUMENT, shape.error()};
    n = shape.size();
    if (n > config_.max_batch) {
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, "a batch of " + std::to_string(n) +
                                                        " is larger than this server's limit of " +
                                                        std::to_string(config_.max_batch)};
    }
    if (!from_pb(wire_path, path)) return {grpc::StatusCode::INVALID_ARGUMENT, "unknown path"};
    return grpc::Status::OK;
  }

  // The navmesh Navigate walks for a world (as loaded: its generation), its movement settings
  // and layers: the one its snapshot keeps when that was built with these settings, else built
  // once, in the server's arena, outside the cache's lock. Calls wanting the same navmesh wait
  // on its future; the others are not held up (the first call pays for it).
  grpc::Status navmesh_for(const std::string& name, std::uint64_t generation, const World& world,
                           const std::shared_ptr<const NavMesh>& kept, const MoveSettings& move, std::uint32_t layers,
                           std::shared_ptr<const NavMesh>& out) {
    const NavMeshSettings settings = navmesh_settings(move, config_.navmesh_body, layers);
    if (std::string why = check_navmesh_settings(settings); !why.empty()) {
      return {grpc::StatusCode::INVALID_ARGUMENT, "settings: the navmesh they derive cannot be built: " + why};
    }
    // Floats and integers only, no padding: equal bytes, the same build.
    if (kept && std::memcmp(&kept->settings(), &settings, sizeof settings) == 0) {
      out = kept;
      return grpc::Status::OK;
    }
    // The world's name and generation and the settings' bytes name the navmesh (NavMeshSettings
    // holds floats and integers only): a reload's world never meets its predecessor's navmesh.
    std::string key = name + '\0';
    key.append(reinterpret_cast<const char*>(&generation), sizeof generation);
    key.append(reinterpret_cast<const char*>(&settings), sizeof settings);
    std::shared_future<std::shared_ptr<const NavMesh>> ready;
    std::optional<std::promise<std::shared_ptr<const NavMesh>>> build;
    std::uint64_t mine = 0;  // the cache entry this call builds, by its first use
    {
      std::lock_guard guard(navmeshes_lock_);
      auto it = navmeshes_.find(key);
      if (it == navmeshes_.end()) {
        if (navmeshes_.size() >= kNavMeshesKept) {  // bounded: the least recently used goes
          navmeshes_.erase(std::min_element(navmeshes_.begin(), navmeshes_.end(), [](const auto& a, const auto& b) {
            return a.second.used < b.second.used;
          }));
        }
        build.emplace();
        mine = navmesh_uses_ + 1;
        it = navmeshes_.emplace(key, CachedNavMesh{build->get_future().share(), 0, mine, name, generation}).first;
      }
      it->second.used = ++navmesh_uses_;
      ready = it->second.navmesh;
    }
    if (build) {
      try {
        std::shared_ptr<const NavMesh> built;
        run([&] { built = std::make_shared<const NavMesh>(NavMesh::build(world, settings, 0)); });
        build->set_value(std::move(built));
      } catch (...) {
        // The waiting calls get the same failure; the next call tries again.
        build->set_exception(std::current_exception());
        std::lock_guard guard(navmeshes_lock_);
        if (auto it = navmeshes_.find(key); it != navmeshes_.end() && it->second.first_used == mine) navmeshes_.erase(it);
      }
    }
    out = ready.get();  // rethrows a failed build's exception, as the build itself would
    return grpc::Status::OK;
  }
  static constexpr std::size_t kNavMeshesKept = 16;

  // The batch options of a call: its path, and a stop that fires once its deadline passes or
  // it is cancelled (a drain past --drain-seconds cancels the calls still running), so even one
  // long Move stops costing anything soon after.
  BatchOptions with(SweepPath path, grpc::ServerContextBase* ctx, std::uint32_t layers) const {
    BatchOptions o = options_;
    o.path = path;
    o.layers = layers;
    o.stop = [ctx] { return gave_up(ctx); };
    return o;
  }

  template <class Work>
  void run(Work&& work) {
    arena_.execute(work);
  }

  template <class Work>
  grpc::Status in_chunks(grpc::ServerContextBase* ctx, std::size_t n, Work&& work) {
    return in_chunks(ctx, n, kChunk, std::forward<Work>(work));
  }
  template <class Work>
  grpc::Status in_chunks(grpc::ServerContextBase* ctx, std::size_t n, std::size_t chunk, Work&& work) {
    try {
      for (std::size_t at = 0; at < n; at += chunk) {
        if (gave_up(ctx)) return deadline_passed();
        run([&] { work(at, std::min(chunk, n - at)); });
      }
    } catch (const Cancelled&) {
      return deadline_passed();
    }
    if (gave_up(ctx)) return deadline_passed();
    return grpc::Status::OK;
  }

  ServerConfig config_;
  std::map<std::string, std::size_t> worlds_;  // name -> index in config_.worlds
  mutable std::mutex worlds_lock_;             // guards config_.worlds against replace_world
  parallel::Arena arena_;
  PoseSets pose_sets_;
  std::vector<std::uint64_t> generations_;    // by index in config_.worlds: bumped by each reload
  std::uint64_t reloads_ = 0;                 // the last generation given (0: as started)
  struct CachedNavMesh {
    std::shared_future<std::shared_ptr<const NavMesh>> navmesh;  // ready once built
    std::uint64_t used;                                          // navmesh_uses_ at its last call
    std::uint64_t first_used;                                    // ... and at its first (names its build)
    std::string world;
    std::uint64_t generation;
  };
  std::map<std::string, CachedNavMesh> navmeshes_;  // navmesh_for's, by world, generation and settings
  std::uint64_t navmesh_uses_ = 0;
  std::mutex navmeshes_lock_;
  BatchOptions options_;
  Metrics metrics_;
  Clock::time_point started_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

Server::Server(ServerConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Server::~Server() {
  impl_->shutdown(0);
  impl_->wait();
}
int Server::port() const { return impl_->port(); }
void Server::shutdown(double drain_seconds) { impl_->shutdown(drain_seconds); }
void Server::wait() { impl_->wait(); }
bool Server::replace_world(ServedWorld world) { return impl_->replace_world(std::move(world)); }
std::string Server::metrics_text() const { return impl_->metrics_text(); }

}  // namespace capsweep::service
