// libFuzzer: the scene loader's own checks, which run before Assimp sees a file: the PLY and OFF
// validators and the gzip inflater. The first byte picks which; the rest is the file.
#include <cstdint>
#include <string>
#include <string_view>

#include <capsweep/files.h>

#include "io/mesh_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  if (size == 0) return 0;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: check_mesh_bytes("fuzz.ply", bytes, ".ply"); break;
      case 1: check_mesh_bytes("fuzz.off", bytes, ".off"); break;
      case 2: {
        const std::string inflated = inflate_gzip("fuzz.obj.gz", bytes);
        check_mesh_bytes("fuzz.off", inflated, ".off");
        break;
      }
    }
  } catch (const SceneError&) {
  }
  return 0;
}
