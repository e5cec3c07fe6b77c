#include "core/assert.h"

#include <cstdio>
#include <cstdlib>

namespace capsweep::detail {

void assertion_failed(const char* condition, const char* what, const char* file, int line) {
  std::fprintf(stderr, "capsweep: internal invariant broken at %s:%d: %s (%s)\n", file, line, what, condition);
  std::abort();
}

}  // namespace capsweep::detail
