"""Answers a CWSQ file of sweeps into a CWSR file from Python: sweep_file.py SCENE QUERIES ANSWERS."""
import sys

import capsweep

scene, queries_path, answers_path = sys.argv[1:4]
world = capsweep.load(scene)
queries = capsweep.read_queries(queries_path)  # a numpy array of CWSQ records
hits = world.sweep(queries)                     # a numpy array of CWSR records, GIL released
capsweep.write_results(answers_path, hits, world)  # version 2, naming instances and tiles, for a world with either
print(f"capsweep {capsweep.__version__}: {len(hits)} queries answered, {int((hits['hit'] > 0).sum())} hits")
