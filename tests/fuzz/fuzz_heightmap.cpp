// libFuzzer: the heightmap reader (load_heightmap: a grayscale PNG through libpng, or raw float32
// samples, and a PNG hole mask) on any bytes. Byte 0 says whether the size is given (bytes 1 and
// 2, each below 64) and whether a hole mask follows: then bytes 3-4 are its length, and it is the
// input's last bytes. Each file is written to a file of this process and read back. The reader
// must refuse with HeightmapError or return a heightfield of the size asked, whose arrays hold
// what that size says, and never crash, leak or read out of bounds (ASan, UBSan); allocating for
// pixels the file cannot hold trips -malloc_limit_mb (tests/fuzz/CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include <capsweep/files.h>

#include "tests/fuzz/scratch_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  using namespace capsweep::fuzz;
  if (size < 5) return 0;
  static const std::string map = scratch_path(".heightmap");
  static const std::string mask = scratch_path(".holes");
  HeightmapOptions o;
  if (data[0] & 1) {
    o.columns = data[1] % 64;
    o.rows = data[2] % 64;
  }
  std::size_t map_bytes = size - 5;
  if (data[0] & 2) {
    const std::size_t mask_bytes = std::min<std::size_t>(map_bytes, std::size_t(data[3]) | std::size_t(data[4]) << 8);
    map_bytes -= mask_bytes;
    write_scratch(mask, data + 5 + map_bytes, mask_bytes);
    o.holes = mask;
  }
  write_scratch(map, data + 5, map_bytes);
  try {
    const Heightfield t = load_heightmap(map, o);
    const std::size_t samples = std::size_t(t.columns) * t.rows;
    const std::size_t cells = std::size_t(t.columns - 1) * (t.rows - 1);
    // accepted another size than asked, or arrays that do not hold what the size says
    if ((o.columns != 0 && t.columns != o.columns) || (o.rows != 0 && t.rows != o.rows) ||
        t.heights.size() + t.samples.size() != samples || (t.heights.empty() == t.samples.empty()) ||
        t.holes.size() != (o.holes.empty() ? 0 : cells)) {
      __builtin_trap();
    }
  } catch (const HeightmapError&) {
  }
  std::remove(map.c_str());
  std::remove(mask.c_str());
  return 0;
}
