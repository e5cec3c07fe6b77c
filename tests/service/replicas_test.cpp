// `capsweep serve` as separate processes on loopback: SIGTERM drains the calls in flight, a
// replica killed mid-run costs no query (each is answered once, correctly, by the others), the
// Prometheus page is served, and the command-line client writes what `capsweep sweep` writes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>

#include <capsweep/files.h>
#include "tools/server_process.h"
#include "tools/workloads.h"
#include "service/capsweep.pb.h"
#include <capsweep/client.h>
#include "tests/support/scene_list.h"
#include "tests/support/test_meshes.h"
#include "io/query_format.h"

namespace {

using namespace capsweep;

const std::string kBinary = CAPSWEEP_BINARY;
const std::string kDungeon = std::string(CAPSWEEP_SCENES_DIR) + "/recast_dungeon.obj";

// ctest runs tests in parallel processes: each file name carries the process id.
std::string temp(const std::string& name) {
  return ::testing::TempDir() + "capsweep_replicas_" + std::to_string(getpid()) + "_" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string http_get(int port, const std::string& path, int timeout_seconds = 30) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  const timeval limit{timeout_seconds, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string request = "GET " + path + " HTTP/1.0\r\n\r\n";
    (void)!write(fd, request.data(), request.size());
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) reply.append(buffer, std::size_t(n));
  }
  close(fd);
  return reply;
}

// The port of a server started with --metrics 127.0.0.1:0, from the line it prints.
int metrics_port(const ServerProcess& server) {
  const std::string mark = "metrics on http://127.0.0.1:";
  const auto at = server.output().find(mark);
  if (at == std::string::npos) throw std::runtime_error("no metrics line in: " + server.output());
  return std::stoi(server.output().substr(at + mark.size()));
}

TEST(Replicas, SigtermFinishesTheCallInFlightThenExitsCleanly) {
  ServerProcess server(kBinary, {"--world", "arena=@arena", "--metrics", "127.0.0.1:0"});
  const int port = metrics_port(server);
  const World world(scenes::load("@arena"));
  const std::vector<SweepQuery> queries = make_workload(world, Workload::long_range, 30000, 6);
  std::vector<SweepHit> expected(queries.size()), hits(queries.size());
  world.sweep(queries, expected);
  service::ClientOptions o;
  o.servers = {server.address()};
  o.batch = queries.size();  // one request of about a second (brute path)
  service::Client client(o);
  std::atomic<bool> returned{false};
  std::thread call([&] {
    client.sweep("arena", queries, hits, {}, SweepPath::brute);
    returned = true;
  });
  // The signal comes once the server has the call (its metrics page says so), however long a
  // loaded machine takes to send it.
  bool in_flight = false;
  while (!in_flight && !returned) {
    in_flight = http_get(port, "/metrics").find("capsweep_requests_in_flight{rpc=\"Sweep\"} 1\n") != std::string::npos;
    if (!in_flight) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  server.signal(SIGTERM);
  call.join();
  EXPECT_TRUE(in_flight) << "the call returned before the server was seen working on it";
  EXPECT_EQ(server.wait(), 0);
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(expected[i], hits[i])) << i;
  EXPECT_EQ(client.retries(), 0u) << "answered by the draining server itself";
}

