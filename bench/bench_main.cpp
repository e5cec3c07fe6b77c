// Runs the benchmarks, then prints the comparison table: capsweep per core and on all cores,
// next to Embree's ray rate and Bullet's capsule sweeps on the same queries, with the ratios.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

// Keeps every run's rate and counters by name, and prints as the console reporter does. With
// --benchmark_repetitions=N the summary takes each value's median over the repetitions (the
// machines are shared: single runs move by up to 15 %).
class Collector : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
      auto& c = samples[run.run_name.function_name];
      for (const auto& [key, counter] : run.counters) c[key].push_back(counter.value);
      c["real_ms"].push_back(run.GetAdjustedRealTime());
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    for (auto& [name, values] : samples) {
      for (auto& [key, v] : values) {
        std::sort(v.begin(), v.end());
        results[name][key] = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
      }
    }
    ConsoleReporter::Finalize();
  }
  std::map<std::string, std::map<std::string, std::vector<double>>> samples;
  std::map<std::string, std::map<std::string, double>> results;
};

double get(const Collector& c, const std::string& name, const std::string& key) {
  const auto it = c.results.find(name);
  if (it == c.results.end()) return 0;
  const auto k = it->second.find(key);
  return k == it->second.end() ? 0 : k->second;
}

std::string rate(double per_second) {
  char buf[32];
  if (per_second <= 0) return "-";
  if (per_second >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM", per_second / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0fk", per_second / 1e3);
  }
  return buf;
}

std::string ratio(double a, double b) {
  char buf[32];
  if (a <= 0 || b <= 0) return "-";
  std::snprintf(buf, sizeof buf, "%.2f", a / b);
  return buf;
}

void print_summary(const Collector& c) {
  const char* scenes[] = {"arena", "recast_dungeon.obj", "recast_nav_test.obj", "oa_am_thornish.obj",
                          "0ad_corinthian_isthmus_4p.obj.gz"};
  std::printf("\nSweeps (or rays) per second on the same 8192 queries per row; 1 core unless marked.\n\n");
  std::printf("| scene | workload | simd | simd, all cores | simd unpooled | pooled/unpooled | scalar | Embree ray | Bullet "
              "| simd/Embree | simd/Bullet | nodes/sweep | tris/sweep |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const char* scene : scenes) {
    for (const char* wl : {"tick", "validate", "long", "ray"}) {
      const std::string base = std::string(scene) + "/" + wl;
      const std::string simd1 = "Sweep/" + base + "/simd/1thread";
      const double simd = get(c, simd1, "items_per_second");
      if (simd <= 0) continue;
      const double all = get(c, "Sweep/" + base + "/simd/allthreads", "items_per_second");
      const double scalar = get(c, "Sweep/" + base + "/scalar/1thread", "items_per_second");
      const double unpooled = get(c, "SweepUnpooled/" + base + "/1thread", "items_per_second");
      const double embree = get(c, "EmbreeRay/" + base + "/1thread", "items_per_second");
      const double bullet = get(c, "BulletSweep/" + base + "/1thread", "items_per_second");
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.1f | %.1f |\n", scene, wl, rate(simd).c_str(),
                  rate(all).c_str(), rate(unpooled).c_str(), ratio(simd, unpooled).c_str(), rate(scalar).c_str(), rate(embree).c_str(), rate(bullet).c_str(),
                  ratio(simd, embree).c_str(), ratio(simd, bullet).c_str(), get(c, simd1, "nodes/sweep"),
                  get(c, simd1, "tris/sweep"));
    }
  }
  std::printf("\nEllipsoids (the same people, radii 0.35, 0.9, 0.35 m) beside the capsules, simd path.\n\n");
  std::printf("| scene | workload | ellipsoid, 1 core | all cores | capsule, 1 core | ellipsoid / capsule |\n"
              "|---|---|---|---|---|---|\n");
  for (const char* scene : scenes) {
    for (const char* wl : {"tick", "validate", "long"}) {
      const std::string base = std::string(scene) + "/" + wl;
      const double e1 = get(c, "SweepEllipsoid/" + base + "/simd/1thread", "items_per_second");
      if (e1 <= 0) continue;
      const double all = get(c, "SweepEllipsoid/" + base + "/simd/allthreads", "items_per_second");
      const double capsule = get(c, "Sweep/" + base + "/simd/1thread", "items_per_second");
      std::printf("| %s | %s | %s | %s | %s | %s |\n", scene, wl, rate(e1).c_str(), rate(all).c_str(),
                  rate(capsule).c_str(), ratio(e1, capsule).c_str());
    }
  }
  std::printf("\nThe 0 A.D. terrain as its mesh and as the heightfield it came from (the same 947k triangles, the same "
              "queries and answers), simd, 1 core.\n\n| workload | mesh | heightfield | heightfield / mesh | mesh "
              "bytes/triangle | heightfield bytes/triangle |\n|---|---|---|---|---|---|\n");
  for (const char* wl : {"tick", "validate", "long", "ray"}) {
    const std::string mesh = std::string("Terrain/0ad/mesh/") + wl + "/1thread";
    const std::string field = std::string("Terrain/0ad/heightfield/") + wl + "/1thread";
    const double m = get(c, mesh, "items_per_second"), f = get(c, field, "items_per_second");
    if (m <= 0 && f <= 0) continue;
    std::printf("| %s | %s | %s | %s | %.0f | %.1f |\n", wl, rate(m).c_str(), rate(f).c_str(), ratio(f, m).c_str(),
                get(c, mesh, "bytes/tri"), get(c, field, "bytes/tri"));
  }
  if (get(c, "TerrainBuild/hills4097", "triangles") > 0) {
    std::printf("\nA 4097 x 4097 heightmap (16-bit PNG, %.1fM triangles): built from the file in %.0f ms, its snapshot "
                "(%.1f MB) loaded in %.0f ms, %.1f MB in memory; sweeps/s on 1 core: tick %s, validate %s, long %s.\n",
                get(c, "TerrainBuild/hills4097", "triangles") / 1e6, get(c, "TerrainBuild/hills4097", "real_ms"),
                get(c, "TerrainLoad/hills4097", "file_MB"), get(c, "TerrainLoad/hills4097", "real_ms"),
                get(c, "TerrainLoad/hills4097", "MB"),
                rate(get(c, "Terrain/hills4097/heightfield/tick/1thread", "items_per_second")).c_str(),
                rate(get(c, "Terrain/hills4097/heightfield/validate/1thread", "items_per_second")).c_str(),
                rate(get(c, "Terrain/hills4097/heightfield/long/1thread", "items_per_second")).c_str());
  }
  std::printf("\n| scene | triangles | BVH build (ms) | BVH bytes/triangle | depth | lanes used |\n|---|---|---|---|---|---|\n");
  for (const char* scene : scenes) {
    const std::string name = std::string("BuildBvh/") + scene;
    if (get(c, name, "triangles") <= 0) continue;
    std::printf("| %s | %.0f | %.1f | %.0f | %.0f | %.0f%% |\n", scene, get(c, name, "triangles"), get(c, name, "real_ms"),
                get(c, name, "bvh_bytes/tri"), get(c, name, "depth"), 100 * get(c, name, "lanes_used"));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Collector collector;
  benchmark::RunSpecifiedBenchmarks(&collector);
  print_summary(collector);
  benchmark::Shutdown();
  return 0;
}
