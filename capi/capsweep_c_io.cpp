// cs_world_import, what libcapsweep_c_io.so adds to libcapsweep_c.so: worlds built from mesh files
// (Assimp, gzip) and heightmaps (libpng), the readers an engine with its own triangles never ships.
#include <capsweep/capsweep_c_io.h>

#include <string>

#include <capsweep/files.h>
#include <capsweep/world.h>

#include "capi/guarded.h"
#include "capi/records.h"
#include "capi/world_handle.h"

namespace {

using namespace capsweep;
using namespace capsweep::capi;

HeightmapOptions heightmap_options(const cs_heightmap_options& o) {
  require(o.reserved == 0, "cs_heightmap_options.reserved must be 0");
  HeightmapOptions h;
  h.cell_x = o.cell_x;
  h.cell_z = o.cell_z;
  h.height_scale = o.height_scale;
  h.origin = records::vec(o.origin);
  h.columns = o.columns;
  h.rows = o.rows;
  h.holes = o.holes ? o.holes : "";
  h.layers = o.layers;
  return h;
}

}  // namespace

extern "C" {

int cs_world_import(const char* path, const cs_load_options* options, cs_world** out) {
  return guarded("cs_world_import", [&] {
    clear_out(out);
    const cs_load_options o = load_options(path, options);
    if (o.kind == CS_FILE_HEIGHTMAP) {
      require(scene_defaults(o), std::string(path) + ": scene options do not apply to a heightmap");
      *out = new cs_world{World(load_heightmap(path, heightmap_options(o.heightmap)))};
      return;
    }
    // One call per kind of file: a snapshot is cs_world_load's, in either library.
    if (looks_like_snapshot(path)) {
      throw SnapshotError(std::string(path) + ": a CWSW snapshot, which cs_world_load reads");
    }
    *out = new cs_world{open_world(path, SceneOptions{o.scale, o.z_up != 0, o.layer_table ? o.layer_table : "", {}}).world};
  });
}

}  // extern "C"
