// The service's column messages (capsweep.proto) element by element: the batch size a request's
// columns agree on, one element of a Vec3 or capsule column read or written, columns sized once
// and filled through pointers, and the columns several messages share (hits, status, layers).
// The messages themselves, built from these, are convert.h's.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <capsweep/world.h>
#include "service/capsweep.pb.h"

namespace capsweep::service {

namespace pb = ::capsweep::v1;

// The batch size a request's columns agree on. Each call names a column and its length; the
// first that differs from the others is kept as `error` (for INVALID_ARGUMENT).
class BatchShape {
 public:
  void column(const char* name, std::size_t size);
  void optional_column(const char* name, std::size_t size);  // empty is allowed
  void fail(const std::string& why) {
    if (error_.empty()) error_ = why;
  }
  std::size_t size() const { return size_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::size_t size_ = 0;
  bool known_ = false;
  std::string error_;
};

void shape_of(const pb::CapsuleColumns& c, const std::string& name, BatchShape& shape);
void shape_of(const pb::Vec3Column& c, const std::string& name, BatchShape& shape);
// Columns that may be left out, but only whole: once one of them is there, all of them are
// (an element is then read from every one of them).
void optional_shape_of(const pb::CapsuleColumns& c, const std::string& name, BatchShape& shape);

// Whether any part of the columns holds an element; whether element i is there; whether every
// part holds exactly n.
bool has_any(const pb::Vec3Column& c);
bool has_any(const pb::CapsuleColumns& c);
bool has_column(const pb::Vec3Column& c, std::size_t i);
bool has_column(const pb::CapsuleColumns& c, std::size_t i);
bool has(const pb::Vec3Column& c, std::size_t n);
bool has(const pb::CapsuleColumns& c, std::size_t n);

Vec3 vec3_at(const pb::Vec3Column& c, std::size_t i);
Capsule capsule_at(const pb::CapsuleColumns& c, std::size_t i);
void add(pb::Vec3Column& c, const Vec3& v);
void add(pb::CapsuleColumns& c, const Capsule& capsule);

// Columns sized once and filled through pointers: no per-element capacity checks.
template <class T>
T* sized(google::protobuf::RepeatedField<T>* field, std::size_t n) {
  field->Resize(int(n), T{});
  return field->mutable_data();
}

struct Vec3Out {
  float *x, *y, *z;
  Vec3Out(pb::Vec3Column& c, std::size_t n)
      : x(sized(c.mutable_x(), n)), y(sized(c.mutable_y(), n)), z(sized(c.mutable_z(), n)) {}
  void put(std::size_t i, const Vec3& v) { x[i] = v.x, y[i] = v.y, z[i] = v.z; }
};

struct CapsuleOut {
  Vec3Out a, b;
  float* radius;
  CapsuleOut(pb::CapsuleColumns& c, std::size_t n)
      : a(*c.mutable_a(), n), b(*c.mutable_b(), n), radius(sized(c.mutable_radius(), n)) {}
  void put(std::size_t i, const Capsule& capsule) {
    a.put(i, capsule.a);
    b.put(i, capsule.b);
    radius[i] = capsule.radius;
  }
};

void write_hits(std::span<const SweepHit> hits, pb::HitColumns& c);
bool read_hits(const pb::HitColumns& c, std::span<SweepHit> hits);

// The element_layers column of a request: written only when some element sees fewer than every
// layer (an empty column means every layer), read as kAllLayers when empty.
template <class Items>
void write_layers(const Items& items, google::protobuf::RepeatedField<std::uint32_t>* column) {
  bool any = false;
  for (const auto& item : items) any = any || item.layers != kAllLayers;
  if (!any) return;
  std::uint32_t* out = sized(column, items.size());
  for (std::size_t i = 0; i < items.size(); ++i) out[i] = items[i].layers;
}
std::uint32_t layers_at(const google::protobuf::RepeatedField<std::uint32_t>& column, std::size_t i);

pb::QueryStatus to_pb(Status s);
Status from_pb(pb::QueryStatus s);
void write_status(std::span<const Status> status, google::protobuf::RepeatedField<int>& out);
bool read_status(const google::protobuf::RepeatedField<int>& in, std::span<Status> status, std::size_t n);

}  // namespace capsweep::service
