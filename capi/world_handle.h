// What a cs_world handle holds: one World. Internal, shared by the C API and the Python module.
#pragma once

#include <capsweep/capsweep_c.h>
#include <capsweep/world.h>

struct cs_world {
  capsweep::World world;
  std::uint32_t layers = capsweep::kAllLayers;  // what every batch on this handle sees (cs_world_with_layers)
};
