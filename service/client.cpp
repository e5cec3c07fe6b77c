#include <capsweep/client.h>

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>

#include "service/capsweep.grpc.pb.h"
#include "service/convert.h"
#include "service/poses.h"

namespace capsweep::service {
namespace {

bool is_ip_endpoint(const std::string& s, bool& v6) {
  v6 = !s.empty() && s[0] == '[';
  if (v6) return s.find("]:") != std::string::npos;
  const auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  return std::all_of(s.begin(), s.begin() + std::ptrdiff_t(colon), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

// round_robin over every address of the target; UNAVAILABLE (a replica stopping or gone) is
// retried by gRPC itself on another address, with backoff.
constexpr const char* kServiceConfig = R"({
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [{
    "name": [{"service": "capsweep.v1.Capsweep"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.01s",
      "maxBackoff": "0.5s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
})";

}  // namespace

std::string channel_target(const std::vector<std::string>& servers) {
  if (servers.empty()) throw std::invalid_argument("no server given");
  if (servers.size() == 1) {
    const std::string& s = servers[0];
    if (s.find(":///") != std::string::npos || s.rfind("ipv4:", 0) == 0 || s.rfind("ipv6:", 0) == 0 ||
        s.rfind("unix:", 0) == 0) {
      return s;
    }
    return "dns:///" + s;
  }
  bool first_v6 = false;
  std::string list;
  for (std::size_t i = 0; i < servers.size(); ++i) {
    bool v6;
    if (!is_ip_endpoint(servers[i], v6)) {
      throw std::invalid_argument("'" + servers[i] +
                                  "': a list of servers must be IP:PORT entries; for host names use one DNS name "
                                  "with several records (dns:///name:port)");
    }
    if (i == 0) first_v6 = v6;
    if (v6 != first_v6) throw std::invalid_argument("a list of servers must be all IPv4 or all IPv6");
    list += (i ? "," : "") + servers[i];
  }
  return (first_v6 ? "ipv6:" : "ipv4:") + list;
}

ServiceError::ServiceError(int code, const std::string& message)
    : std::runtime_error(std::string(code_name(grpc::StatusCode(code))) + ": " + message), code_(code) {}

class Client::Impl {
 public:
  explicit Impl(const ClientOptions& o) : options_(o) {
    if (options_.batch == 0 || options_.in_flight < 1 || options_.max_attempts < 1 || !(options_.deadline_seconds > 0)) {
      throw std::invalid_argument("client options: batch, in_flight, max_attempts and the deadline must be positive");
    }
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    args.SetServiceConfigJSON(kServiceConfig);
    args.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
    channel_ = grpc::CreateCustomChannel(channel_target(options_.servers), grpc::InsecureChannelCredentials(), args);
    stub_ = pb::Capsweep::NewStub(channel_);
  }

  // One RPC with a fresh context and an empty response per attempt; UNAVAILABLE that outlasts
  // gRPC's own retries (every replica restarting at once) is tried again here, up to
  // max_attempts.
  template <class Response, class Call>
  void call(Response& response, Call&& rpc) {
    for (int attempt = 1;; ++attempt) {
      response.Clear();
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::microseconds(std::int64_t(options_.deadline_seconds * 1e6)));
      const grpc::Status s = rpc(ctx);
      if (s.ok()) return;
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE || attempt >= options_.max_attempts) {
        std::string where;
        if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
          where = " (" + channel_target(options_.servers) + ", " + std::to_string(attempt) + " attempts)";
        }
        throw ServiceError(int(s.error_code()), s.error_message() + where);
      }
      ++retries_;
      std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 7)));  // 20 ms .. 1.3 s
    }
  }

  // Splits n queries into batches of `batch` (0: options_.batch) and sends up to in_flight of
  // them at once.
  template <class Part>
  void in_batches(std::size_t n, Part&& part, std::size_t batch = 0) {
    if (batch == 0) batch = options_.batch;
    const std::size_t parts = std::max<std::size_t>(1, (n + batch - 1) / batch);
    std::atomic<std::size_t> next{0};
    std::mutex failed;
    std::optional<ServiceError> error;
    auto worker = [&] {
      for (std::size_t p; (p = next++) < parts;) {
        try {
          part(p * batch, std::min(batch, n - std::min(n, p * batch)));
        } catch (const ServiceError& e) {
          std::lock_guard lock(failed);
          if (!error) error = e;
          next = parts;
        }
      }
    };
    const int threads = int(std::min<std::size_t>(std::size_t(options_.in_flight), parts));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
    for (std::thread& t : pool) t.join();
    if (error) throw *error;
  }

  // A call's poses as its requests carry them: none, the columns, or (a large set) the id alone,
  // the columns added to a request only when its replica does not hold the set.
  struct Posed {
    pb::PoseColumns columns;
    std::string id;  // empty: the columns travel with every request
    bool any = false;

    template <class Request>
    void attach(Request& req) const {
      if (!any) return;
      if (id.empty()) {
        *req.mutable_poses() = columns;
      } else {
        req.set_pose_set(id);
      }
    }
  };

  Posed posed(std::span<const InstancePose> poses) const {
    Posed p;
    if (poses.empty()) return p;
    p.any = true;
    write_poses(poses, p.columns);
    if (poses.size() >= options_.poses_by_id_from) p.id = pose_set_id(poses);
    return p;
  }

  // call() for a request at `poses`: sent by id, a FAILED_PRECONDITION (the replica lacks the
  // set) sends it once more with the poses and their id, which that replica then keeps.
  template <class Request, class Response, class Call>
  void call_posed(Request& req, Response& response, const Posed& poses, Call&& rpc) {
    poses.attach(req);
    try {
      call(response, rpc);
    } catch (const ServiceError& e) {
      if (e.code() != int(grpc::StatusCode::FAILED_PRECONDITION) || poses.id.empty() || req.has_poses()) throw;
      ++pose_resends_;
      *req.mutable_poses() = poses.columns;
      call(response, rpc);
    }
  }

  static void malformed() { throw ServiceError(int(grpc::StatusCode::DATA_LOSS), "the response does not match the request"); }

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<pb::Capsweep::Stub> stub_;
  std::atomic<std::size_t> retries_{0};
  std::atomic<std::size_t> pose_resends_{0};
};

