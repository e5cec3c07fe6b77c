/* Builds a world from a mesh file through libcapsweep_c_io (cs_world_import) and checks it
 * against a snapshot of the same scene (cs_world_load): the same triangles, and the same first
 * hit for a capsule dropped onto the middle of the level. */
#include <capsweep/capsweep_c_io.h>

#include <stdio.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: import_scene_c SCENE WORLD.cwsw\n");
    return 2;
  }
  cs_world* imported = NULL;
  cs_world* loaded = NULL;
  if (cs_world_import(argv[1], NULL, &imported) != CS_OK || cs_world_load(argv[2], NULL, &loaded) != CS_OK) {
    fprintf(stderr, "import_scene_c: %s\n", cs_last_error());
    return 1;
  }
  const cs_sweep_query drop = {{{0, 50, 0}, {0, 51, 0}, 0.4f}, {0, -100, 0}};
  cs_sweep_hit hits[2];
  cs_sweep_args args;
  cs_sweep_args_default(&args);
  args.queries = &drop;
  args.count = 1;
  args.hits = &hits[0];
  int failed = cs_sweep(imported, &args) != CS_OK;
  args.hits = &hits[1];
  failed = failed || cs_sweep(loaded, &args) != CS_OK;
  if (failed) {
    fprintf(stderr, "import_scene_c: %s\n", cs_last_error());
    return 1;
  }
  const size_t triangles = cs_world_triangle_count(imported);
  if (triangles != cs_world_triangle_count(loaded) || hits[0].hit != hits[1].hit || hits[0].t != hits[1].t ||
      hits[0].triangle != hits[1].triangle) {
    fprintf(stderr, "import_scene_c: %s and %s differ\n", argv[1], argv[2]);
    return 1;
  }
  printf("capsweep %s: %zu triangles, the same in both\n", cs_version(), triangles);
  cs_world_free(imported);
  cs_world_free(loaded);
  return 0;
}
