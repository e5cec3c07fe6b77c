// libFuzzer: the viewer's POST /api/sweep body, any bytes: parsed (viewer/sweep_request.h); a
// request it accepts is swept on a small world and encoded as the CWSQ and CWSR bytes the page
// gets, which must be whole files of its queries. Nothing may crash or read past the body.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <capsweep/world.h>

#include "io/query_format.h"
#include "viewer/record_bytes.h"
#include "viewer/sweep_request.h"

namespace {

using namespace capsweep;

const World& small_world() {
  static const World world(std::vector<Triangle>{{{{-5, 0, -5}, {-5, 0, 5}, {5, 0, 5}}}, {{{0, 0, 0}, {0, 2, 0}, {0, 0, 2}}}},
                           std::vector<std::uint32_t>{1u, 2u});
  return world;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  viewer::SweepRequest request;
  std::string why;
  if (!viewer::parse_sweep_request(std::string_view(reinterpret_cast<const char*>(data), size), request, why)) {
    if (why.empty() || request.size() != 0) std::abort();  // a refusal says why and keeps nothing
    return 0;
  }
  if (request.size() == 0 || request.size() > viewer::kMaxSweepBatch) std::abort();
  SweepOptions options;
  options.path = request.path;
  options.layers = request.layers;
  options.threads = 1;
  std::vector<SweepHit> hits(request.size());
  if (request.of_ellipsoids) {
    small_world().sweep_ellipsoid(request.ellipsoids, hits, options);
  } else {
    small_world().sweep(request.capsules, hits, options);
  }
  const std::string queries = viewer::query_file_bytes(request);
  const std::string results = viewer::result_file_bytes(hits, small_world());
  if (results.size() != kHeaderBytes + kResultBytes * hits.size()) std::abort();
  if (queries.size() < kHeaderBytes + hits.size() * kEllipsoidQueryBytes) std::abort();
  return 0;
}
