// libFuzzer: the CWNM navmesh reader on any bytes (the checksum is recomputed for half the
// inputs, so the checks behind it are reached: settings, mesh parameters, every tile's counts
// and indices). A navmesh that reads must answer a path and a nearest point without crashing.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <capsweep/navigation.h>

#include "nav/navmesh_file.h"
#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  if (size == 0) return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  // Half the inputs get a valid checksum (its last 8 bytes, docs/FORMATS.md).
  if ((data[0] & 1) && bytes.size() >= 8) {
    const std::uint64_t sum = navmesh_checksum(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, 8);
  }
  const std::string path = fuzz::scratch_path(".cwnm");
  fuzz::write_scratch(path, bytes.data(), bytes.size());
  try {
    const NavMesh mesh = NavMesh::read(path);
    const NavMeshStats s = mesh.stats();
    if (!s.bounds.empty()) {
      Vec3 p;
      mesh.nearest(s.bounds.min, {5, 5, 5}, p);
      mesh.path(s.bounds.min, s.bounds.max);
      mesh.triangles();
    }
  } catch (const NavMeshError&) {
  }
  std::remove(path.c_str());
  return 0;
}
