#include "io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace capsweep {

namespace {

std::string describe(int error) { return std::strerror(error); }

}  // namespace

AtomicFile::AtomicFile(std::string path, std::span<const std::string> inputs) : path_(std::move(path)) {
  if (path_.empty()) throw OutputError("the output path is empty");
  struct stat target {};
  if (::lstat(path_.c_str(), &target) == 0) {
    if (S_ISDIR(target.st_mode)) throw OutputError(path_ + ": is a directory; refusing to replace it");
    if (!S_ISREG(target.st_mode)) {
      throw OutputError(path_ + ": not a regular file (a symlink, FIFO, socket or device); refusing to replace it");
    }
    for (const std::string& input : inputs) {
      struct stat in {};
      if (::stat(input.c_str(), &in) == 0 && in.st_dev == target.st_dev && in.st_ino == target.st_ino) {
        throw OutputError(path_ + ": is also an input (" + input + "); refusing to overwrite it");
      }
    }
  } else if (errno != ENOENT) {
    throw OutputError(path_ + ": cannot write: " + describe(errno));
  }
  // Beside the target, so that the rename stays on one file system.
  std::vector<char> name(path_.begin(), path_.end());
  const std::string suffix = ".partial-XXXXXX";
  name.insert(name.end(), suffix.begin(), suffix.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) throw OutputError(path_ + ": cannot create: " + describe(errno));
  temporary_ = name.data();
  // mkstemp makes the file private (0600); an output gets the usual 0666 less the umask.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void AtomicFile::fail(const std::string& what, int error) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temporary_.c_str());
  temporary_.clear();
  throw OutputError(path_ + ": " + what + ": " + describe(error));
}

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) throw OutputError(path_ + ": write after the file was closed");
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n < 0 ? errno : ENOSPC);
    bytes.remove_prefix(std::size_t(n));
  }
}

void AtomicFile::write_at(std::uint64_t offset, std::string_view bytes) {
  if (fd_ < 0) throw OutputError(path_ + ": write after the file was closed");
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", n < 0 ? errno : ENOSPC);
    bytes.remove_prefix(std::size_t(n));
    offset += std::uint64_t(n);
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw OutputError(path_ + ": commit after the file was closed");
  if (::fsync(fd_) != 0) fail("cannot flush to disk", errno);
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw OutputError(path_ + ": cannot write: " + describe(error));
  }
  // The target may have become something else since the constructor looked: look again.
  struct stat target {};
  if (::lstat(path_.c_str(), &target) == 0 && !S_ISREG(target.st_mode)) {
    ::unlink(temporary_.c_str());
    throw OutputError(path_ + ": not a regular file any more; refusing to replace it");
  }
  if (::rename(temporary_.c_str(), path_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    throw OutputError(path_ + ": cannot replace: " + describe(error));
  }
  committed_ = true;
  // The rename itself reaches the disk with the directory.
  const std::string dir = std::filesystem::path(path_).parent_path().string();
  const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomically(const std::string& path, std::string_view bytes, std::span<const std::string> inputs) {
  AtomicFile file(path, inputs);
  file.write(bytes);
  file.commit();
}

}  // namespace capsweep
