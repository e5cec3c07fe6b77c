// A bounded soak of `capsweep serve` on loopback: several callers send good requests mixed with
// hostile ones (refused queries, batches over the limit, pile-up Moves with short deadlines,
// bytes that do not parse), a replica is killed mid-run and the served snapshot is replaced by
// rename + SIGHUP mid-run; every good request is answered correctly, exactly once.
#include <gtest/gtest.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

#include <capsweep/client.h>
#include <capsweep/files.h>

#include "service/capsweep.grpc.pb.h"
#include "service/convert.h"
#include "tests/support/scene_list.h"
#include "tools/server_process.h"
#include "tools/workloads.h"

namespace {

using namespace capsweep;
namespace pb = capsweep::v1;

const std::string kBinary = CAPSWEEP_BINARY;

std::string temp(const std::string& name) {
  return ::testing::TempDir() + "capsweep_soak_" + std::to_string(getpid()) + "_" + name;
}

// Sends a snapshot to the served path the way DEPLOYMENT.md says: written beside it, renamed over.
void deploy(const World& world, const std::string& source, const std::string& served) {
  save_snapshot(world, source, served + ".new");
  ASSERT_EQ(std::rename((served + ".new").c_str(), served.c_str()), 0);
}

TEST(Soak, EveryGoodRequestIsAnsweredCorrectlyOnceWhileHostileOnesFailAndReplicasComeAndGo) {
  const std::string served = temp("dungeon.cwsw");
  const World world(scenes::load("recast_dungeon.obj"));
  save_snapshot(world, "recast_dungeon.obj", served);
  std::vector<std::unique_ptr<ServerProcess>> replicas;
  for (int k = 0; k < 3; ++k) {
    replicas.push_back(std::make_unique<ServerProcess>(
        kBinary, std::vector<std::string>{"--world", "dungeon=" + served, "--threads", "1", "--max-batch", "4096"}));
  }
  const std::vector<SweepQuery> queries = make_workload(world, Workload::validate, 300 * 128, 21);
  std::vector<SweepHit> expected(queries.size());
  world.sweep(queries, expected);

  service::ClientOptions o;
  for (const auto& r : replicas) o.servers.push_back(r->address());
  o.batch = 128;
  o.in_flight = 1;
  service::Client client(o);
  const std::size_t batches = queries.size() / 128;
  std::vector<std::atomic<int>> answered(batches);
  std::vector<SweepHit> hits(queries.size());
  std::atomic<std::size_t> next{0}, done{0}, hostile{0}, wrong_hostile{0};

  // One hostile request after each good batch, in turn.
  auto hostile_request = [&](std::size_t b) {
    try {
      switch (b % 3) {
        case 0: {  // refused queries: answered, with their statuses
          std::vector<SweepQuery> bad(queries.begin() + std::ptrdiff_t(b), queries.begin() + std::ptrdiff_t(b) + 4);
          bad[1].capsule.radius = NAN;
          bad[2].motion.x = INFINITY;
          std::vector<SweepHit> h(bad.size());
          std::vector<Status> s(bad.size());
          client.sweep("dungeon", bad, h, s);
          if (s[1] == Status::ok || s[2] == Status::ok || h[1].hit) ++wrong_hostile;
          break;
        }
        case 1: {  // a pile-up Move with a short deadline: answered or DEADLINE_EXCEEDED, never more
          std::vector<Agent> pile(2000, Agent{queries[b].capsule, {0.1f, 0, 0}, 0, 0});
          for (std::size_t i = 0; i < pile.size(); ++i) pile[i].id = std::uint32_t(i);
          std::vector<MoveResult> r(pile.size());
          service::ClientOptions quick = o;
          quick.deadline_seconds = 0.05;
          service::Client(quick).move("dungeon", pile, MoveSettings{}, r);
          break;
        }
        case 2: {  // over the batch limit
          std::vector<SweepHit> h(5000);
          service::ClientOptions one = o;
          one.batch = 5000;
          service::Client(one).sweep("dungeon", std::span(queries).first(5000), h);
          ++wrong_hostile;  // must not be answered
          break;
        }
      }
    } catch (const service::ServiceError& e) {
      const bool expected_code = e.code() == int(grpc::StatusCode::RESOURCE_EXHAUSTED) ||
                                 e.code() == int(grpc::StatusCode::DEADLINE_EXCEEDED);
      if (!expected_code) ++wrong_hostile;
    }
    ++hostile;
  };
  auto caller = [&] {
    for (std::size_t b; (b = next++) < batches;) {
      client.sweep("dungeon", std::span(queries).subspan(b * 128, 128), std::span(hits).subspan(b * 128, 128));
      ++answered[b];
      ++done;
      hostile_request(b);
    }
  };
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t) callers.emplace_back(caller);

