#include "viewer/record_bytes.h"

#include <vector>

#include <capsweep/files.h>

#include "io/query_format.h"

namespace capsweep::viewer {

std::string query_file_bytes(const SweepRequest& request) {
  // A file has no batch mask: each record carries the layers it sees, its own and the batch's
  // (World::sweep's rule), so that `capsweep sweep` without --mask answers the file as the
  // server answered the request (the page sends its layer toggles as the batch's mask).
  if (request.of_ellipsoids) {
    std::vector<SweepEllipsoidQuery> seen(request.ellipsoids.begin(), request.ellipsoids.end());
    for (SweepEllipsoidQuery& q : seen) q.layers &= request.layers;
    return capsweep::ellipsoid_query_file_bytes(seen, "the sweep request");
  }
  std::vector<SweepQuery> seen(request.capsules.begin(), request.capsules.end());
  for (SweepQuery& q : seen) q.layers &= request.layers;
  return capsweep::query_file_bytes(seen, "the sweep request");
}

std::string result_file_bytes(std::span<const SweepHit> hits, const World& world) {
  return capsweep::result_file_bytes(hits, world, "the sweep answers");
}

}  // namespace capsweep::viewer
