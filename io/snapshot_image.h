// What both kinds of CWSW file share (io/snapshot.cpp: a static world's version 9 image;
// io/instanced_snapshot.cpp: version 10, a world with instances as a container of such images).
// Internal to io/.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
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

// A static world (no instances) as a version 9 image: header, arrays, source; `sections`: how
// many sections follow it in the file (0 for an image inside a version 10 file).
std::vector<unsigned char> image_of(const WorldArrays& w, const std::string& source, std::uint32_t sections = 0);

// Where a file's world ends, and how many sections its header says follow it.
struct WorldEnd {
  std::uint64_t end = 0;
  std::uint64_t sections = 0;
};

// The version 9 image at [offset, offset + bytes) of the file's memory: checked (header, sizes,
// checksums, every index, what the arrays mean), then a World answering from it; its source in
// `source_out`. With `end_out` (a whole file), its header may name sections after it, which
// are not read here; without, it must name none and end at offset + bytes.
World load_image(const std::string& path, const std::shared_ptr<Mapping>& map, std::size_t offset, std::size_t bytes,
                 std::string& source_out, WorldEnd* end_out = nullptr);

// Version 8: a world with instances as a file, and back (the world's own checks named with `path`).
std::vector<unsigned char> instanced_file(const WorldArrays& w, const std::string& source, std::uint32_t sections = 0);
Snapshot load_instanced(const std::string& path, const std::shared_ptr<Mapping>& map);

// The sections after the world (io/snapshot_sections.cpp): their names checked
// (std::invalid_argument), appended to a file that ends where its world does, and read back from
// `world_end` to the file's end, every byte checked (SnapshotError naming the section).
void check_sections(std::span<const SnapshotSection> sections);
void append_sections(std::vector<unsigned char>& file, std::span<const SnapshotSection> sections);
std::vector<SnapshotSection> read_sections(const std::string& path, const Mapping& map, std::uint64_t world_end,
                                           std::uint64_t count);

}  // namespace capsweep
