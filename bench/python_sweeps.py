"""Sweeps/s through the Python package against the C++ API, the same batch in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_sweeps.py [SCENE] [COUNT]

For each workload: the best of 5 runs of World.sweep (records in, records out, GIL released)
and of the same batch through World::sweep in C++ (queries converted beforehand, untimed), on
1 thread and on every core, and their ratio.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import capsweep

root = pathlib.Path(__file__).resolve().parents[1]
scene = sys.argv[1] if len(sys.argv) > 1 else str(root.parent / "shared" / "scenes" / "recast_dungeon.obj")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
binary = os.environ.get("CAPSWEEP_BINARY", str(root / "build" / "cli" / "capsweep"))
world = capsweep.load(scene)
print(f"{pathlib.Path(scene).name}, {world.triangle_count} triangles, {count} queries per workload, "
      f"capsweep {capsweep.__version__}")
print(f"{'workload':9} {'threads':>7} {'python sweeps/s':>16} {'C++ sweeps/s':>14} {'python/C++':>10}")
with tempfile.TemporaryDirectory() as d:
    for workload in ("tick", "validate", "long"):
        path = pathlib.Path(d) / f"{workload}.cwsq"
        subprocess.run([binary, "queries", "--scene", scene, "--workload", workload, "--count", str(count),
                        "--seed", "1", "--out", str(path)], check=True, capture_output=True)
        queries = capsweep.read_queries(path)
        for threads in (1, 0):
            best = float("inf")
            for _ in range(5):
                start = time.perf_counter()
                world.sweep(queries, threads=threads)
                best = min(best, time.perf_counter() - start)
            cpp = world._sweep_seconds(queries, threads=threads, repeats=5)
            label = "1" if threads == 1 else "all"
            print(f"{workload:9} {label:>7} {count / best:16,.0f} {count / cpp:14,.0f} {cpp / best:10.1%}")
