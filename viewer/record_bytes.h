// The bytes of a viewer batch as the command's files hold them: the CWSQ file `capsweep sweep`
// would read for it, and the CWSR file it would write for its answers (docs/FORMATS.md). The page
// shows both (its "copy as CWSQ" button, its record panel), and the tests compare them with the
// command's output byte for byte.
#pragma once

#include <span>
#include <string>

#include <capsweep/world.h>

#include "viewer/sweep_request.h"

namespace capsweep::viewer {

// Version 1 (capsules and rays) or 3 (ellipsoids); 4 or 6 when a query sees fewer than every
// layer, as write_queries and write_ellipsoid_queries choose. Each record's mask is the query's
// layers and the batch's (a file has no batch mask), never 0 (parse_sweep_request refuses that).
std::string query_file_bytes(const SweepRequest& request);

// Version 1, or version 2 with each hit's part for a world with instances or tiles, as
// write_results(path, hits, world) chooses.
std::string result_file_bytes(std::span<const SweepHit> hits, const World& world);

}  // namespace capsweep::viewer
