// A fuzz input written to a file of this process, for the readers that take a path.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace capsweep::fuzz {

// "/tmp/capsweep_fuzz_<pid><suffix>": one per process, so parallel fuzzers do not collide.
inline std::string scratch_path(const char* suffix) { return "/tmp/capsweep_fuzz_" + std::to_string(getpid()) + suffix; }

inline void write_scratch(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (size) std::fwrite(data, 1, size, f);
  std::fclose(f);
}

}  // namespace capsweep::fuzz
