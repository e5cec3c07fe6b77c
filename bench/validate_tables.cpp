// capsweep_validate_tables: issue 36's measurement as two markdown tables. For each scene and
// rate, a crowd's genuine tick stream is judged (tools/claim_streams.h): false flags per 100,000
// genuine ticks; and the cheats made of those ticks, caught and named, by class.
//
//   capsweep_validate_tables [--scenes a,b] [--rates 10,20,30,60] [--agents 300] [--seconds 60]
//                            [--seed 1] [--jump-chance 0.2] [--cheat-every 10] [--examples 3]
//
// Scenes are the files of the repository's scenes/ folder and "@arena" (tools/arena.h); one
// thread throughout.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include <capsweep/files.h>
#include "tools/arena.h"
#include "tools/claim_streams.h"

namespace {

using namespace capsweep;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

std::vector<std::string> all_scenes() {
  std::vector<std::string> names{"@arena"};
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(CAPSWEEP_SCENES_DIR)) {
    const std::string f = e.path().filename().string();
    if (f.ends_with(".obj") || f.ends_with(".obj.gz")) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  names.insert(names.end(), files.begin(), files.end());
  return names;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string with_commas(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(std::size_t(i), ",");
  return s;
}

struct Run {
  std::string scene;
  float rate;
  ClaimStreamReport report;
  std::size_t agents;
};

}  // namespace

int print_tables(int argc, char** argv) {
  std::vector<std::string> scenes = all_scenes();
  std::vector<float> rates{10, 20, 30, 60};
  ClaimStreamSettings base;
  base.agents = 300;
  base.seconds = 60;
  base.seed = 1;
  std::size_t examples = 3;
  std::string command = "capsweep_validate_tables";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--scenes") {
      scenes = split(value);
    } else if (flag == "--rates") {
      rates.clear();
      for (const std::string& r : split(value)) rates.push_back(std::stof(r));
    } else if (flag == "--agents") {
      base.agents = std::stoul(value);
    } else if (flag == "--seconds") {
      base.seconds = std::stof(value);
    } else if (flag == "--seed") {
      base.seed = std::stoull(value);
    } else if (flag == "--jump-chance") {
      base.jump_chance = std::stof(value);
    } else if (flag == "--cheat-every") {
      base.cheat_every = std::stoul(value);
    } else if (flag == "--examples") {
      examples = std::stoul(value);
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "usage: %s [--scenes a,b] [--rates 10,20,30,60] [--agents 300] [--seconds 60] [--seed 1] "
                 "[--jump-chance 0.2] [--cheat-every 10] [--examples 3]\n", argv[0]);
    return 2;
  }
  base.examples_kept = std::max<std::size_t>(examples, 1);

  std::vector<Run> runs;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& scene : scenes) {
    const World world(scene == "@arena" ? make_arena() : load_scene(std::string(CAPSWEEP_SCENES_DIR) + "/" + scene));
    for (const float rate : rates) {
      ClaimStreamSettings s = base;
      s.rate_hz = rate;
      const auto t0 = std::chrono::steady_clock::now();
      ClaimStreamReport r = run_claim_stream(world, s);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::size_t agents = std::size_t(r.genuine / std::max<std::uint64_t>(1, std::llround(double(s.seconds) * rate)));
      std::fprintf(stderr, "%s %g Hz: %llu genuine ticks, %llu flagged, %zu agents, %.1f s (validate %.2f s)\n",
                   scene.c_str(), rate, (unsigned long long)r.genuine, (unsigned long long)r.flagged, agents, secs,
                   r.validate_seconds);
      runs.push_back({scene, rate, std::move(r), agents});
    }
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("Command: `%s`  \nMachine: %s, one thread  \nDate: %s (%.0f s)  \n", command.c_str(), cpu_model().c_str(),
              date, total);
  std::printf("Crowds: up to %zu agents (capsules and ellipsoids 2:1, colliding), %g-%g m/s, jumps at %g m/s "
              "(%g per second), %g s of crowd time, seed %llu; validated with max_speed %g m/s, jump_speed %g m/s; "
              "cheats every %zu ticks.\n\n",
              base.agents, base.min_speed, base.max_speed, base.jump_speed, base.jump_chance, base.seconds,
              (unsigned long long)base.seed, 1.1 * base.max_speed, base.jump_speed, base.cheat_every);

  // Rate x scene: false flags per 100,000 genuine ticks.
  std::printf("False flags per 100,000 genuine ticks (flagged / genuine):\n\n| rate |");
  for (const std::string& scene : scenes) std::printf(" %s |", scene.c_str());
  std::printf("\n|---|");
  for (std::size_t k = 0; k < scenes.size(); ++k) std::printf("---|");
  std::printf("\n");
  for (const float rate : rates) {
    std::printf("| %g Hz |", rate);
    for (const std::string& scene : scenes) {
      for (const Run& run : runs) {
        if (run.scene != scene || run.rate != rate) continue;
        const ClaimStreamReport& r = run.report;
        std::printf(" %.2f (%s / %s) |", r.genuine ? 1e5 * double(r.flagged) / double(r.genuine) : 0.0,
                    with_commas(r.flagged).c_str(), with_commas(r.genuine).c_str());
      }
    }
    std::printf("\n");
  }

  // What the false flags were named, by scene and rate.
  std::printf("\nFalse flags by reason:\n\n| scene | rate | reasons |\n|---|---|---|\n");
  for (const Run& run : runs) {
    std::string reasons;
    for (std::size_t q = 0; q < run.report.flagged_by_reason.size(); ++q) {
      if (run.report.flagged_by_reason[q] == 0) continue;
      if (!reasons.empty()) reasons += ", ";
      reasons += std::string(name(Reason(q))) + " " + with_commas(run.report.flagged_by_reason[q]);
    }
    if (!reasons.empty()) std::printf("| %s | %g Hz | %s |\n", run.scene.c_str(), run.rate, reasons.c_str());
  }

  // Cheat class x catch rate, over every scene and rate.
  std::printf("\nCheats caught (verdict not ok) and named (the class's own reason), every scene and rate:\n\n"
              "| cheat | margin beyond the genuine claim's allowance | tried | caught | named | reasons given | missed, start in skin |\n"
              "|---|---|---|---|---|---|---|\n");
  for (std::size_t k = 0; k < kCheats; ++k) {
    CheatTally all;
    for (const Run& run : runs) {
      const CheatTally& t = run.report.cheats[k];
      all.tried += t.tried;
      all.caught += t.caught;
      all.named += t.named;
      all.missed_in_skin += t.missed_in_skin;
      for (std::size_t q = 0; q < all.by_reason.size(); ++q) all.by_reason[q] += t.by_reason[q];
    }
    std::string reasons;
    for (std::size_t q = 0; q < all.by_reason.size(); ++q) {
      if (all.by_reason[q] == 0) continue;
      if (!reasons.empty()) reasons += ", ";
      reasons += std::string(name(Reason(q))) + " " + with_commas(all.by_reason[q]);
    }
    const double tried = double(std::max<std::uint64_t>(all.tried, 1));
    std::printf("| %s | %s | %s | %.2f %% | %.2f %% | %s | %s of %s |\n", name(Cheat(k)), margin_of(Cheat(k)),
                with_commas(all.tried).c_str(), 100 * double(all.caught) / tried, 100 * double(all.named) / tried,
                reasons.c_str(), with_commas(all.missed_in_skin).c_str(), with_commas(all.tried - all.caught).c_str());
  }

  // Scene x cheat class: the catch rate where each scene stands.
  std::printf("\nCaught per scene (all rates):\n\n| cheat |");
  for (const std::string& scene : scenes) std::printf(" %s |", scene.c_str());
  std::printf("\n|---|");
  for (std::size_t k = 0; k < scenes.size(); ++k) std::printf("---|");
  std::printf("\n");
  for (std::size_t k = 0; k < kCheats; ++k) {
    std::printf("| %s |", name(Cheat(k)));
    for (const std::string& scene : scenes) {
      std::uint64_t tried = 0, caught = 0;
      for (const Run& run : runs) {
        if (run.scene != scene) continue;
        tried += run.report.cheats[k].tried;
        caught += run.report.cheats[k].caught;
      }
      if (tried == 0) {
        std::printf(" - |");
      } else {
        std::printf(" %.2f %% (%s) |", 100 * double(caught) / double(tried), with_commas(tried).c_str());
      }
    }
    std::printf("\n");
  }

  // The examples: false flags and missed cheats, the first of each run.
  bool header = false;
  for (const Run& run : runs) {
    const ClaimStreamReport& r = run.report;
    auto print_header = [&] {
      if (!header) std::printf("\nExamples (claim and verdict):\n\n");
      header = true;
    };
    for (std::size_t e = 0; e < std::min(examples, r.false_flags.size()); ++e) {
      print_header();
      std::printf("- false flag, %s %g Hz: %s\n", run.scene.c_str(), run.rate, describe(r.false_flags[e]).c_str());
    }
    for (std::size_t k = 0; k < kCheats; ++k) {
      for (std::size_t e = 0; e < std::min(examples, r.cheats[k].missed.size()); ++e) {
        print_header();
        std::printf("- missed %s, %s %g Hz: %s\n", name(Cheat(k)), run.scene.c_str(), run.rate,
                    describe(r.cheats[k].missed[e]).c_str());
      }
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  // A scene that does not load (its name, its file) or a value that is not a number: say so.
  try {
    return print_tables(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    return 1;
  }
}
