// libFuzzer: what the server does with a request before answering it, on any bytes: parse the
// protobuf (the first byte picks the RPC), check its column shape, read its columns into
// queries, agents, claims or capsules, and convert its settings; then the batch itself on a
// small world with an instance, at the poses the request carries (checked, hashed, a still frame
// made) when it carries any. Nothing may crash; a batch whose shape or poses are refused is
// never read.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <capsweep/world.h>

#include "service/capsweep.pb.h"
#include "service/convert.h"
#include "service/poses.h"

namespace {

using namespace capsweep;
namespace pb = capsweep::v1;

// Two static triangles and instance 1, a third one placed at the origin.
const World& small_world() {
  static const World world(
      World(std::vector<Triangle>{{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}}}, {{{0, 0, 0}, {0, 2, 0}, {0, 0, 2}}}}),
      {World(std::vector<Triangle>{{{{0, 0, 0}, {1, 1, 0}, {0, 1, 1}}}})}, {Instance{1, 0, Pose{}}});
  return world;
}

constexpr std::size_t kMaxBatch = 4096;

// The batch's options as the server sets them: its own layers when it names any (0 is refused
// before the batch runs).
template <class Request>
SweepOptions options_of(const Request& r) {
  SweepOptions o = on_path(SweepPath::simd, 1);
  if (r.has_layers() && r.layers() != 0) o.layers = r.layers();
  return o;
}

// The frame a request is answered on, as the server makes it: the world, or a still frame at the
// poses it carries (false when they are refused, or when it names a pose set, which this replica
// holds none of).
template <class Request>
bool pose(const Request& r, const World& world, std::optional<World>& frame) {
  if (!r.has_poses()) return r.pose_set().empty();
  std::size_t rows = 0;
  std::vector<InstancePose> poses;
  if (!service::rows_of(r.poses(), rows).empty() || rows > kMaxBatch || rows > world.instances().size()) return false;
  if (!service::read_poses(r.poses(), rows, poses).empty()) return false;
  if (!r.pose_set().empty() && r.pose_set() != service::pose_set_id(poses)) return false;
  try {
    frame.emplace(service::still_frame(world, poses));
  } catch (const WorldError&) {
    return false;
  }
  return true;
}

template <class Request>
bool parse(const std::uint8_t* data, std::size_t size, Request& r, std::size_t& n, const World*& world) {
  if (!r.ParseFromArray(data, int(size))) return false;
  const service::BatchShape shape = service::shape_of(r);
  if (!shape.ok() || shape.size() > kMaxBatch) return false;
  n = shape.size();
  static thread_local std::optional<World> frame;
  frame.reset();
  if (!pose(r, *world, frame)) return false;
  if (frame) world = &*frame;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > (1u << 20)) return 0;
  const World* at = &small_world();
  std::size_t n = 0;
  const std::uint8_t kind = data[0] % 5;
  ++data, --size;
  if (kind == 0) {
    pb::SweepRequest r;
    if (!parse(data, size, r, n, at)) return 0;
    const World& world = *at;
    const std::vector<SweepQuery> q = service::read_request(r, n);
    std::vector<SweepHit> hits(q.size());
    world.sweep(q, hits, options_of(r));
  } else if (kind == 1) {
    pb::MoveRequest r;
    if (!parse(data, size, r, n, at)) return 0;
    const World& world = *at;
    const MoveSettings settings = service::from_pb(r.settings());
    if (!check_settings(settings).empty()) return 0;
    const std::vector<Agent> agents = service::read_request(r, n);
    std::vector<MoveResult> results(agents.size());
    world.move(agents, settings, results, options_of(r));
  } else if (kind == 2) {
    pb::ValidateRequest r;
    if (!parse(data, size, r, n, at)) return 0;
    const World& world = *at;
    const ValidateSettings settings = service::from_pb(r.settings());
    if (!check_settings(settings).empty()) return 0;
    const std::vector<ClaimedMove> moves = service::read_request(r, n);
    if (!check_claims(moves, settings).empty()) return 0;  // the server refuses the batch
    std::vector<Verdict> verdicts(moves.size());
    world.validate(moves, settings, verdicts, options_of(r));
  } else if (kind == 4) {
    pb::SweepEllipsoidRequest r;
    if (!parse(data, size, r, n, at)) return 0;
    const World& world = *at;
    const std::vector<SweepEllipsoidQuery> q = service::read_request(r, n);
    std::vector<SweepHit> hits(q.size());
    world.sweep_ellipsoid(q, hits, options_of(r));
  } else {
    pb::OverlapRequest r;
    if (!parse(data, size, r, n, at)) return 0;
    const World& world = *at;
    const std::vector<Capsule> capsules = service::read_request(r, n);
    std::vector<OverlapResult> results(capsules.size());
    if (r.clearance() >= 0.f && r.clearance() <= kMaxCoordinate) {
      world.overlap(capsules, r.clearance(), results, options_of(r));
    }
  }
  return 0;
}
