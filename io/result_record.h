// The one encoder and decoder of a CWSR result record (docs/FORMATS.md): write_results and the C
// and Python records (capi/records.h) all write a hit through it, read_result_file reads one
// through it. Internal.
#pragma once

#include <cstddef>
#include <cstdint>

#include <capsweep/files.h>
#include "io/query_format.h"

namespace capsweep {

// The bytes version 2 adds after a version 1 record: the part the hit is on.
struct PartBytes {
  std::uint8_t kind;         // PartKind
  std::uint8_t reserved[3];  // 0
  std::uint32_t id;          // the instance's or tile's id; kNoPart for none and static_part
};
static_assert(sizeof(PartBytes) == 8 && offsetof(PartBytes, id) == 4 && kResultBytes + sizeof(PartBytes) == kPartResultBytes &&
                  kPartResultBytes % 8 == 0,
              "CWSR version 2 records are version 1's 40 bytes and 8 aligned bytes of the part");

// The 40 bytes of `hit` as a CWSR record: on a miss t = 1, every other float 0 and the
// triangle kNoTriangle.
void encode_result(const SweepHit& hit, unsigned char out[kResultBytes]);
// The 8 bytes of `part`, as part_of gives it.
void encode_part(const HitPart& part, unsigned char out[sizeof(PartBytes)]);

// A record's hit from its first 40 bytes; nullptr, or why the record is refused.
const char* decode_result(const unsigned char* record, SweepHit& hit);
// Its part from the 8 bytes after them (version 2), given the hit they describe.
const char* decode_part(const unsigned char* bytes, const SweepHit& hit, HitPart& part);

}  // namespace capsweep
