// What a cs_world handle holds: one World. Internal, shared by the C API and the Python module.
#pragma once

#include <capsweep/capsweep_c.h>
#include <capsweep/world.h>

struct cs_world {
  capsweep::World world;
};
