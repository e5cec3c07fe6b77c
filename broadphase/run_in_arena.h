// Runs a batch's parallel work on `threads` workers (a task arena of that size), or on every
// core when threads is 0. Internal to broadphase/ (and to the service and tools that make arenas).
#pragma once

#include <tbb/task_arena.h>

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>

#include <capsweep/world.h>

namespace capsweep {

// SweepOptions::stop as the batch loops ask it: cheap once it has said yes, and turned into
// Cancelled when the batch ends (so no caller ever takes a stopped batch for an answer).
class StopCheck {
 public:
  explicit StopCheck(const std::function<bool()>& stop) : stop_(stop) {}
  // Whether to stop before item i (asked of the caller's function every 32 items).
  bool before(std::size_t i) {
    if (stopped_.load(std::memory_order_relaxed)) return true;
    if (!stop_ || (i & 31) != 0 || !stop_()) return false;
    stopped_.store(true, std::memory_order_relaxed);
    return true;
  }
  void throw_if_stopped(const char* what) const {
    if (stopped_.load()) throw Cancelled(std::string(what) + ": stopped before the batch was answered");
  }

 private:
  const std::function<bool()>& stop_;
  std::atomic<bool> stopped_{false};
};

// Throws std::invalid_argument unless 0 <= threads <= kMaxThreads: every batch entry point asks
// it (through run_in_arena) before any work, so every interface refuses the same counts.
inline void check_threads(int threads) {
  if (threads < 0 || threads > kMaxThreads) {
    throw std::invalid_argument("threads must be from 0 (every core) to " + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(threads));
  }
}

template <class Body>
void run_in_arena(int threads, Body&& body) {
  check_threads(threads);
  if (threads > 0) {
    tbb::task_arena arena(threads);
    arena.execute(body);
  } else {
    body();
  }
}

}  // namespace capsweep
