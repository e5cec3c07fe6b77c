// Every file capsweep writes goes through here: readers see the old file or the whole new one,
// never a part of it. Written beside the target under a temporary name, flushed to disk, then
// renamed over it; nothing is left behind on failure. Internal to capsweep (io, tools, cli).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace capsweep {

// An output that cannot be written: names the file and the reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AtomicFile {
 public:
  // Refuses a target that exists and is not a regular file (a directory, a symlink, a FIFO, a
  // device: replacing it by a file would surprise), and a target that is one of `inputs` (the
  // same file, by device and inode). Creates the temporary file. Throws OutputError.
  explicit AtomicFile(std::string path, std::span<const std::string> inputs = {});
  ~AtomicFile();  // without commit(): removes the temporary file; the target is untouched
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view bytes);
  // Overwrites bytes already written (a header whose count is known only at the end).
  void write_at(std::uint64_t offset, std::string_view bytes);
  // Flushes to disk and renames over the target (then flushes the directory entry).
  void commit();

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what, int error);
  std::string path_, temporary_;
  int fd_ = -1;
  bool committed_ = false;
};

// The whole file at once.
void write_file_atomically(const std::string& path, std::string_view bytes, std::span<const std::string> inputs = {});

}  // namespace capsweep
