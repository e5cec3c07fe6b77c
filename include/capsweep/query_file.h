// Reading and writing the CWSQ (queries, versions 1 to 7) and CWSR (results, version 1) files;
// docs/FORMATS.md says what their bytes are.
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

// Refused file: the message names the file and, for a bad record, the record's index.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and validates every query (finite, radius >= 0, within range, a mask that is not 0) of
// a file of capsule sweeps (versions 1, 2, 4, 5, and 7 when every move is a capsule agent's; a
// claimed move's state is checked, then left out; its mask is kept).
std::vector<SweepQuery> read_queries(const std::string& path);

// Reads and validates every claimed move: a version 2, 5 or 7 file's records as they are; a
// version 1 or 4 file's queries as moves over `dt_if_absent` seconds from an unknown state
// (vertical speed 0, not known to be grounded).
std::vector<ClaimedMove> read_claimed_moves(const std::string& path, float dt_if_absent = 0.f);

// Reads and validates every ellipsoid sweep of a version 3 or 6 file (finite, each radius > 0,
// within range, a mask that is not 0), or of a version 7 file whose moves are all ellipsoid
// agents' (their paths); a file of another version is refused, saying what it holds.
std::vector<SweepEllipsoidQuery> read_ellipsoid_queries(const std::string& path);
// Writes version 3, or version 6 when some query sees fewer than every layer.
void write_ellipsoid_queries(const std::string& path, const std::vector<SweepEllipsoidQuery>& queries,
                             std::span<const std::string> inputs = {});

// The version in a CWSQ file's header, from its first 8 bytes alone; 0 when the file cannot be
// read or is not CWSQ (read_queries then says why).
std::uint32_t query_file_version(const std::string& path);

// Every writer here is atomic: the file appears whole or not at all, a failed write leaves the
// file that was there untouched, and nothing else behind. A target that exists and is not a
// regular file (directory, symlink, FIFO, device) is refused, and so is one that is the same
// file as any of `inputs` (pass the files the output was made from). Throws FormatError.
// Writes version 1, or version 4 when some query sees fewer than every layer.
void write_queries(const std::string& path, const std::vector<SweepQuery>& queries,
                   std::span<const std::string> inputs = {});

enum class QueryRecords {
  sweeps,                // version 1: SweepQuery records
  claimed_moves,         // version 2: ClaimedMove records
  masked_sweeps,         // version 4: SweepQuery records with their masks
  masked_claimed_moves,  // version 5: ClaimedMove records with their masks
  shaped_claimed_moves,  // version 7: ClaimedMove records of capsule or ellipsoid agents
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
  // A sweeps file only (std::logic_error otherwise). A mask that is not kAllLayers needs a
  // masked file (std::invalid_argument: an unmasked file cannot carry it), and 0 is never written.
  void add(const SweepQuery& query);
  // A claimed-moves file only; masks as for sweeps; an ellipsoid agent's move needs version 7
  // (std::invalid_argument otherwise).
  void add(const ClaimedMove& move);
  void finish();  // throws FormatError if the file could not be written
  std::uint64_t count() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The CWSR hit code: 0 miss, 1 hit at t > 0, 2 hit at t = 0 (start touches or overlaps).
std::uint8_t hit_code(const SweepHit& hit);

std::vector<SweepHit> read_results(const std::string& path);
void write_results(const std::string& path, const std::vector<SweepHit>& hits,
                   std::span<const std::string> inputs = {});

}  // namespace capsweep
