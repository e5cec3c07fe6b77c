// libFuzzer: the heightmap reader (load_heightmap: a grayscale PNG through libpng, or raw float32
// samples) on any bytes. The first byte says whether the size is given (the next two bytes, each
// below 64) and whether the file is also its own hole mask; the rest is written to a file of this
// process and read back. The reader must refuse with HeightmapError or return a heightfield that
// check_heightfield accepts (checked), and never crash, leak, read out of bounds or allocate for
// pixels the file cannot hold (ASan, UBSan, -malloc_limit_mb).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include <capsweep/heightmap.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capsweep;
  if (size < 3) return 0;
  static const std::string path = "/tmp/capsweep_fuzz_" + std::to_string(getpid()) + ".heightmap";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  std::fwrite(data + 3, 1, size - 3, f);
  std::fclose(f);
  HeightmapOptions o;
  if (data[0] & 1) {
    o.columns = data[1] % 64;
    o.rows = data[2] % 64;
  }
  if (data[0] & 2) o.holes = path;
  try {
    const Heightfield t = load_heightmap(path, o);
    // accepted a heightfield check_heightfield refuses, or one of another size than asked
    if (!check_heightfield(t).empty() || (o.columns != 0 && t.columns != o.columns) || (o.rows != 0 && t.rows != o.rows)) {
      __builtin_trap();
    }
  } catch (const HeightmapError&) {
  }
  return 0;
}