TEST(Replicas, AReplicaKilledMidRunCostsNoQuery) {
  const std::string snapshot = temp("dungeon.cwsw");
  const World world(scenes::load("recast_dungeon.obj"));
  save_snapshot(world, "recast_dungeon.obj", snapshot);
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int k = 0; k < 3; ++k) replicas.push_back(std::make_unique<ServerProcess>(kBinary, std::vector<std::string>{"--world", "dungeon=" + snapshot, "--threads", "1"}));

  const std::vector<SweepQuery> queries = make_workload(world, Workload::validate, 400 * 256, 12);
  std::vector<SweepHit> expected(queries.size());
  world.sweep(queries, expected);

  service::ClientOptions o;
  for (const auto& r : replicas) o.servers.push_back(r->address());
  o.batch = 256;
  o.in_flight = 1;
  service::Client client(o);
  // A stream of batches from 4 callers; each batch is counted when its answer comes back.
  const std::size_t batches = queries.size() / 256;
  std::vector<std::atomic<int>> answered(batches);
  std::vector<SweepHit> hits(queries.size());
  std::atomic<std::size_t> next{0}, done{0};
  auto caller = [&] {
    for (std::size_t b; (b = next++) < batches;) {
      client.sweep("dungeon", std::span(queries).subspan(b * 256, 256), std::span(hits).subspan(b * 256, 256));
      ++answered[b];
      ++done;
    }
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back(caller);
  while (done < batches / 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  replicas[1]->signal(SIGKILL);
  const std::size_t at_kill = done;
  for (std::thread& t : callers) t.join();
  EXPECT_LT(at_kill, batches) << "the kill came mid-run";
  for (std::size_t b = 0; b < batches; ++b) ASSERT_EQ(answered[b].load(), 1) << "batch " << b;
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(expected[i], hits[i])) << i;

  // The survivors answered the rest between them.
  std::uint64_t served = 0;
  for (int k : {0, 2}) {
    service::ClientOptions one;
    one.servers = {replicas[k]->address()};
    const service::ServerInfo info = service::Client(one).info();
    ASSERT_FALSE(info.worlds.empty());
    EXPECT_TRUE(info.worlds[0].snapshot);
    for (const auto& c : info.rpcs) {
      if (c.rpc == "Sweep") served += c.queries;
    }
  }
  EXPECT_GT(served, (batches - at_kill) * 256 / 2);
  std::remove(snapshot.c_str());
}

// A raw connection to the metrics port (-1 when it cannot connect).
int connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(std::uint16_t(port));
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

