// libFuzzer: the CWNM navmesh reader on any bytes (the checksum is recomputed for half the
// inputs, so the checks behind it are reached: settings, mesh parameters, every tile's counts
// and indices). A navmesh that reads must answer a path, a nearest point and a random reachable
// point, and carry a one-agent NavCrowd a few ticks, without crashing.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stdexcept>
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
      const bool near = mesh.nearest(s.bounds.min, {5, 5, 5}, p);
      mesh.path(s.bounds.min, s.bounds.max);
      mesh.triangles();
      Vec3 goal;
      if (!near || !mesh.random_reachable(s.bounds.min, data[0], goal)) goal = s.bounds.max;
      // The crowd plans, steers and moves on what was read; the world is one triangle far below
      // the mesh (a World needs one), so only the navmesh decides where the agent walks.
      // A navmesh beyond a World's range (1e6 m), or for agents thinner than this body, is
      // refused by name there (WorldError, invalid_argument): no crowd to run.
      if (!near) p = s.bounds.min;
      const Vec3 low = s.bounds.min - Vec3{0, 50, 0};
      std::optional<NavCrowd> crowd;
      try {
        crowd.emplace(World(std::vector<Triangle>{{{low, low + Vec3{1, 0, 0}, low + Vec3{0, 0, 1}}}}), mesh,
                      NavCrowdSettings{});
        crowd->add(Capsule{p + Vec3{0, 0.3f, 0}, p + Vec3{0, 1.5f, 0}, 0.3f}, 1.5f, 1);
      } catch (const WorldError&) {
        crowd.reset();
      } catch (const std::invalid_argument&) {
        crowd.reset();
      }
      if (crowd) {
        crowd->set_goal(0, goal);
        for (int t = 0; t < 4; ++t) crowd->tick();
      }
    }
  } catch (const NavMeshError&) {
  }
  std::remove(path.c_str());
  return 0;
}
