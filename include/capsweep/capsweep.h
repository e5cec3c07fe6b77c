// Everything capsweep offers C++ users, in one include. Link capsweep::world for the engine
// (World, the kernels), capsweep::io for scenes and files, capsweep::client for the service.
// The C API is <capsweep/capsweep_c.h> (capsweep::c).
#pragma once

#include <capsweep/client.h>
#include <capsweep/contact.h>
#include <capsweep/heightfield.h>
#include <capsweep/heightmap.h>
#include <capsweep/move.h>
#include <capsweep/query_file.h>
#include <capsweep/scene.h>
#include <capsweep/shapes.h>
#include <capsweep/snapshot.h>
#include <capsweep/status.h>
#include <capsweep/sweep.h>
#include <capsweep/sweep_ellipsoid.h>
#include <capsweep/sweep_hit.h>
#include <capsweep/validate.h>
#include <capsweep/vec3.h>
#include <capsweep/version.h>
#include <capsweep/world.h>
#include <capsweep/world_file.h>
