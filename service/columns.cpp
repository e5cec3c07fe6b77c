#include "service/columns.h"

namespace capsweep::service {

void BatchShape::column(const char* name, std::size_t size) {
  if (!error_.empty()) return;
  if (!known_) {
    size_ = size;
    known_ = true;
  } else if (size != size_) {
    error_ = std::string("column ") + name + " has " + std::to_string(size) + " elements, the batch has " +
             std::to_string(size_);
  }
}

void BatchShape::optional_column(const char* name, std::size_t size) {
  if (size != 0) column(name, size);
}

void shape_of(const pb::Vec3Column& c, const std::string& name, BatchShape& shape) {
  shape.column((name + ".x").c_str(), std::size_t(c.x_size()));
  shape.column((name + ".y").c_str(), std::size_t(c.y_size()));
  shape.column((name + ".z").c_str(), std::size_t(c.z_size()));
}

void shape_of(const pb::CapsuleColumns& c, const std::string& name, BatchShape& shape) {
  shape.column((name + ".radius").c_str(), std::size_t(c.radius_size()));
  shape_of(c.a(), name + ".a", shape);
  shape_of(c.b(), name + ".b", shape);
}

void optional_shape_of(const pb::CapsuleColumns& c, const std::string& name, BatchShape& shape) {
  if (has_any(c)) shape_of(c, name, shape);
}

bool has_any(const pb::Vec3Column& c) { return c.x_size() || c.y_size() || c.z_size(); }
bool has_any(const pb::CapsuleColumns& c) { return c.radius_size() || has_any(c.a()) || has_any(c.b()); }
bool has_column(const pb::Vec3Column& c, std::size_t i) { return std::size_t(c.x_size()) > i; }
bool has_column(const pb::CapsuleColumns& c, std::size_t i) { return std::size_t(c.radius_size()) > i; }

bool has(const pb::Vec3Column& c, std::size_t n) {
  return std::size_t(c.x_size()) == n && std::size_t(c.y_size()) == n && std::size_t(c.z_size()) == n;
}

bool has(const pb::CapsuleColumns& c, std::size_t n) {
  return has(c.a(), n) && has(c.b(), n) && std::size_t(c.radius_size()) == n;
}

Vec3 vec3_at(const pb::Vec3Column& c, std::size_t i) { return {c.x(int(i)), c.y(int(i)), c.z(int(i))}; }

Capsule capsule_at(const pb::CapsuleColumns& c, std::size_t i) {
  return {vec3_at(c.a(), i), vec3_at(c.b(), i), c.radius(int(i))};
}

void add(pb::Vec3Column& c, const Vec3& v) {
  c.add_x(v.x);
  c.add_y(v.y);
  c.add_z(v.z);
}

void add(pb::CapsuleColumns& c, const Capsule& capsule) {
  add(*c.mutable_a(), capsule.a);
  add(*c.mutable_b(), capsule.b);
  c.add_radius(capsule.radius);
}

void write_hits(std::span<const SweepHit> hits, pb::HitColumns& c) {
  const std::size_t n = hits.size();
  bool* hit = sized(c.mutable_hit(), n);
  float* t = sized(c.mutable_t(), n);
  float* depth = sized(c.mutable_depth(), n);
  std::uint32_t* triangle = sized(c.mutable_triangle(), n);
  int* feature = sized(c.mutable_feature(), n);
  Vec3Out normal(*c.mutable_normal(), n), point(*c.mutable_point(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const SweepHit& h = hits[i];
    hit[i] = h.hit;
    t[i] = h.t;
    normal.put(i, h.normal);
    point.put(i, h.point);
    depth[i] = h.depth;
    triangle[i] = h.triangle;
    feature[i] = int(h.feature);
  }
}

bool read_hits(const pb::HitColumns& c, std::span<SweepHit> hits) {
  const std::size_t n = hits.size();
  if (std::size_t(c.hit_size()) != n || std::size_t(c.t_size()) != n || !has(c.normal(), n) || !has(c.point(), n) ||
      std::size_t(c.depth_size()) != n || std::size_t(c.triangle_size()) != n || std::size_t(c.feature_size()) != n) {
    return false;
  }
  for (std::size_t i = 0; i < n; ++i) {
    SweepHit& h = hits[i];
    h.hit = c.hit(int(i));
    h.t = c.t(int(i));
    h.normal = vec3_at(c.normal(), i);
    h.point = vec3_at(c.point(), i);
    h.depth = c.depth(int(i));
    h.triangle = c.triangle(int(i));
    const int f = c.feature(int(i));
    if (f < 0 || f > int(Feature::vertex)) return false;
    h.feature = Feature(f);
  }
  return true;
}

std::uint32_t layers_at(const google::protobuf::RepeatedField<std::uint32_t>& column, std::size_t i) {
  return column.empty() ? kAllLayers : column[int(i)];
}

pb::QueryStatus to_pb(Status s) { return pb::QueryStatus(int(s)); }
Status from_pb(pb::QueryStatus s) { return Status(int(s)); }

void write_status(std::span<const Status> status, google::protobuf::RepeatedField<int>& out) {
  int* column = sized(&out, status.size());
  for (std::size_t i = 0; i < status.size(); ++i) column[i] = to_pb(status[i]);
}

bool read_status(const google::protobuf::RepeatedField<int>& in, std::span<Status> status, std::size_t n) {
  if (std::size_t(in.size()) != n) return false;
  for (std::size_t i = 0; i < n && !status.empty(); ++i) {
    if (in[int(i)] < 0 || in[int(i)] > int(Status::bad_layers)) return false;
    status[i] = from_pb(pb::QueryStatus(in[int(i)]));
  }
  return true;
}

}  // namespace capsweep::service
