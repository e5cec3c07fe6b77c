// What both kinds of CWSW file share (io/snapshot.cpp: a static world's version 7 image;
// io/instanced_snapshot.cpp: version 8, a world with instances as a container of such images).
// Internal to io/.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <capsweep/files.h>

namespace capsweep {

struct WorldArrays;

inline constexpr char kMagic[8] = {'C', 'W', 'S', 'W', '\r', '\n', '\x1a', '\n'};  // catches text-mode mangling
inline constexpr std::uint32_t kByteOrder = 0x01020304u;
inline constexpr std::size_t kAlign = 64;  // every section starts on a cache line (TriangleBlock needs 64)

inline std::uint64_t align_up(std::uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// The memory a loaded world reads from: a private copy of the file.
struct Mapping {
  void* address = MAP_FAILED;
  std::size_t bytes = 0;
  ~Mapping() {
    if (address != MAP_FAILED) munmap(address, bytes);
  }
};

[[noreturn]] inline void refuse(const std::string& path, const std::string& why) { throw SnapshotError(path + ": " + why); }

// A static world (no instances) as a version 7 image: header, sections, source.
std::vector<unsigned char> image_of(const WorldArrays& w, const std::string& source);

// The version 7 image at [offset, offset + bytes) of the file's memory: checked (header, sizes,
// checksums, every index, what the arrays mean), then a World answering from it; its source in
// `source_out`.
World load_image(const std::string& path, const std::shared_ptr<Mapping>& map, std::size_t offset, std::size_t bytes,
                 std::string& source_out);

// Version 8: a world with instances as a file, and back (the world's own checks named with `path`).
std::vector<unsigned char> instanced_file(const WorldArrays& w, const std::string& source);
Snapshot load_instanced(const std::string& path, const std::shared_ptr<Mapping>& map);

}  // namespace capsweep
