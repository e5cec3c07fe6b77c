// Everything capsweep offers C++ users, in one include. Link capsweep::world for the engine
// (World, the kernels), capsweep::io for scenes and files, capsweep::client for the service.
// The C API is <capsweep/capsweep_c.h> (capsweep::c; files through <capsweep/capsweep_c_io.h>).
#pragma once

#include <capsweep/values.h>    // vectors, shapes, layers, hits, statuses, heightfields
#include <capsweep/sweep.h>     // one shape against one triangle
#include <capsweep/move.h>      // agents, movement settings and results
#include <capsweep/validate.h>  // claimed moves and verdicts
#include <capsweep/instances.h> // poses and instances: the parts of a world that move
#include <capsweep/world.h>     // World and its batches
#include <capsweep/tiles.h>     // tiles streamed in and out of a world
#include <capsweep/files.h>     // scenes, heightmaps, query/result files, snapshots (capsweep::io)
#include <capsweep/client.h>    // the service's client (capsweep::client)
#include <capsweep/version.h>
