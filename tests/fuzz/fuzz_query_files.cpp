// libFuzzer: the CWSQ (versions 1 to 8) and CWSR (versions 1 and 2) readers on any bytes. Each input is written to a file of this
// process and read back; the readers must refuse with FormatError or return records that obey
// the format (checked), and never crash, leak or read out of bounds (ASan, UBSan).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include <capsweep/files.h>

#include "tests/fuzz/scratch_file.h"


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  using namespace capsweep::fuzz;
  const std::string q = scratch_path(".cwsq"), r = scratch_path(".cwsr");
  write_scratch(q, data, size);
  try {
    for (const SweepQuery& query : read_queries(q)) {
      // accepted a bad query, or a mask of 0 (which sees nothing)
      if (check_sweep(query.capsule, query.motion) != Status::ok || query.layers == 0) __builtin_trap();
    }
  } catch (const FormatError&) {
  }
  try {
    for (const ClaimedMove& m : read_claimed_moves(q, 0.5f)) {
      // accepted a bad move: a bad body or motion, or a dt or vertical speed out of range
      const Status body = m.shape == AgentShape::ellipsoid ? check_ellipsoid_sweep(m.ellipsoid, m.motion)
                          : m.shape == AgentShape::capsule ? check_sweep(m.from, m.motion)
                                                           : Status::bad_radius;
      if (body != Status::ok || !(m.dt >= 0 && m.dt <= 1e6f) || !(std::fabs(m.vertical_speed) <= 1e6f) ||
          m.layers == 0) {
        __builtin_trap();
      }
    }
  } catch (const FormatError&) {
  }
  try {
    for (const SweepEllipsoidQuery& e : read_ellipsoid_queries(q)) {
      if (check_ellipsoid_sweep(e.ellipsoid, e.motion) != Status::ok || e.layers == 0) __builtin_trap();  // accepted a bad ellipsoid
    }
  } catch (const FormatError&) {
  }
  write_scratch(r, data, size);
  try {
    const ResultFile file = read_result_file(r);
    if (!file.parts.empty() && file.parts.size() != file.hits.size()) __builtin_trap();
    for (std::size_t i = 0; i < file.hits.size(); ++i) {
      const SweepHit& hit = file.hits[i];
      if (!std::isfinite(hit.t) || (hit.hit && hit.t == 0.f) != (hit_code(hit) == 2)) __builtin_trap();
      if (file.parts.empty()) continue;
      const HitPart& part = file.parts[i];  // a hit names its part, a miss none; only instances and tiles have ids
      if (hit.hit == (part.kind == PartKind::none) || part.kind > PartKind::tile ||
          (part.kind <= PartKind::static_part && part.id != kNoPart)) {
        __builtin_trap();
      }
    }
  } catch (const FormatError&) {
  }
  std::remove(q.c_str());
  std::remove(r.c_str());
  return 0;
}
