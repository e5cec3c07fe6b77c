#!/usr/bin/env bash
# The checking builds, run after the normal suite by the README's test command:
#  1. all of capsweep compiled by clang (the normal build's is g++: a second compiler's reading
#     of the code) with AddressSanitizer and UndefinedBehaviorSanitizer (any report fails) and
#     internal invariants checked (CAPSWEEP_ASSERT), and the unit tests run under them. Clang
#     builds it in about two thirds of g++'s time and its instrumented code runs the suite in
#     about half (2026-11-28, this machine: 188 s against 360 s; docs/DECISIONS.md);
#  2. the frames tests (frames published while batches run: instances posed, tiles streamed)
#     compiled by g++ with ThreadSanitizer (any report fails), alone: ASan excludes TSan;
#  3. the libFuzzer targets (clang, with the same sanitizers), each run on its seed corpus
#     (tests/fuzz/corpus/<target>/) and then a bounded number of random inputs
#     (CAPSWEEP_FUZZ_RUNS, 20,000 by default).
# Builds in build-sanitize/, build-tsan/ and build-fuzz/ beside the normal build; run from
# anywhere. Each builds only the targets it runs, with line tables for debug information (a
# report's stack still names file and line, at a fraction of full debug information's compile
# time).
#
# Left out under the sanitizers, for CI's time (all of them run in the normal build; what each
# one's code does runs here in smaller tests):
#  - the invariant marathons (every scene's, and the heightfield's with buildings: 611 s of the
#    sanitized suite's 946 s; the long runs of tests/world/long_runs_test.cpp and the two
#    100,000-tick wedge runs);
#  - the every-scene path comparisons (each is a few hundred thousand queries; the carried-ground
#    crowd's runs here on the arena and recast_dungeon only), and the command's own every-scene
#    and every-kernel runs (the kernels' variants meet lane by lane here in BlockSweep);
#  - the runs at the main job's scale, a third of the suite's time under the sanitizers
#    (2026-11-28): the demo itself, the moving arena's 700 agents over two lift cycles (the lift,
#    the door and pushes run here in MovingInstances), the validation of every segment of whole
#    crowds (single claims run here in Validate*), and the 947k-triangle terrain (generated
#    terrains run here in Terrain);
#  - the service's tests (Debian's gRPC is not instrumented; the request conversion is fuzzed
#    instead), and the viewer's browser test (chromium is not instrumented and takes ~10 s; the
#    server code it drives runs here in the viewer's HTTP tests, and its request parser is fuzzed).
# The test files that hold only these are not compiled here (tests/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${CAPSWEEP_FUZZ_RUNS:-20000}
jobs=$(nproc)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A quarter of the oracle's million random cases: the sanitizers make each one slower.
export CAPSWEEP_ORACLE_CASES=${CAPSWEEP_ORACLE_CASES:-250000}
common=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAPSWEEP_SANITIZE=ON -DCAPSWEEP_ASSERTS=ON
        -DCAPSWEEP_BUILD_BENCH=OFF -DCAPSWEEP_BUILD_PYTHON=OFF -DCAPSWEEP_INSTALL=OFF)

echo "== the unit tests under ASan and UBSan (clang)"
# A build-sanitize/ left by g++ (before 2026-11-28) is configured afresh: a cache keeps its compiler.
if grep -qs '^CMAKE_CXX_COMPILER:.*g++' build-sanitize/CMakeCache.txt; then rm -rf build-sanitize; fi
cmake -S . -B build-sanitize -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${common[@]}" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" > /dev/null
cmake --build build-sanitize -j"$jobs" --target sanitized_suite
# The service's tests are not built here (see above), so neither are their names found.
ctest --test-dir build-sanitize --output-on-failure -j"$jobs" \
      -E '^(Scenes/MoveInvariants|Scenes/LongRuns|Scenes/LongCrowds|Placements/WedgeCrevice\..*100000Ticks|TerrainMoveInvariants|EveryScene/|Scenes/CarriedGroundScenes\..*/(0ad|oa_am|recast_nav|recast_und)|Scenes/ServiceScenes|Service|Replicas|Soak|InstallAndConsume|python|service_tests_NOT_BUILT|BrowserTest|Command\.DemoRunsTheMainJob|Command\.SweepOnEverySharedObjScene|Command\.EveryKernelVariantGivesTheSameBytes|MovingArena\.ACrowdRidesTheLiftUp|ValidateGravity\.EverySegmentACrowdTravels|EllipsoidValidate\.EverySegmentAnEllipsoidCrowdTravels|Terrain\.TheZeroADTerrainAnswersLikeItsMesh)'

echo "== the frames tests under ThreadSanitizer (g++): poses and tiles published while batches run"
# The engine and those tests only (no files, command, service or Python), at -O1: built in a
# minute or two. Their threads are their own; oneTBB keeps to the thread that calls it there
# (tests/world/one_worker.cpp), since its scheduler is not instrumented.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAPSWEEP_SANITIZE_THREAD=ON -DCAPSWEEP_ASSERTS=ON \
      -DCAPSWEEP_BUILD_IO=OFF -DCAPSWEEP_BUILD_SERVICE=OFF -DCAPSWEEP_BUILD_CLI=OFF -DCAPSWEEP_BUILD_BENCH=OFF \
      -DCAPSWEEP_BUILD_PYTHON=OFF -DCAPSWEEP_INSTALL=OFF \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" > /dev/null
cmake --build build-tsan -j"$jobs" --target frames_tests
TSAN_OPTIONS=halt_on_error=1:abort_on_error=1 build-tsan/tests/frames_tests --gtest_filter='*BatchesOnFrames*'

echo "== the fuzzers (clang, libFuzzer, ASan and UBSan): the corpus, then $runs random inputs each"
# -O1, as OSS-Fuzz builds its fuzzers: the runs take seconds, the build minutes.
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${common[@]}" \
      -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
      -DCAPSWEEP_FUZZ=ON -DCAPSWEEP_FUZZ_RUNS="$runs" > /dev/null
cmake --build build-fuzz -j"$jobs" --target fuzzers
ctest --test-dir build-fuzz --output-on-failure -j"$jobs" -L fuzz
