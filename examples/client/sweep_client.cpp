// Answers a CWSQ file through a `capsweep serve` (or several replicas): the same answers as the
// library in-process, from a game server that holds no world of its own.
#include <capsweep/client.h>
#include <capsweep/files.h>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: sweep_client HOST:PORT WORLD QUERIES.cwsq ANSWERS.cwsr\n");
    return 2;
  }
  try {
    capsweep::service::ClientOptions options;
    options.servers = {argv[1]};  // or several "host:port", or "dns:///name:port"
    capsweep::service::Client client(options);
    const std::vector<capsweep::SweepQuery> queries = capsweep::read_queries(argv[3]);
    std::vector<capsweep::SweepHit> hits(queries.size());
    client.sweep(argv[2], queries, hits);
    capsweep::write_results(argv[4], hits);
    std::printf("%zu queries answered by %s\n", queries.size(), argv[1]);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sweep_client: %s\n", e.what());
    return 1;
  }
}
