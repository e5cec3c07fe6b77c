// The viewer's POST /api/sweep body, parsed: a small batch of capsule, ray or ellipsoid sweeps
// with their path and layers (docs/VIEWER.md). A pure function of the bytes, so that it can be
// fuzzed alone (tests/fuzz/fuzz_viewer_requests.cpp); the server only ever sees what it accepts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <capsweep/world.h>

namespace capsweep::viewer {

// As the service bounds its batches: a page asks for a handful, so anything larger is a mistake
// or an attack, refused before any sweep runs.
inline constexpr std::size_t kMaxSweepBatch = 256;
inline constexpr std::size_t kMaxRequestBytes = 64 * 1024;

struct SweepRequest {
  SweepPath path = SweepPath::simd;
  std::uint32_t layers = kAllLayers;  // the batch's (SweepOptions::layers)
  bool of_ellipsoids = false;         // one kind per batch, as a CWSQ file holds one kind
  std::vector<SweepQuery> capsules;   // rays are capsules of radius 0 from a point
  std::vector<SweepEllipsoidQuery> ellipsoids;
  std::size_t size() const { return of_ellipsoids ? ellipsoids.size() : capsules.size(); }
};

// The batch `body` (JSON) asks for, or "" and `why` saying what is wrong with it (which query,
// which field): never throws, never reads past the body, refuses bodies over kMaxRequestBytes,
// more than kMaxSweepBatch queries, numbers that are not finite or do not fit a float, radii
// below 0 (ellipsoids: <= 0), masks of 0 (a query's and the batch's sharing no layer included),
// unknown fields and shapes mixed in one batch.
bool parse_sweep_request(std::string_view body, SweepRequest& out, std::string& why);

}  // namespace capsweep::viewer
