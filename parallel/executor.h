// The one place capsweep meets oneTBB: ranges of a loop run on workers, sorts, task groups and
// arenas of a chosen size, and the batches' stop check. Every layer that runs in parallel goes
// through this header (bvh v2's executor.h is the model), so that how work is split, and the
// library that splits it, can change in one file. Nothing here decides an answer: every caller
// writes item i's result to slot i, so the bytes are the same on any thread count.
#pragma once

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <atomic>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace capsweep::parallel {

// The most workers a batch may ask for (capsweep::kMaxThreads is this number): oneTBB crashes
// tearing down an arena of more than 65,536, and past the cores more workers only switch.
inline constexpr int kMaxThreads = 1024;

// Throws std::invalid_argument unless 0 <= threads <= kMaxThreads. Every arena made here asks
// it first, so every interface (C++, C, Python, the command, the service) refuses the same counts.
inline void check_threads(int threads) {
  if (threads < 0 || threads > kMaxThreads) {
    throw std::invalid_argument("threads must be from 0 (every core) to " + std::to_string(kMaxThreads) +
                                ", got " + std::to_string(threads));
  }
}

// A piece [begin, end) of a loop's index range, as a worker gets it.
template <class Index>
struct Range {
  Index first, last;
  Index begin() const { return first; }
  Index end() const { return last; }
};

// fn(Range) over pieces of [begin, end) of about `grain` items or more (oneTBB's auto
// partitioner): in parallel, in no particular order.
template <class Index, class Fn>
void for_ranges(Index begin, Index end, Index grain, Fn&& fn) {
  tbb::parallel_for(tbb::blocked_range<Index>(begin, end, grain),
                    [&fn](const tbb::blocked_range<Index>& r) { fn(Range<Index>{r.begin(), r.end()}); });
}
template <class Index, class Fn>
void for_ranges(Index begin, Index end, Fn&& fn) {
  for_ranges(begin, end, Index(1), std::forward<Fn>(fn));
}

// An ascending sort in parallel (operator<; equal elements may end in any order, so callers sort
// keys that are unique or whose equal ones are interchangeable).
template <class Iterator>
void sort(Iterator first, Iterator last) {
  tbb::parallel_sort(first, last);
}

// Tasks started with run() and awaited together with wait().
class TaskGroup {
 public:
  template <class Fn>
  void run(Fn&& fn) {
    tasks_.run(std::forward<Fn>(fn));
  }
  void wait() { tasks_.wait(); }

 private:
  tbb::task_group tasks_;
};

// The workers a parallel loop started here may use: the current arena's.
inline int concurrency() { return tbb::this_task_arena::max_concurrency(); }
// The workers "every core" means (what threads = 0 gives).
inline int default_threads() { return tbb::info::default_concurrency(); }

// Runs body on `threads` workers (an arena of that size), or where it is called (every core, or
// the caller's own arena) when threads is 0; check_threads first.
template <class Body>
void in_arena(int threads, Body&& body) {
  check_threads(threads);
  if (threads > 0) {
    tbb::task_arena arena(threads);
    arena.execute(body);
  } else {
    body();
  }
}

// An arena kept for the life of its owner (the service answers every request on one), or none:
// then work runs where execute is called.
class Arena {
 public:
  explicit Arena(int threads) {
    check_threads(threads);
    if (threads > 0) arena_.emplace(threads);
  }
  template <class Body>
  void execute(Body&& body) {
    if (arena_) {
      arena_->execute(body);
    } else {
      body();
    }
  }

 private:
  std::optional<tbb::task_arena> arena_;
};

// A batch's stop callback as the loops ask it: cheap once it has said yes, and turned into an
// exception (the caller's type) when the batch ends, so that no caller ever takes a stopped batch
// for an answer.
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
  // Throws Error (the batch's own type, e.g. Cancelled) when the batch was stopped.
  template <class Error>
  void throw_if_stopped(const char* what) const {
    if (stopped_.load()) throw Error(std::string(what) + ": stopped before the batch was answered");
  }

 private:
  const std::function<bool()>& stop_;
  std::atomic<bool> stopped_{false};
};

}  // namespace capsweep::parallel
