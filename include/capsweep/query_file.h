// The CWSQ (queries, versions 1 to 3) and CWSR (results, version 1) file formats; see
// docs/FORMATS.md.
// Little-endian, fixed-size records, so that recorded moves and benchmarks are reproducible
// with any tool.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <capsweep/world.h>

namespace capsweep {

inline constexpr std::uint32_t kQueryMagic = 0x51535743;   // "CWSQ"
inline constexpr std::uint32_t kResultMagic = 0x52535743;  // "CWSR"
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderBytes = 16;
inline constexpr std::size_t kQueryBytes = 40;
inline constexpr std::size_t kResultBytes = 40;
// CWSQ version 2: every record is a claimed move, the version 1 record followed by the server's
// state (dt, vertical speed, grounded): 52 bytes, a cs_claimed_move of the C API.
inline constexpr std::uint32_t kClaimedMoveVersion = 2;
inline constexpr std::size_t kClaimedMoveBytes = 52;
// CWSQ version 3: every record is an ellipsoid sweep (centre, radii, motion): 36 bytes, a
// cs_ellipsoid_query of the C API. Answered into an ordinary CWSR file.
inline constexpr std::uint32_t kEllipsoidVersion = 3;
inline constexpr std::size_t kEllipsoidQueryBytes = 36;

// Refused file: the message names the file and, for a bad record, the record's index.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and validates every query (finite, radius >= 0, within range), of either version (a
// version 2 file's state is checked, then left out).
std::vector<SweepQuery> read_queries(const std::string& path);

// Reads and validates every claimed move: a version 2 file's records as they are; a version 1
// file's queries as moves over `dt_if_absent` seconds from an unknown state (vertical speed 0,
// not known to be grounded).
std::vector<ClaimedMove> read_claimed_moves(const std::string& path, float dt_if_absent = 0.f);

// Reads and validates every ellipsoid sweep of a version 3 file (finite, each radius > 0,
// within range); a file of another version is refused, saying what it holds.
std::vector<SweepEllipsoidQuery> read_ellipsoid_queries(const std::string& path);
void write_ellipsoid_queries(const std::string& path, const std::vector<SweepEllipsoidQuery>& queries,
                             std::span<const std::string> inputs = {});

// The version in a CWSQ file's header, from its first 8 bytes alone; 0 when the file cannot be
// read or is not CWSQ (read_queries then says why).
std::uint32_t query_file_version(const std::string& path);

// Every writer here is atomic: the file appears whole or not at all, a failed write leaves the
// file that was there untouched, and nothing else behind. A target that exists and is not a
// regular file (directory, symlink, FIFO, device) is refused, and so is one that is the same
// file as any of `inputs` (pass the files the output was made from). Throws FormatError.
void write_queries(const std::string& path, const std::vector<SweepQuery>& queries,
                   std::span<const std::string> inputs = {});

class AtomicFile;

enum class QueryRecords {
  sweeps,         // version 1: SweepQuery records
  claimed_moves,  // version 2: ClaimedMove records
};

// Writes a CWSQ file record by record (traces too large to hold in memory). The header's count
// is written by finish(), and only then does the file appear; a writer destroyed unfinished
// leaves nothing behind.
class QueryWriter {
 public:
  // Throws FormatError if it cannot create it (or refuses the target, as write_queries does).
  explicit QueryWriter(const std::string& path, std::span<const std::string> inputs = {},
                       QueryRecords records = QueryRecords::sweeps);
  ~QueryWriter();
  QueryWriter(const QueryWriter&) = delete;
  QueryWriter& operator=(const QueryWriter&) = delete;
  void add(const SweepQuery& query);  // a sweeps file only (std::logic_error otherwise)
  void add(const ClaimedMove& move);  // a claimed_moves file only
  void finish();  // throws FormatError if the file could not be written
  std::uint64_t count() const { return count_; }

 private:
  void flush();
  std::string path_;
  QueryRecords records_;
  std::unique_ptr<AtomicFile> file_;
  std::string buffer_;
  std::uint64_t count_ = 0;
  bool finished_ = false;
};

// The CWSR hit code: 0 miss, 1 hit at t > 0, 2 hit at t = 0 (start touches or overlaps).
std::uint8_t hit_code(const SweepHit& hit);

std::vector<SweepHit> read_results(const std::string& path);
void write_results(const std::string& path, const std::vector<SweepHit>& hits,
                   std::span<const std::string> inputs = {});

}  // namespace capsweep
