// The one encoder of a CWSR result record (docs/FORMATS.md): write_results and the C and
// Python records (capi/records.h) all write a hit through it. Internal.
#pragma once

#include <capsweep/files.h>
#include "io/query_format.h"

namespace capsweep {

// The 40 bytes of `hit` as a CWSR record: on a miss t = 1, every other float 0 and the
// triangle kNoTriangle.
void encode_result(const SweepHit& hit, unsigned char out[kResultBytes]);

}  // namespace capsweep
