// frames_tests runs under ThreadSanitizer, which cannot see oneTBB's own synchronisation (its
// scheduler, in libtbb, is not instrumented): a task handed to a worker looks like a race. The
// frames tests are about the library's threads, not oneTBB's (a publisher and two batch threads
// of their own), so oneTBB keeps every loop on the thread that runs it.
#include <tbb/global_control.h>

namespace {

const tbb::global_control one_worker(tbb::global_control::max_allowed_parallelism, 1);

}  // namespace
