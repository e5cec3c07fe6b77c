#include "world/instances.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/assert.h"
#include "world/world_arrays.h"

namespace capsweep {

namespace {

constexpr const char* kNotUnit = "its rotation is not a unit quaternion";

// Why a pose is refused ("" when it is not), without building a string: check_pose's reasons.
const char* pose_problem(const Pose& pose) {
  const Vec3d& p = pose.position;
  const Quat& q = pose.rotation;
  if (!is_finite(p)) return "its position is not finite";
  if (max_abs_component(p) > double(kMaxCoordinate)) return "its position is beyond 1e6 m of the origin";
  if (!std::isfinite(q.x) || !std::isfinite(q.y) || !std::isfinite(q.z) || !std::isfinite(q.w)) {
    return "its rotation is not finite";
  }
  const double n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  if (!(std::fabs(n2 - 1.0) <= 1e-5)) return kNotUnit;
  return "";
}

}  // namespace

std::string check_pose(const Pose& pose) {
  const char* why = pose_problem(pose);
  if (why != kNotUnit) return why;
  const Quat& q = pose.rotation;
  return std::string(why) + " (squared length " + std::to_string(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w) + ")";
}

Placement placement_of(const Pose& pose) {
  // Normalised in double: a quaternion a rounding off unit length still rotates without scaling.
  const Quat& in = pose.rotation;
  const double inv = 1.0 / std::sqrt(in.x * in.x + in.y * in.y + in.z * in.z + in.w * in.w);
  const double x = in.x * inv, y = in.y * inv, z = in.z * inv, w = in.w * inv;
  Placement p;
  p.r[0][0] = 1 - 2 * (y * y + z * z), p.r[0][1] = 2 * (x * y - z * w), p.r[0][2] = 2 * (x * z + y * w);
  p.r[1][0] = 2 * (x * y + z * w), p.r[1][1] = 1 - 2 * (x * x + z * z), p.r[1][2] = 2 * (y * z - x * w);
  p.r[2][0] = 2 * (x * z - y * w), p.r[2][1] = 2 * (y * z + x * w), p.r[2][2] = 1 - 2 * (x * x + y * y);
  p.t[0] = pose.position.x, p.t[1] = pose.position.y, p.t[2] = pose.position.z;
  return p;
}

Vec3 placed(const Pose& pose, const Vec3& v) { return place(placement_of(pose), v); }
Triangle placed(const Pose& pose, const Triangle& t) { return place(placement_of(pose), t); }

const PlacedInstance& InstanceSet::holding(std::uint32_t i) const {
  CAPSWEEP_ASSERT(i >= first && i - first < triangles, "an instance's triangle");
  const auto after = std::upper_bound(placed.begin(), placed.end(), i,
                                      [](std::uint32_t t, const PlacedInstance& p) { return t < p.first; });
  return *(after - 1);
}

std::uint32_t InstanceSet::index_of(std::uint32_t id) const {
  const auto at = std::lower_bound(by_id.begin(), by_id.end(), std::pair<std::uint32_t, std::uint32_t>(id, 0));
  return at != by_id.end() && at->first == id ? at->second : kNoInstance;
}

Triangle instance_triangle(const InstanceSet& set, std::uint32_t i) {
  const PlacedInstance& in = set.holding(i);
  return place(in.placement, set.prototype_arrays[in.prototype]->mesh_triangle(i - in.first));
}

TriangleLinks instance_links(const InstanceSet& set, std::uint32_t i) {
  const PlacedInstance& in = set.holding(i);
  TriangleLinks links = set.prototype_arrays[in.prototype]->links.unpack(i - in.first);
  for (std::uint32_t& across : links.across) {
    if (across != kNoTriangle) across += in.first;
  }
  return links;
}

const Tile* InstanceSet::tile_holding(std::uint32_t i) const {
  if (i < first || i - first >= triangles) return nullptr;
  const std::size_t k = std::size_t(&holding(i) - placed.data());
  return k >= given.size() ? &tiles[k - given.size()] : nullptr;
}

// The box of a prototype's triangles under a placement: its bounds' centre placed and their half
// extents through |rotation|, rounded outward by far more than placed()'s half float step.
Aabb placed_box(const Placement& p, const Aabb& local) {
  double c[3], h[3], world_c[3], world_h[3];
  for (int k = 0; k < 3; ++k) {
    c[k] = 0.5 * (double(local.min[k]) + double(local.max[k]));
    h[k] = 0.5 * (double(local.max[k]) - double(local.min[k]));
  }
  double magnitude = 1.0;
  for (int k = 0; k < 3; ++k) {
    world_c[k] = p.r[k][0] * c[0] + p.r[k][1] * c[1] + p.r[k][2] * c[2] + p.t[k];
    world_h[k] = std::fabs(p.r[k][0]) * h[0] + std::fabs(p.r[k][1]) * h[1] + std::fabs(p.r[k][2]) * h[2];
    magnitude = std::max(magnitude, std::fabs(world_c[k]) + world_h[k]);
  }
  const double pad = 1e-6 * magnitude;
  Aabb box;
  box.min = Vec3(float(world_c[0] - world_h[0] - pad), float(world_c[1] - world_h[1] - pad), float(world_c[2] - world_h[2] - pad));
  box.max = Vec3(float(world_c[0] + world_h[0] + pad), float(world_c[1] + world_h[1] + pad), float(world_c[2] + world_h[2] + pad));
  return box;
}

namespace {

std::string named(const Instance& in) { return "instance " + std::to_string(in.id); }

// Places an instance at `pose`: its placement and box, checked to stay within range; `who()`
// names it in a refusal.
template <class Who>
void set_pose(PlacedInstance& p, const Pose& pose, const Aabb& prototype_bounds, const Who& who) {
  if (*pose_problem(pose)) throw WorldError(who() + ": " + check_pose(pose));
  p.placement = placement_of(pose);
  p.box = placed_box(p.placement, prototype_bounds);
  if (max_abs_component(p.box.min) > kMaxCoordinate || max_abs_component(p.box.max) > kMaxCoordinate) {
    throw WorldError(who() + ": placed, its triangles reach beyond 1e6 m of the origin");
  }
}

}  // namespace

// The top tree of a frame's boxes: refit from the frame before's while its shape stays good
// (box_overhead within kRebuildCost of the tree's when built), else built anew.
void make_top(InstanceSet& set, const InstanceSet* previous) {
  if (set.placed.empty()) return;
  std::vector<Triangle> boxes(set.placed.size());
  set.bounds = Aabb{};
  for (std::size_t k = 0; k < boxes.size(); ++k) {
    const Aabb& b = set.placed[k].box;
    boxes[k] = Triangle{{b.min, b.max, b.max}};
    set.bounds.grow(b);
  }
  if (previous) {
    set.top = previous->top;
    set.top_cost = refit_bvh(set.top, boxes);
    set.top_cost_built = previous->top_cost_built;
    if (set.top_cost <= kRebuildCost * set.top_cost_built) return;
  }
  set.top = build_bvh(boxes);
  set.top_cost = set.top_cost_built = box_overhead(set.top.view());
}

std::shared_ptr<InstanceSet> place_instances(std::shared_ptr<const std::vector<World>> prototypes,
                                             std::vector<Instance> instances, std::uint32_t first) {
  auto set = std::make_shared<InstanceSet>();
  set->prototypes = std::move(prototypes);
  for (std::size_t k = 0; k < set->prototypes->size(); ++k) {
    const WorldArrays& a = (*set->prototypes)[k].arrays();
    if (a.instances || a.terrain.present() || a.mesh_count() == 0) {
      throw WorldError("prototype " + std::to_string(k) + ": a prototype is a mesh alone (" +
                       (a.instances ? "it has instances" : "it has a heightfield") + ")");
    }
    set->prototype_arrays.push_back(&a);
    set->prototype_bvhs.push_back(a.bvh);
  }
  set->given = std::move(instances);
  set->first = first;
  set->placed.resize(set->given.size());
  std::uint64_t next = first;
  for (std::size_t k = 0; k < set->given.size(); ++k) {
    const Instance& in = set->given[k];
    if (in.prototype >= set->prototype_arrays.size()) {
      throw WorldError(named(in) + ": no prototype " + std::to_string(in.prototype) + " (the world has " +
                       std::to_string(set->prototype_arrays.size()) + ")");
    }
    if (in.layers == 0) throw WorldError(named(in) + ": its layer mask is 0 (on no layer)");
    const WorldArrays& proto = *set->prototype_arrays[in.prototype];
    PlacedInstance& p = set->placed[k];
    set_pose(p, in.pose, proto.bounds, [&] { return named(in); });
    p.first = std::uint32_t(next);
    p.count = std::uint32_t(proto.mesh_count());
    p.prototype = in.prototype;
    p.layers = in.layers;
    next += p.count;
    if (next >= kNoTriangle) throw WorldError(named(in) + ": the world's triangles pass 2^32 - 2");
    set->layers_present |= in.layers;
  }
  set->triangles = next - first;
  set->by_id.resize(set->given.size());
  for (std::uint32_t k = 0; k < set->by_id.size(); ++k) set->by_id[k] = {set->given[k].id, k};
  std::sort(set->by_id.begin(), set->by_id.end());
  for (std::size_t k = 1; k < set->by_id.size(); ++k) {
    if (set->by_id[k].first == set->by_id[k - 1].first) {
      throw WorldError(named(set->given[set->by_id[k].second]) + ": the id is used twice");
    }
  }
  make_top(*set, nullptr);
  return set;
}

std::shared_ptr<InstanceSet> repose(const InstanceSet& previous, std::span<const InstancePose> poses) {
  auto set = std::make_shared<InstanceSet>();
  set->static_part = previous.static_part;
  set->prototypes = previous.prototypes;
  set->prototype_arrays = previous.prototype_arrays;
  set->prototype_bvhs = previous.prototype_bvhs;
  set->given = previous.given;
  set->tiles = previous.tiles;
  set->placed = previous.placed;
  set->by_id = previous.by_id;
  set->first = previous.first;
  set->triangles = previous.triangles;
  set->layers_present = previous.layers_present;
  set->moved.reserve(poses.size());
  constexpr std::size_t kNone = ~std::size_t(0);
  std::vector<std::size_t> posed_at(set->given.size(), kNone);  // the row that posed each
  for (std::size_t row = 0; row < poses.size(); ++row) {
    const InstancePose& pose = poses[row];
    auto where = [&] { return "pose " + std::to_string(row) + " (instance " + std::to_string(pose.id) + ")"; };
    // Callers mostly pose every instance in order: row r is then instance r, found without a search.
    const std::uint32_t k = row < set->given.size() && set->given[row].id == pose.id ? std::uint32_t(row) : set->index_of(pose.id);
    if (k == kNoInstance) throw WorldError(where() + ": the world has no instance of that id");
    if (posed_at[k] != kNone) throw WorldError(where() + ": posed twice, first in pose " + std::to_string(posed_at[k]));
    posed_at[k] = row;
    PlacedInstance& p = set->placed[k];
    const Placement before = p.placement;
    const Aabb before_box = p.box;
    set_pose(p, pose.pose, set->prototype_arrays[p.prototype]->bounds, where);
    set->given[k].pose = pose.pose;
    if (std::memcmp(&before, &p.placement, sizeof before) != 0) {
      set->moved.push_back({k, before});
      set->moved_bounds.grow(before_box);
      set->moved_bounds.grow(p.box);
    }
  }
  // In instance order: the order agents are pushed in never depends on the rows'.
  const auto by_instance = [](const InstanceSet::Moved& a, const InstanceSet::Moved& b) { return a.instance < b.instance; };
  if (!std::is_sorted(set->moved.begin(), set->moved.end(), by_instance)) {
    std::sort(set->moved.begin(), set->moved.end(), by_instance);
  }
  make_top(*set, &previous);
  return set;
}

SweptBox local_swept_box(const PlacedInstance& instance, const SweptBox& s) {
  const Placement& p = instance.placement;
  double c[3], d[3], h[3];
  double world = 1.0, local = 0.0;
  for (int k = 0; k < 3; ++k) {
    world = std::max({world, std::fabs(double(s.c[k])) + double(s.h[k]), std::fabs(p.t[k]),
                      std::fabs(double(instance.box.min[k])), std::fabs(double(instance.box.max[k]))});
  }
  for (int k = 0; k < 3; ++k) {  // the transpose takes world to local
    const double x = double(s.c[0]) - p.t[0], y = double(s.c[1]) - p.t[1], z = double(s.c[2]) - p.t[2];
    c[k] = p.r[0][k] * x + p.r[1][k] * y + p.r[2][k] * z;
    d[k] = p.r[0][k] * s.d[0] + p.r[1][k] * s.d[1] + p.r[2][k] * s.d[2];
    h[k] = std::fabs(p.r[0][k]) * s.h[0] + std::fabs(p.r[1][k]) * s.h[1] + std::fabs(p.r[2][k]) * s.h[2];
    local = std::max({local, std::fabs(c[k]), std::fabs(d[k]), h[k]});
  }
  // A placed vertex is within half a float step (6e-8 relative) of its exact place; each float
  // step below within 2^-24 of the local magnitudes.
  const double pad = 4e-6 * (world + local);
  SweptBox out;
  for (int k = 0; k < 3; ++k) {
    out.c[k] = float(c[k]);
    out.h[k] = float(h[k] + pad);
    out.d[k] = float(d[k]);
    out.inv_d[k] = std::fabs(out.d[k]) > 1e-30f ? 1.f / out.d[k] : 1e30f;
  }
  return out;
}

void place_block(const PlacedInstance& instance, const TriangleBlock& local, TriangleBlock& out) {
  int used = 0;
  for (; used < kBlockLanes && local.valid(used); ++used) {
    set_block_lane(out, used, place(instance.placement, local.get(used)), instance.first + local.triangle[used]);
  }
  close_block(out, used);
}

}  // namespace capsweep
