// World snapshots: a built world (triangles, boxes, BVH, adjacency) as one versioned,
// checksummed file that loads in milliseconds, so a server starts without rebuilding the BVH.
// Layout: docs/FORMATS.md ("CWSW").
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

#include <capsweep/world.h>

namespace capsweep {

// Version 6: an 8-wide BVH (nodes of 224 bytes). Version 5 (4-wide nodes), 4 (blocks of 416
// bytes, with float normals), 3 (blocks with double normals, no heightfield), 2 (no layers) and
// 1 (not XXH3 checksums) files are refused with a message to rebuild them.
inline constexpr std::uint32_t kSnapshotVersion = 6;

// A file that is not a snapshot this build can trust: wrong magic, another version or layout,
// truncated, failing its checksum, or holding an index out of range. Names the file.
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Snapshot {
  World world;          // answers exactly like World(triangles) of the same soup
  std::string source;   // what it was built from (the scene path and options), as saved
  std::uint64_t bytes;  // file size
};

// Writes atomically (a temporary file beside `path`, flushed, renamed over it): a failed save
// leaves the file that was there untouched and nothing else behind. Refuses a target that is not
// a regular file or is one of `inputs`. The bytes depend only on the world and `source`. Throws
// SnapshotError on I/O failure.
void save_snapshot(const World& world, const std::string& source, const std::string& path,
                   std::span<const std::string> inputs = {});

// Reads the file into memory of its own (so that a file overwritten or cut short later changes
// nothing), checks header, size and checksum (in parallel), every index, and what the arrays
// mean (every triangle inside its box and every box inside its parent's, each block holding
// exactly the triangles it names), then answers from that memory. Throws SnapshotError.
Snapshot load_snapshot(const std::string& path);

// Whether the file starts with the snapshot magic (for tools that take scenes or snapshots).
bool looks_like_snapshot(const std::string& path);

// The checksum snapshots use: XXH3 (64-bit) of each 1 MiB chunk, in parallel, then XXH3 of
// those digests seeded with the length; exposed for tests.
std::uint64_t snapshot_checksum(const void* data, std::size_t bytes);

}  // namespace capsweep
