// The CWSQ and CWSR layouts (docs/FORMATS.md): magic numbers, versions and record sizes, for
// the readers and writers (query_file.cpp) and the layers above that check their records
// against them (capi/records.h, the command, the Python module, tests). Not public: a user reads
// and writes the files through <capsweep/files.h>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <capsweep/world.h>

namespace capsweep {

inline constexpr std::uint32_t kQueryMagic = 0x51535743;   // "CWSQ"
inline constexpr std::uint32_t kResultMagic = 0x52535743;  // "CWSR"
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 16;
inline constexpr std::size_t kQueryBytes = 40;
inline constexpr std::size_t kResultBytes = 40;
// CWSR version 2: every record is a version 1 record followed by the part of the world the hit is
// on (a kind byte, 3 zero bytes, the instance's or tile's id): 48 bytes. Written for worlds with
// instances or tiles; a world without either still gets version 1, byte for byte.
inline constexpr std::uint32_t kPartResultVersion = 2;
inline constexpr std::size_t kPartResultBytes = 48;
// CWSQ version 2: every record is a claimed move, the version 1 record followed by the server's
// state (dt, vertical speed, grounded): 52 bytes, a cs_claimed_move of the C API.
inline constexpr std::uint32_t kClaimedMoveVersion = 2;
inline constexpr std::size_t kClaimedMoveBytes = 52;
// CWSQ version 3: every record is an ellipsoid sweep (centre, radii, motion): 36 bytes, a
// cs_ellipsoid_query of the C API. Answered into an ordinary CWSR file.
inline constexpr std::uint32_t kEllipsoidVersion = 3;
inline constexpr std::size_t kEllipsoidQueryBytes = 36;
// Versions 4, 5 and 6: the records of versions 1, 2 and 3, each followed by a u32 layer mask
// (the layers that query, claim or ellipsoid sees, never 0): cs_masked_sweep_query,
// cs_claimed_move and cs_masked_ellipsoid_query of the C API. Files of versions 1 to 3 read as
// masks of every layer.
inline constexpr std::uint32_t kMaskedQueryVersion = 4;
inline constexpr std::size_t kMaskedQueryBytes = 44;
inline constexpr std::uint32_t kMaskedClaimedMoveVersion = 5;
inline constexpr std::size_t kMaskedClaimedMoveBytes = 56;
inline constexpr std::uint32_t kMaskedEllipsoidVersion = 6;
inline constexpr std::size_t kMaskedEllipsoidQueryBytes = 40;
// Version 7: claimed moves of capsule or ellipsoid agents (the C API's cs_claimed_move, 80 bytes):
// a version 5 record whose byte 49 is the shape, followed by the ellipsoid (centre, radii).
inline constexpr std::uint32_t kShapedClaimedMoveVersion = 7;
inline constexpr std::size_t kShapedClaimedMoveBytes = 80;
// Version 8: claimed moves with the ground triangle the agent stood on (the C API's
// cs_claimed_move, 84 bytes): a version 7 record followed by a u32 triangle (0xFFFFFFFF: none).
// Versions 2, 5 and 7 read as no ground triangle known.
inline constexpr std::uint32_t kGroundedClaimedMoveVersion = 8;
inline constexpr std::size_t kGroundedClaimedMoveBytes = 84;

// What a version's records are: ellipsoid sweeps (3, 6), capsule sweeps (1, 2, 4, 5), either
// (7, 8: each record says); claimed moves that carry their own dt and state (2, 5, 7, 8); records
// that carry a layer mask (4, 5, 6, 7, 8).
constexpr bool holds_ellipsoids(std::uint32_t version) {
  return version == kEllipsoidVersion || version == kMaskedEllipsoidVersion;
}
constexpr bool holds_claim_state(std::uint32_t version) {
  return version == kClaimedMoveVersion || version == kMaskedClaimedMoveVersion || version == kShapedClaimedMoveVersion ||
         version == kGroundedClaimedMoveVersion;
}
// Versions whose records say each agent's shape (capsule or ellipsoid).
constexpr bool holds_shapes(std::uint32_t version) {
  return version == kShapedClaimedMoveVersion || version == kGroundedClaimedMoveVersion;
}
constexpr bool holds_masks(std::uint32_t version) {
  return version == kMaskedQueryVersion || version == kMaskedClaimedMoveVersion || version == kMaskedEllipsoidVersion ||
         version == kShapedClaimedMoveVersion || version == kGroundedClaimedMoveVersion;
}

// A whole file's bytes, header and records, as write_queries, write_ellipsoid_queries and
// write_results(hits, world) write them (for callers that send a file instead of writing one);
// `path` names it in a refusal (FormatError: a mask of 0, a hit on no triangle of the world).
std::string query_file_bytes(std::span<const SweepQuery> queries, const std::string& path);
std::string ellipsoid_query_file_bytes(std::span<const SweepEllipsoidQuery> queries, const std::string& path);
std::string result_file_bytes(std::span<const SweepHit> hits, const World& world, const std::string& path);

}  // namespace capsweep