  // Bytes that do not parse, from the side, on a raw channel to a replica that stays.
  auto channel = grpc::CreateChannel(replicas[0]->address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  for (int k = 0; k < 20; ++k) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    const std::string junk(std::size_t(17 + k * 13), char(0xff - k));
    grpc::Slice slice(junk);
    grpc::ByteBuffer request(&slice, 1), response;
    std::atomic<bool> finished{false};
    grpc::Status status;
    generic.UnaryCall(&ctx, "/capsweep.v1.Capsweep/Sweep", grpc::StubOptions(), &request, &response,
                      [&](grpc::Status s) {
                        status = s;
                        finished = true;
                      });
    while (!finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_FALSE(status.ok()) << "junk " << k << " was answered";
  }

  while (done < batches / 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  replicas[1]->signal(SIGKILL);
  while (done < 2 * batches / 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The same world rebuilt and deployed by rename, then reloaded by the surviving replicas.
  deploy(World(scenes::load("recast_dungeon.obj")), "recast_dungeon.obj (rebuilt)", served);
  replicas[0]->signal(SIGHUP);
  replicas[2]->signal(SIGHUP);
  for (std::thread& t : callers) t.join();

  for (std::size_t b = 0; b < batches; ++b) ASSERT_EQ(answered[b].load(), 1) << "batch " << b;
  for (std::size_t i = 0; i < queries.size(); ++i) ASSERT_TRUE(identical(expected[i], hits[i])) << i;
  EXPECT_EQ(hostile.load(), batches);
  EXPECT_EQ(wrong_hostile.load(), 0u);
  // The survivors are still healthy and now serve the rebuilt world. SIGHUP reloads in the
  // background: wait for it (up to 30 s on a loaded machine) rather than race it.
  for (int k : {0, 2}) {
    service::ClientOptions one;
    one.servers = {replicas[k]->address()};
    service::ServerInfo info = service::Client(one).info();
    for (int wait = 0; wait < 3000 && !info.worlds.empty() && info.worlds[0].source != "recast_dungeon.obj (rebuilt)";
         ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      info = service::Client(one).info();
    }
    ASSERT_EQ(info.worlds.size(), 1u);
    EXPECT_EQ(info.worlds[0].source, "recast_dungeon.obj (rebuilt)") << "replica " << k;
  }
  std::remove(served.c_str());
}

// SIGHUP swaps in what the file now holds; a file that does not load keeps the old world.
TEST(Soak, SighupReloadsAWorldAndKeepsItWhenTheNewFileIsBroken) {
  const std::string served = temp("w.cwsw");
  save_snapshot(World(scenes::load("@arena")), "arena", served);
  ServerProcess server(kBinary, {"--world", "w=" + served});
  service::ClientOptions o;
  o.servers = {server.address()};
  auto triangles = [&] {
    const service::ServerInfo info = service::Client(o).info();
    return info.worlds.at(0).triangles;
  };
  auto wait_for = [&](std::uint64_t count) {
    for (int k = 0; k < 200 && triangles() != count; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    return triangles();
  };
  EXPECT_EQ(triangles(), 1232u);
  deploy(World(scenes::load("recast_dungeon.obj")), "dungeon", served);
  server.signal(SIGHUP);
  EXPECT_EQ(wait_for(10133u), 10133u);
  // A broken file renamed over it: the dungeon stays served.
  {
    std::FILE* f = std::fopen((served + ".new").c_str(), "wb");
    std::fputs("not a snapshot", f);
    std::fclose(f);
    ASSERT_EQ(std::rename((served + ".new").c_str(), served.c_str()), 0);
  }
  server.signal(SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(triangles(), 10133u);
  server.signal(SIGTERM);
  EXPECT_EQ(server.wait(), 0);
  std::remove(served.c_str());
}

}  // namespace
