// The capsweep commands beyond main.cpp's, and the helpers they share with it.
#pragma once

#include <capsweep/world.h>
#include "cli/options.h"

namespace capsweep {

World load_world(const Options& o);  // --scene, --scale, --z-up
int thread_count(const Options& o);  // --threads (0 = every core)
int effective_threads(int requested);

int cmd_demo(int argc, char** argv);      // the crowd on the built-in arena
int cmd_crowd(int argc, char** argv);     // the crowd on any scene
int cmd_validate(int argc, char** argv);  // judge recorded moves
int cmd_serve(int argc, char** argv);          // the gRPC query service
int cmd_client(int argc, char** argv);         // a CWSQ file through the service
int cmd_bench_service(int argc, char** argv);  // throughput through the service vs in-process

}  // namespace capsweep
