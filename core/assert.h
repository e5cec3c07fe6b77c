// CAPSWEEP_ASSERT(condition, what): internal invariants (not input checks: inputs are refused
// with a message where they enter). On in Debug builds and wherever CAPSWEEP_ENABLE_ASSERTS is
// defined (CMake option CAPSWEEP_ASSERTS; the checking build of tests/sanitize.sh turns it on);
// off, it costs nothing. A failed assertion prints the condition and where, then aborts.
#pragma once

namespace capsweep::detail {
[[noreturn]] void assertion_failed(const char* condition, const char* what, const char* file, int line);
}  // namespace capsweep::detail

#if defined(CAPSWEEP_ENABLE_ASSERTS) || !defined(NDEBUG)
#define CAPSWEEP_ASSERT(condition, what) \
  ((condition) ? (void)0 : ::capsweep::detail::assertion_failed(#condition, what, __FILE__, __LINE__))
#else
#define CAPSWEEP_ASSERT(condition, what) ((void)0)
#endif
