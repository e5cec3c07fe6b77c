#!/usr/bin/env bash
# The checking build: all of capsweep compiled by clang with AddressSanitizer and
# UndefinedBehaviorSanitizer (any report fails) and internal invariants checked (CAPSWEEP_ASSERT), the unit tests run under them, then each
# libFuzzer target for a bounded number of inputs (CAPSWEEP_FUZZ_RUNS, 20,000 by default).
# Run from anywhere; builds in build-sanitize/ beside the normal build. The README's test
# command runs it after the normal suite.
#
# Left out under the sanitizers, for CI's time: the per-scene invariant marathons and the
# every-scene path comparisons (each is a few hundred thousand queries, already run in the
# normal build), and the service's tests (Debian's gRPC is not instrumented; the request
# conversion is fuzzed instead).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${CAPSWEEP_FUZZ_RUNS:-20000}
cmake -S . -B build-sanitize -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCAPSWEEP_SANITIZE=ON -DCAPSWEEP_ASSERTS=ON -DCAPSWEEP_FUZZ=ON -DCAPSWEEP_FUZZ_RUNS="$runs" -DCAPSWEEP_BUILD_BENCH=OFF \
      -DCAPSWEEP_BUILD_PYTHON=OFF -DCAPSWEEP_INSTALL=OFF
cmake --build build-sanitize -j"$(nproc)"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# A quarter of the oracle's million random cases: the sanitizers make each one slower.
export CAPSWEEP_ORACLE_CASES=${CAPSWEEP_ORACLE_CASES:-250000}
ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" \
      -E '^(Scenes/MoveInvariants|EveryScene/|Service|Replicas|Soak|InstallAndConsume|python)'
