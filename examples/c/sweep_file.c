/* Answers a CWSQ file of sweeps into a CWSR file through the C API, in a world from a CWSW
 * snapshot (`capsweep build`): linked with libcapsweep_c alone, which needs only oneTBB. A CWSQ
 * body is an array of cs_sweep_query and a CWSR body one of cs_sweep_hit, so the file is read and
 * written as is. */
#include <capsweep/capsweep_c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: sweep_file_c WORLD.cwsw QUERIES.cwsq ANSWERS.cwsr\n");
    return 2;
  }
  cs_world* world = NULL;
  if (cs_world_load(argv[1], NULL, &world) != CS_OK) {
    fprintf(stderr, "sweep_file_c: %s\n", cs_last_error());
    return 1;
  }
  FILE* in = fopen(argv[2], "rb");
  unsigned char header[16];
  uint64_t count = 0;
  if (!in || fread(header, 1, 16, in) != 16 || memcmp(header, "CWSQ", 4) != 0) {
    fprintf(stderr, "sweep_file_c: %s: not a CWSQ file\n", argv[2]);
    return 1;
  }
  memcpy(&count, header + 8, 8); /* little-endian, as the machine */
  cs_sweep_query* queries = malloc(count * sizeof *queries + 1);
  cs_sweep_hit* hits = malloc(count * sizeof *hits + 1);
  if (!queries || !hits || fread(queries, sizeof *queries, count, in) != count) {
    fprintf(stderr, "sweep_file_c: %s: truncated\n", argv[2]);
    return 1;
  }
  fclose(in);

  cs_sweep_args args;
  cs_sweep_args_default(&args); /* capsules on every layer, every core */
  args.queries = queries;
  args.count = count;
  args.hits = hits;
  if (cs_sweep(world, &args) != CS_OK) {
    fprintf(stderr, "sweep_file_c: %s\n", cs_last_error());
    return 1;
  }

  FILE* out = fopen(argv[3], "wb");
  memcpy(header, "CWSR", 4); /* same version and count */
  if (!out || fwrite(header, 1, 16, out) != 16 || fwrite(hits, sizeof *hits, count, out) != count ||
      fclose(out) != 0) {
    fprintf(stderr, "sweep_file_c: %s: cannot write\n", argv[3]);
    return 1;
  }
  printf("capsweep %s: %llu queries answered\n", cs_version(), (unsigned long long)count);
  free(queries);
  free(hits);
  cs_world_free(world);
  return 0;
}