Client::Client(const ClientOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Client::~Client() = default;
std::size_t Client::retries() const { return impl_->retries_.load(); }
std::size_t Client::pose_resends() const { return impl_->pose_resends_.load(); }

void Client::sweep(const std::string& world, std::span<const SweepQuery> queries, std::span<SweepHit> hits,
                   std::span<Status> status, SweepPath path, std::uint32_t layers, std::span<const InstancePose> poses) {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("Client::sweep: queries, hits and status must have the same size");
  }
  const Impl::Posed at_poses = impl_->posed(poses);
  impl_->in_batches(queries.size(), [&](std::size_t at, std::size_t k) {
    pb::SweepRequest req;
    req.set_world(world);
    req.set_path(to_pb(path));
    if (layers != kAllLayers) req.set_layers(layers);
    write_request(queries.subspan(at, k), req);
    pb::SweepResponse resp;
    impl_->call_posed(req, resp, at_poses, [&](grpc::ClientContext& ctx) { return impl_->stub_->Sweep(&ctx, req, &resp); });
    if (!read_response(resp, hits.subspan(at, k), status.empty() ? status : status.subspan(at, k))) Impl::malformed();
  });
}

void Client::sweep_ellipsoid(const std::string& world, std::span<const SweepEllipsoidQuery> queries,
                             std::span<SweepHit> hits, std::span<Status> status, SweepPath path, std::uint32_t layers,
                             std::span<const InstancePose> poses) {
  if (hits.size() != queries.size() || (!status.empty() && status.size() != queries.size())) {
    throw std::invalid_argument("Client::sweep_ellipsoid: queries, hits and status must have the same size");
  }
  const Impl::Posed at_poses = impl_->posed(poses);
  impl_->in_batches(queries.size(), [&](std::size_t at, std::size_t k) {
    pb::SweepEllipsoidRequest req;
    req.set_world(world);
    req.set_path(to_pb(path));
    if (layers != kAllLayers) req.set_layers(layers);
    write_request(queries.subspan(at, k), req);
    pb::SweepResponse resp;
    impl_->call_posed(req, resp, at_poses,
                      [&](grpc::ClientContext& ctx) { return impl_->stub_->SweepEllipsoid(&ctx, req, &resp); });
    if (!read_response(resp, hits.subspan(at, k), status.empty() ? status : status.subspan(at, k))) Impl::malformed();
  });
}

void Client::move(const std::string& world, std::span<const Agent> agents, const MoveSettings& settings,
                  std::span<MoveResult> results, std::span<Status> status, SweepPath path, std::uint32_t layers,
                  std::span<const InstancePose> poses) {
  if (results.size() != agents.size() || (!status.empty() && status.size() != agents.size())) {
    throw std::invalid_argument("Client::move: agents, results and status must have the same size");
  }
  pb::MoveRequest req;
  req.set_world(world);
  req.set_path(to_pb(path));
  if (layers != kAllLayers) req.set_layers(layers);
  *req.mutable_settings() = to_pb(settings);
  write_request(agents, req);
  pb::MoveResponse resp;
  impl_->call_posed(req, resp, impl_->posed(poses), [&](grpc::ClientContext& ctx) { return impl_->stub_->Move(&ctx, req, &resp); });
  if (!read_response(resp, results, status)) Impl::malformed();
}