TEST(Replicas, MetricsPageCountsWhatWasServed) {
  ServerProcess server(kBinary, {"--world", "arena=@arena", "--metrics", "127.0.0.1:0"});
  const auto at = server.output().find("metrics on http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << server.output();
  const int port = std::stoi(server.output().substr(at + std::string("metrics on http://127.0.0.1:").size()));
  service::ClientOptions o;
  o.servers = {server.address()};
  service::Client client(o);
  const World world(scenes::load("@arena"));
  const std::vector<SweepQuery> queries = make_workload(world, Workload::tick, 777, 2);
  std::vector<SweepHit> hits(queries.size());
  client.sweep("arena", queries, hits);
  EXPECT_THROW(client.sweep("nowhere", queries, hits), service::ServiceError);
  const std::string page = http_get(port, "/metrics");
  EXPECT_NE(page.find("200 OK"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_queries_total{rpc=\"Sweep\"} 777\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_errors_total{rpc=\"Sweep\",code=\"NOT_FOUND\"} 1\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_request_seconds_count{rpc=\"Sweep\"} 2\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_requests_in_flight{rpc=\"Sweep\"} 0\n"), std::string::npos) << page;
  EXPECT_NE(page.find("capsweep_world_triangles{world=\"arena\"} 1232\n"), std::string::npos) << page;
  EXPECT_NE(http_get(port, "/nothing").find("404"), std::string::npos);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// Clients that connect and then stall (half a request line, then nothing) hold one worker each
// until their timeout; a scrape meanwhile is answered at once.
TEST(Replicas, SlowClientsDoNotBlockTheMetricsPage) {
  ServerProcess server(kBinary, {"--world", "arena=@arena", "--metrics", "127.0.0.1:0"});
  const auto at = server.output().find("metrics on http://127.0.0.1:");
  ASSERT_NE(at, std::string::npos) << server.output();
  const int port = std::stoi(server.output().substr(at + std::string("metrics on http://127.0.0.1:").size()));
  std::vector<int> stalled;
  for (int k = 0; k < 4; ++k) {
    const int fd = connect_to(port);
    ASSERT_GE(fd, 0);
    (void)!write(fd, "GET /met", 8);
    stalled.push_back(fd);
  }
  for (int k = 0; k < 3; ++k) {
    const std::string page = http_get(port, "/metrics", 1);  // a one-second receive limit
    EXPECT_NE(page.find("200 OK"), std::string::npos) << "scrape " << k << " while 4 clients stall: '" << page << "'";
  }
  for (int fd : stalled) close(fd);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

int run(const std::string& args) { return std::system((kBinary + " " + args + " > /dev/null 2>&1").c_str()); }

TEST(Replicas, CommandLineClientWritesWhatSweepWrites) {
  ServerProcess server(kBinary, {"--world", "dungeon=" + kDungeon});
  const std::string q = temp("q.cwsq"), local = temp("local.cwsr"), remote = temp("remote.cwsr");
  ASSERT_EQ(run("queries --scene " + kDungeon + " --workload long --count 20000 --out " + q), 0);
  ASSERT_EQ(run("sweep --scene " + kDungeon + " --queries " + q + " --out " + local), 0);
  ASSERT_EQ(run("client --server " + server.address() + " --world dungeon --queries " + q + " --out " + remote +
                " --batch 3000"),
            0);
  const std::string a = read_file(local), b = read_file(remote);
  EXPECT_GT(a.size(), 20000u * kResultBytes);
  EXPECT_TRUE(a == b) << "CWSR through the service differs from in-process";
  EXPECT_NE(run("client --server " + server.address() + " --world nowhere --queries " + q + " --out " + remote), 0);
  // Ellipsoids (a version 3 file) go through SweepEllipsoid, with the same bytes.
  ASSERT_EQ(run("queries --scene " + kDungeon + " --workload long --shape ellipsoid --count 5000 --out " + q), 0);
  ASSERT_EQ(run("sweep --scene " + kDungeon + " --queries " + q + " --out " + local), 0);
  ASSERT_EQ(run("client --server " + server.address() + " --world dungeon --queries " + q + " --out " + remote +
                " --batch 1000"),
            0);
  const std::string e = read_file(local), f = read_file(remote);
  EXPECT_EQ(e.size(), kHeaderBytes + 5000u * kResultBytes);
  EXPECT_TRUE(e == f) << "ellipsoid CWSR through the service differs from in-process";
}

// A heightfield snapshot with a mesh on it (capsweep build --heightmap) served: the client
// writes what `capsweep sweep` writes from the same snapshot, and Info counts its triangles.
TEST(Replicas, AHeightfieldSnapshotIsServedLikeAnyWorld) {
  const std::string png = temp("hills.png"), world = temp("hills.cwsw"), q = temp("hq.cwsq");
  const std::string local = temp("hlocal.cwsr"), remote = temp("hremote.cwsr");
  ASSERT_EQ(run("heightmap --size 257 --seed 8 --out " + png), 0);
  ASSERT_EQ(run("build --heightmap " + png + " --cell 0.5 --height-scale 0.0003 --origin -60,-5,-60 --scene " + kDungeon +
                " --out " + world),
            0);
  ServerProcess server(kBinary, {"--world", "hills=" + world});
  ASSERT_EQ(run("queries --scene " + world + " --workload validate --count 8000 --out " + q), 0);
  ASSERT_EQ(run("sweep --scene " + world + " --queries " + q + " --out " + local), 0);
  ASSERT_EQ(run("client --server " + server.address() + " --world hills --queries " + q + " --out " + remote +
                " --batch 2500"),
            0);
  const std::string a = read_file(local), b = read_file(remote);
  EXPECT_EQ(a.size(), kHeaderBytes + 8000u * kResultBytes);
  EXPECT_TRUE(a == b) << "CWSR through the service differs from in-process";
  std::size_t terrain_hits = 0;
  for (const SweepHit& h : read_results(remote)) terrain_hits += h.hit && h.triangle >= 10133;  // after the dungeon's
  EXPECT_GT(terrain_hits, 100u);
}

// A mesh served with a layer table: a client's --mask hides the wall as `capsweep sweep` does.
TEST(Replicas, ServeTakesALayerTableAndClientsAMask) {
  const std::string obj = temp("room.obj"), table = temp("layers.txt"), q = temp("rays.cwsq");
  std::ofstream(obj) << "v -5 0 -5\nv 5 0 -5\nv 5 0 5\nv -5 0 5\nv 2 0 -5\nv 2 3 -5\nv 2 3 5\nv 2 0 5\n"
                        "g floor\nf 1 3 2\nf 1 4 3\ng wall\nf 5 6 7\nf 5 7 8\n";
  std::ofstream(table) << "wall 2\n";
  std::vector<SweepQuery> rays;
  for (int i = 0; i < 20; ++i) rays.push_back({{{0, 1, float(i) * 0.4f - 4}, {0, 1, float(i) * 0.4f - 4}, 0.f}, {4, 0, 0}});
  write_queries(q, rays);
  ServerProcess server(kBinary, {"--world", "room=" + obj, "--layers", table});
  for (const std::string mask : {"", " --mask 1", " --mask 1,2"}) {
    SCOPED_TRACE(mask);
    const std::string local = temp("local.cwsr"), remote = temp("remote.cwsr");
    ASSERT_EQ(run("sweep --scene " + obj + " --layers " + table + " --queries " + q + " --out " + local + mask), 0);
    ASSERT_EQ(run("client --server " + server.address() + " --world room --queries " + q + " --out " + remote + mask), 0);
    EXPECT_TRUE(read_file(local) == read_file(remote)) << "the service answers a mask differently";
    const std::vector<SweepHit> hits = read_results(remote);
    ASSERT_EQ(hits.size(), rays.size());
    for (const SweepHit& h : hits) EXPECT_EQ(h.hit, mask != " --mask 1") << "the wall is on layer 2";
  }
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
}

// A world with instances served from its snapshot by two replicas: `capsweep client --poses`
// through both (round robin) writes what `capsweep sweep --poses` writes; an unknown instance in
// the poses is refused, naming it, and writes nothing.
TEST(Replicas, TwoReplicasAnswerAtTheClientsPosesAsSweepDoes) {
  const std::string snapshot = temp("crates.cwsw"), poses = temp("poses.csv"), bad = temp("bad.csv");
  const std::string q = temp("cq.cwsq"), local = temp("clocal.cwsr"), remote = temp("cremote.cwsr"), loaded = temp("cl.cwsr");
  const std::vector<Triangle> crate = testmesh::Mesh().box({-1, 0, -1}, {1, 2, 1}).triangles();
  std::vector<Instance> crates;
  for (std::uint32_t k = 0; k < 5; ++k) crates.push_back({k + 1, 0, Pose{Vec3d(-10.0 + 5 * k, 0.2, 3), Quat{}}});
  save_snapshot(World(World(scenes::load("@arena")), {World(crate)}, crates), "@arena with crates", snapshot);
  std::ofstream(poses) << "id,tx,ty,tz,qx,qy,qz,qw\n2,1,0.5,-2,0,0.38268343236508978,0,0.92387953251128674\n"
                          "5,-4,0,6,0,0,0,1\n4,3.5,1,0,0.1,0,0,0.99498743710661997\n";
  std::ofstream(bad) << "3,0,0,0,0,0,0,1\n9,0,0,0,0,0,0,1\n";
  ServerProcess a(kBinary, {"--world", "crates=" + snapshot}),
      b(kBinary, {"--world", "crates=" + snapshot, "--pose-sets", "1"});
  ASSERT_EQ(run("queries --scene " + snapshot + " --workload long --count 6000 --out " + q), 0);
  ASSERT_EQ(run("sweep --scene " + snapshot + " --poses " + poses + " --queries " + q + " --out " + local), 0);
  ASSERT_EQ(run("sweep --scene " + snapshot + " --queries " + q + " --out " + loaded), 0);
  const std::string servers = a.address() + "," + b.address();
  ASSERT_EQ(run("client --server " + servers + " --world crates --poses " + poses + " --queries " + q + " --out " + remote +
                " --batch 700"),
            0);
  // The same hits, bit for bit: `sweep` writes CWSR version 2 for a world with instances (each hit
  // naming its part), `client` version 1 (the service's answers carry no part).
  const std::vector<SweepHit> here = read_results(local), there = read_results(remote);
  ASSERT_EQ(here.size(), there.size());
  for (std::size_t i = 0; i < here.size(); ++i) {
    ASSERT_TRUE(identical(here[i], there[i])) << "query " << i << ": at poses through the service differs from in-process";
  }
  EXPECT_FALSE(read_file(local) == read_file(loaded)) << "the poses change answers";
  service::ClientOptions o;
  o.servers = {b.address()};
  EXPECT_EQ(service::Client(o).info().max_pose_sets, 1u) << "serve --pose-sets";
  const std::string output = temp("refused.txt");
  EXPECT_NE(std::system((kBinary + " client --server " + servers + " --world crates --poses " + bad + " --queries " + q +
                         " --out " + temp("none.cwsr") + " > " + output + " 2>&1")
                            .c_str()),
            0);
  EXPECT_NE(read_file(output).find("row 1 (instance 9): the world has no instance of that id"), std::string::npos)
      << read_file(output);
  EXPECT_FALSE(std::ifstream(temp("none.cwsr")).good());
  for (ServerProcess* s : {&a, &b}) {
    s->signal(SIGTERM);
    EXPECT_EQ(s->wait(), 0);
  }
  for (const std::string& f : {snapshot, poses, bad, q, local, remote, loaded, output}) std::remove(f.c_str());
}

// A snapshot built with --navmesh is served with its navmesh (the server says so); one whose
// navmesh section is damaged is refused at start, naming the section.
TEST(Replicas, ServeKeepsTheNavmeshOfASnapshotAndRefusesADamagedOne) {
  const std::string world = temp("nav.cwsw");
  ASSERT_EQ(run("build --scene " + kDungeon + " --navmesh --out " + world), 0);
  {
    ServerProcess server(kBinary, {"--world", "dungeon=" + world});
    EXPECT_NE(server.output().find("with its navmesh for Navigate"), std::string::npos) << server.output();
  }
  std::string bytes = read_file(world);
  bytes[bytes.size() - 10] ^= 0x40;  // inside the navmesh, the file's last section
  std::ofstream(world, std::ios::binary | std::ios::trunc) << bytes;
  try {
    ServerProcess server(kBinary, {"--world", "dungeon=" + world});
    ADD_FAILURE() << "served a damaged navmesh";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("section 0 (navmesh): the contents are corrupt"), std::string::npos) << e.what();
  }
  std::remove(world.c_str());
}

TEST(Replicas, ServeRefusesACorruptSnapshotAndBadFlags) {
  const std::string snapshot = temp("arena.cwsw");
  save_snapshot(World(scenes::load("@arena")), "@arena", snapshot);
  std::string bytes = read_file(snapshot);
  bytes[bytes.size() / 2] ^= 0x40;
  std::ofstream(snapshot, std::ios::binary | std::ios::trunc) << bytes;
  try {
    ServerProcess server(kBinary, {"--world", "arena=" + snapshot});
    ADD_FAILURE() << "served a corrupt snapshot";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
  }
  EXPECT_EQ(WEXITSTATUS(run("serve --listen 127.0.0.1:0")), 2) << "no --world is a usage error";
  EXPECT_EQ(WEXITSTATUS(run("serve --listen 127.0.0.1:0 --world arena")), 2);
  std::remove(snapshot.c_str());
}

}  // namespace
