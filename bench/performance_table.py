#!/usr/bin/env python3
"""Runs the sweep benchmarks and writes README.md's sweeps table (Performance).

  bench/performance_table.py                 runs the command shown in the README (minutes; the
                                             machine should be otherwise idle) and rewrites the
                                             block between <!-- performance-sweeps-begin --> and
                                             <!-- performance-sweeps-end -->;
  bench/performance_table.py --print ...     prints the block instead;
  --scenes arena --repetitions 1             a quick look at one scene (with --print).

The block holds the machine (CPU, cores, SIMD variant), the date, the command and the table:
sweeps/s for the tick / validate / long workloads, each the median of the repetitions.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
BEGIN = "<!-- performance-sweeps-begin -->\n"
END = "<!-- performance-sweeps-end -->"
SCENES = [("arena", "arena"), ("recast_dungeon.obj", "recast_dungeon"), ("recast_nav_test.obj", "recast_nav_test"),
          ("oa_am_thornish.obj", "oa_am_thornish"), ("0ad_corinthian_isthmus_4p.obj.gz", "0ad terrain")]
WORKLOADS = ["tick", "validate", "long"]


def bench_filter(scenes):
    every = set(scenes) == {scene for scene, _ in SCENES}
    s = ".*" if every else "(" + "|".join(re.escape(scene) for scene in scenes) + ")"
    w = "(tick|validate|long)"
    return f"^(Sweep/{s}/{w}/simd/|EmbreeRay/{s}/{w}/|BulletSweep/{s}/{w}/|BuildBvh/{s})"


def run_bench(bench, scenes, repetitions):
    args = [bench, f"--benchmark_repetitions={repetitions}", "--benchmark_enable_random_interleaving=true",
            f"--benchmark_filter={bench_filter(scenes)}"]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        done = subprocess.run(args + ["--benchmark_format=console", "--benchmark_color=false", f"--benchmark_out={out.name}",
                                      "--benchmark_out_format=json"], stdout=subprocess.PIPE, text=True)
        sys.stderr.write(done.stdout)
        if done.returncode != 0:
            sys.exit(f"{bench} exited {done.returncode}")
        report = json.load(open(out.name))
    # With one repetition there are no aggregates: the single run is the median.
    medians = {}
    for b in report["benchmarks"]:
        median = b.get("aggregate_name") == "median" or (repetitions == 1 and b.get("run_type") == "iteration")
        if median:
            # "Sweep/arena/tick/simd/1thread/min_time:0.300/real_time" -> "Sweep/arena/tick/simd/1thread"
            name = "/".join(part for part in b["run_name"].split("/") if ":" not in part and part != "real_time")
            medians[name] = b
    shown = [os.path.relpath(bench, ROOT)] + args[1:3] + [f"--benchmark_filter='{bench_filter(scenes)}'"]
    return medians, " ".join(shown)


def rate(b):
    v = b.get("items_per_second", 0) if b else 0
    if v <= 0:
        return "-"
    return f"{v / 1e6:.2f}M" if v >= 1e6 else f"{v / 1e3:.0f}k"


def kernel(capsweep):
    """The SIMD variant the library picks on this machine (the crowd command names it)."""
    out = subprocess.run([capsweep, "crowd", "--scene", "@arena", "--agents", "1", "--ticks", "1"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"(\w+) kernel", out)
    return m.group(1) if m else "unknown"


def cpu():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def block(medians, command, scenes, capsweep):
    lines = [f"{datetime.date.today().isoformat()}: {cpu()}, {os.cpu_count()} cores, the {kernel(capsweep)} kernel; "
             "written by `bench/performance_table.py`:", "", "```sh", command, "```", "",
             "| scene (triangles) | capsweep, 1 core | capsweep, all cores | Embree ray, 1 core | Bullet, 1 core |",
             "| --- | --- | --- | --- | --- |"]
    for scene, label in SCENES:
        if scene not in scenes:
            continue
        triangles = medians.get(f"BuildBvh/{scene}", {}).get("triangles", 0)
        cells = []
        for kind in ("Sweep/{}/{}/simd/1thread", "Sweep/{}/{}/simd/allthreads", "EmbreeRay/{}/{}/1thread",
                     "BulletSweep/{}/{}/1thread"):
            cells.append(" / ".join(rate(medians.get(kind.format(scene, w))) for w in WORKLOADS))
        lines.append(f"| {label} ({int(triangles):,}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", default=os.path.join(ROOT, "build", "bench", "capsweep_bench"))
    parser.add_argument("--capsweep", default=os.path.join(ROOT, "build", "cli", "capsweep"))
    parser.add_argument("--scenes", nargs="+", default=[s for s, _ in SCENES], choices=[s for s, _ in SCENES])
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--print", action="store_true", help="print the block instead of writing README.md")
    args = parser.parse_args()
    medians, command = run_bench(args.bench, args.scenes, args.repetitions)
    text = block(medians, command, args.scenes, args.capsweep)
    if args.print:
        sys.stdout.write(text)
        return
    readme = open(README, encoding="utf-8").read()
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        sys.exit(f"{README}: no {BEGIN.strip()} ... {END} block")
    with open(README, "w", encoding="utf-8") as f:
        f.write(readme[:start + len(BEGIN)] + text + readme[end:])
    print(f"{README}: the sweeps table rewritten")


if __name__ == "__main__":
    main()
