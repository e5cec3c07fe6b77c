#include "viewer/record_bytes.h"

#include <cstring>

#include <capsweep/files.h>

#include "io/query_format.h"
#include "io/result_record.h"

namespace capsweep::viewer {

namespace {

template <class T>
void store(std::string& out, T v) {
  char b[sizeof v];
  std::memcpy(b, &v, sizeof v);
  out.append(b, sizeof v);
}

void store(std::string& out, const Vec3& v) {
  for (float f : {v.x, v.y, v.z}) store(out, f);
}

std::string header(std::uint32_t magic, std::uint32_t version, std::size_t count) {
  std::string out;
  store(out, magic);
  store(out, version);
  store(out, std::uint64_t(count));
  return out;
}

}  // namespace

std::string query_file_bytes(const SweepRequest& request) {
  // A file has no batch mask: each record carries the layers it sees, its own and the batch's
  // (World::sweep's rule), so that `capsweep sweep` without --mask answers the file as the
  // server answered the request (the page sends its layer toggles as the batch's mask).
  const auto seen = [&](std::uint32_t own) { return own & request.layers; };
  bool masked = false;
  for (const SweepQuery& q : request.capsules) masked = masked || seen(q.layers) != kAllLayers;
  for (const SweepEllipsoidQuery& q : request.ellipsoids) masked = masked || seen(q.layers) != kAllLayers;
  std::string out;
  if (request.of_ellipsoids) {
    out = header(kQueryMagic, masked ? kMaskedEllipsoidVersion : kEllipsoidVersion, request.ellipsoids.size());
    for (const SweepEllipsoidQuery& q : request.ellipsoids) {
      store(out, q.ellipsoid.centre);
      store(out, q.ellipsoid.radii);
      store(out, q.motion);
      if (masked) store(out, seen(q.layers));
    }
  } else {
    out = header(kQueryMagic, masked ? kMaskedQueryVersion : kFormatVersion, request.capsules.size());
    for (const SweepQuery& q : request.capsules) {
      store(out, q.capsule.a);
      store(out, q.capsule.b);
      store(out, q.capsule.radius);
      store(out, q.motion);
      if (masked) store(out, seen(q.layers));
    }
  }
  return out;
}

std::string result_file_bytes(std::span<const SweepHit> hits, const World& world) {
  const bool parts = !world.instances().empty() || !world.tiles().empty();
  std::string out = header(kResultMagic, parts ? kPartResultVersion : kFormatVersion, hits.size());
  for (const SweepHit& h : hits) {
    unsigned char record[kResultBytes];
    encode_result(h, record);
    out.append(reinterpret_cast<const char*>(record), kResultBytes);
    if (parts) {
      unsigned char part[sizeof(PartBytes)];
      encode_part(part_of(world, h), part);
      out.append(reinterpret_cast<const char*>(part), sizeof part);
    }
  }
  return out;
}

}  // namespace capsweep::viewer
