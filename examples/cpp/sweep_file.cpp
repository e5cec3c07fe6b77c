// Answers a CWSQ file of sweeps into a CWSR file, as `capsweep sweep` does: a scene (any mesh
// file, or a snapshot), the queries, the answers.
#include <capsweep/capsweep.h>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: sweep_file SCENE QUERIES.cwsq ANSWERS.cwsr\n");
    return 2;
  }
  try {
    const capsweep::World world = capsweep::open_world(argv[1]).world;
    const std::vector<capsweep::SweepQuery> queries = capsweep::read_queries(argv[2]);
    std::vector<capsweep::SweepHit> hits(queries.size());
    world.sweep(queries, hits);  // every core; the same bytes on any thread count
    capsweep::write_results(argv[3], hits, world);  // version 2, naming instances and tiles, for a world with either
    std::printf("capsweep %s: %zu queries answered\n", CAPSWEEP_VERSION_STRING, queries.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sweep_file: %s\n", e.what());
    return 1;
  }
}
