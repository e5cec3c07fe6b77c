// Runs a batch's parallel work on `threads` workers (a task arena of that size), or on every
// core when threads is 0. Internal to broadphase/.
#pragma once

#include <tbb/task_arena.h>

namespace capsweep {

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
