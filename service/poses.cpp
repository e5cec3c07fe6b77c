#include "service/poses.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <unordered_map>

// xxHash compiled in from its header (static functions), as the snapshots' checksums are: no
// libxxhash at run time.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace capsweep::service {

void write_poses(std::span<const InstancePose> poses, pb::PoseColumns& c) {
  const std::size_t n = poses.size();
  std::uint32_t* id = sized(c.mutable_id(), n);
  double *x = sized(c.mutable_x(), n), *y = sized(c.mutable_y(), n), *z = sized(c.mutable_z(), n);
  double *qx = sized(c.mutable_qx(), n), *qy = sized(c.mutable_qy(), n), *qz = sized(c.mutable_qz(), n),
         *qw = sized(c.mutable_qw(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const InstancePose& p = poses[i];
    id[i] = p.id;
    x[i] = p.pose.position.x, y[i] = p.pose.position.y, z[i] = p.pose.position.z;
    qx[i] = p.pose.rotation.x, qy[i] = p.pose.rotation.y, qz[i] = p.pose.rotation.z, qw[i] = p.pose.rotation.w;
  }
}

std::string rows_of(const pb::PoseColumns& c, std::size_t& rows) {
  rows = std::size_t(c.id_size());
  const std::pair<const char*, int> columns[] = {{"x", c.x_size()},   {"y", c.y_size()},   {"z", c.z_size()},
                                                 {"qx", c.qx_size()}, {"qy", c.qy_size()}, {"qz", c.qz_size()},
                                                 {"qw", c.qw_size()}};
  for (const auto& [name, size] : columns) {
    if (std::size_t(size) != rows) {
      return std::string("poses: column ") + name + " has " + std::to_string(size) + " rows, id has " +
             std::to_string(rows);
    }
  }
  return "";
}

std::string read_poses(const pb::PoseColumns& c, std::size_t rows, std::vector<InstancePose>& out) {
  out.resize(rows);
  std::unordered_map<std::uint32_t, std::size_t> row_of;  // id -> the row that posed it
  row_of.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const int k = int(i);
    InstancePose& p = out[i];
    p.id = c.id(k);
    p.pose = {Vec3d(c.x(k), c.y(k), c.z(k)), Quat{c.qx(k), c.qy(k), c.qz(k), c.qw(k)}};
    const std::string row = "poses: row " + std::to_string(i) + " (instance " + std::to_string(p.id) + "): ";
    if (std::string why = check_pose(p.pose); !why.empty()) return row + why;
    if (const auto [seen, added] = row_of.emplace(p.id, i); !added) {
      return row + "posed twice, first in row " + std::to_string(seen->second);
    }
  }
  return "";
}

namespace {

void put_le(std::uint64_t v, int bytes, unsigned char*& out) {
  for (int b = 0; b < bytes; ++b) *out++ = static_cast<unsigned char>(v >> (8 * b));
}

}  // namespace

std::string pose_set_id(std::span<const InstancePose> poses) {
  std::vector<const InstancePose*> by_id(poses.size());
  for (std::size_t i = 0; i < poses.size(); ++i) by_id[i] = &poses[i];
  std::stable_sort(by_id.begin(), by_id.end(), [](const InstancePose* a, const InstancePose* b) { return a->id < b->id; });
  constexpr std::size_t kRowBytes = 4 + 7 * 8;
  std::vector<unsigned char> bytes(poses.size() * kRowBytes);
  unsigned char* out = bytes.data();
  for (const InstancePose* p : by_id) {
    put_le(p->id, 4, out);
    const Pose& q = p->pose;
    for (double v : {q.position.x, q.position.y, q.position.z, q.rotation.x, q.rotation.y, q.rotation.z, q.rotation.w}) {
      put_le(std::bit_cast<std::uint64_t>(v), 8, out);
    }
  }
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  static const char* const kHex = "0123456789abcdef";
  std::string id(32, '0');
  for (int k = 0; k < 16; ++k) {
    const std::uint64_t half = k < 8 ? h.high64 : h.low64;
    const unsigned byte = unsigned(half >> (8 * (7 - k % 8))) & 0xFFu;
    id[std::size_t(2 * k)] = kHex[byte >> 4];
    id[std::size_t(2 * k + 1)] = kHex[byte & 15];
  }
  return id;
}

World still_frame(const World& world, std::span<const InstancePose> poses) {
  // The second frame poses nothing: every instance stays where the first placed it (the same
  // placements, the same boxes, the top tree refit to them unchanged), and none moved.
  return world.posed(poses).posed({});
}

}  // namespace capsweep::service
