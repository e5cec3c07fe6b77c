// Runs a batch's parallel work on `threads` workers (a task arena of that size), or on every
// core when threads is 0. Internal to broadphase/.
#pragma once

#include <tbb/task_arena.h>

#include <atomic>
#include <functional>

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

template <class Body>
void run_in_arena(int threads, Body&& body) {
  if (threads > 0) {
    tbb::task_arena arena(threads);
    arena.execute(body);
  } else {
    body();
  }
}

}  // namespace capsweep