namespace {

// The batch size a validate call is sent in: whole when its agents collide, since World::validate
// then judges each claim against the others' starts (split, the verdicts would change).
std::size_t one_judgement(const ValidateSettings& settings, std::size_t n) {
  return settings.movement.agents_collide ? std::max<std::size_t>(n, 1) : 0;
}

}  // namespace

void Client::validate(const std::string& world, std::span<const ClaimedMove> moves, const ValidateSettings& settings,
                      std::span<Verdict> verdicts, SweepPath path, std::uint32_t layers,
                      std::span<const InstancePose> poses) {
  if (verdicts.size() != moves.size()) throw std::invalid_argument("Client::validate: moves and verdicts differ in size");
  const Impl::Posed at_poses = impl_->posed(poses);
  impl_->in_batches(moves.size(), [&](std::size_t at, std::size_t k) {
    pb::ValidateRequest req;
    req.set_world(world);
    req.set_path(to_pb(path));
    if (layers != kAllLayers) req.set_layers(layers);
    *req.mutable_settings() = to_pb(settings);
    write_request(moves.subspan(at, k), req);
    pb::ValidateResponse resp;
    impl_->call_posed(req, resp, at_poses, [&](grpc::ClientContext& ctx) { return impl_->stub_->Validate(&ctx, req, &resp); });
    if (!read_response(resp, verdicts.subspan(at, k))) Impl::malformed();
  }, one_judgement(settings, moves.size()));
}

void Client::overlap(const std::string& world, std::span<const Capsule> capsules, float clearance,
                     std::span<OverlapResult> results, std::span<Status> status, std::uint32_t layers,
                     std::span<const InstancePose> poses) {
  if (results.size() != capsules.size() || (!status.empty() && status.size() != capsules.size())) {
    throw std::invalid_argument("Client::overlap: capsules, results and status must have the same size");
  }
  const Impl::Posed at_poses = impl_->posed(poses);
  impl_->in_batches(capsules.size(), [&](std::size_t at, std::size_t k) {
    pb::OverlapRequest req;
    req.set_world(world);
    if (layers != kAllLayers) req.set_layers(layers);
    req.set_clearance(clearance);
    write_request(capsules.subspan(at, k), req);
    pb::OverlapResponse resp;
    impl_->call_posed(req, resp, at_poses, [&](grpc::ClientContext& ctx) { return impl_->stub_->Overlap(&ctx, req, &resp); });
    if (!read_response(resp, results.subspan(at, k), status.empty() ? status : status.subspan(at, k))) Impl::malformed();
  });
}

std::string Client::upload_poses(const std::string& world, std::span<const InstancePose> poses) {
  pb::UploadPosesRequest req;
  req.set_world(world);
  write_poses(poses, *req.mutable_poses());
  pb::UploadPosesResponse resp;
  impl_->call(resp, [&](grpc::ClientContext& ctx) { return impl_->stub_->UploadPoses(&ctx, req, &resp); });
  return resp.pose_set();
}

std::string Client::info_message() {
  pb::InfoResponse resp;
  impl_->call(resp, [&](grpc::ClientContext& ctx) { return impl_->stub_->Info(&ctx, pb::InfoRequest{}, &resp); });
  return resp.SerializeAsString();
}

ServerInfo Client::info() {
  pb::InfoResponse resp;
  if (!resp.ParseFromString(info_message())) Impl::malformed();
  ServerInfo info;
  for (const pb::WorldInfo& w : resp.worlds()) {
    info.worlds.push_back({w.name(), w.source(), w.triangles(), w.memory_bytes(), w.snapshot(), w.load_seconds()});
  }
  info.version = resp.version();
  info.build = resp.build();
  info.threads = resp.threads();
  info.max_batch = resp.max_batch();
  info.max_message_bytes = resp.max_message_bytes();
  info.max_pose_sets = resp.max_pose_sets();
  info.pose_sets = resp.pose_sets();
  info.uptime_seconds = resp.uptime_seconds();
  for (const pb::RpcCounters& c : resp.rpcs()) {
    info.rpcs.push_back({c.rpc(), c.requests(), c.queries(), c.refused_queries()});
  }
  info.metrics_text = resp.metrics_text();
  return info;
}

}  // namespace capsweep::service
