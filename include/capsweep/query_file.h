// The CWSQ (queries) and CWSR (results) file formats, version 1; see docs/FORMATS.md.
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

// Refused file: the message names the file and, for a bad record, the record's index.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and validates every query (finite, radius > 0, within range).
std::vector<SweepQuery> read_queries(const std::string& path);

// Every writer here is atomic: the file appears whole or not at all, a failed write leaves the
// file that was there untouched, and nothing else behind. A target that exists and is not a
// regular file (directory, symlink, FIFO, device) is refused, and so is one that is the same
// file as any of `inputs` (pass the files the output was made from). Throws FormatError.
void write_queries(const std::string& path, const std::vector<SweepQuery>& queries,
                   std::span<const std::string> inputs = {});

class AtomicFile;

// Writes a CWSQ file record by record (traces too large to hold in memory). The header's count
// is written by finish(), and only then does the file appear; a writer destroyed unfinished
// leaves nothing behind.
class QueryWriter {
 public:
  // Throws FormatError if it cannot create it (or refuses the target, as write_queries does).
  explicit QueryWriter(const std::string& path, std::span<const std::string> inputs = {});
  ~QueryWriter();
  QueryWriter(const QueryWriter&) = delete;
  QueryWriter& operator=(const QueryWriter&) = delete;
  void add(const SweepQuery& query);
  void finish();  // throws FormatError if the file could not be written
  std::uint64_t count() const { return count_; }

 private:
  void flush();
  std::string path_;
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
