// libFuzzer: the CWSW snapshot loader on any bytes (the checksum is recomputed for half the
// inputs, so the checks behind it are reached: indices, boxes, blocks). A snapshot that loads
// must answer a sweep without crashing; its sections (a navmesh after the world) are checked too.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <capsweep/files.h>

#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  if (size == 0) return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  // Half the inputs get valid checksums (header at 0..127, docs/FORMATS.md): the payload's over the
  // bytes the header says it has when they are there (sections may follow), else over the rest.
  if ((data[0] & 1) && bytes.size() >= 128) {
    std::uint64_t payload_bytes;
    std::memcpy(&payload_bytes, bytes.data() + 96, 8);
    if (payload_bytes > bytes.size() - 128) payload_bytes = bytes.size() - 128;
    const std::uint64_t payload = snapshot_checksum(bytes.data() + 128, payload_bytes);
    std::memcpy(bytes.data() + 104, &payload, 8);
    const std::uint64_t header = snapshot_checksum(bytes.data(), 120);
    std::memcpy(bytes.data() + 120, &header, 8);
  }
  const std::string path = fuzz::scratch_path(".cwsw");
  fuzz::write_scratch(path, bytes.data(), bytes.size());
  try {
    const Snapshot s = load_snapshot(path);
    const SweepQuery q{{s.world.bounds().min, s.world.bounds().max, 0.5f}, {1, -1, 0.5f}};
    SweepHit hit;
    s.world.sweep_one(q, hit);
    for (const SnapshotSection& section : s.sections) {
      if (section.name.empty() || section.name.size() > 15) __builtin_trap();  // the loader checked it
    }
  } catch (const SnapshotError&) {
  } catch (const WorldError&) {
  }
  std::remove(path.c_str());
  return 0;
}
