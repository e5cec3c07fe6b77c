#!/usr/bin/env bash
# Installs this build into a temporary prefix and uses it as a stranger would: the C++, C and
# gRPC-client examples are configured with find_package(capsweep) against that prefix only,
# built and run, and the Python example imports the installed module. Each answers the same
# CWSQ file; every answer file must equal `capsweep sweep`'s byte for byte.
# usage: consume_installed.sh BUILD_DIR SOURCE_DIR SCENE PYTHON
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) scene=$3 python=$4
work=$(mktemp -d)
server=
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
prefix=$work/prefix

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for f in include/capsweep/capsweep.h include/capsweep/capsweep_c.h include/capsweep/version.h \
         lib/libcapsweep_world.a lib/libcapsweep_io.a lib/libcapsweep_c.so lib/libcapsweep_c_io.so \
         lib/cmake/capsweep/capsweep-config.cmake lib/cmake/capsweep/capsweep-config-version.cmake bin/capsweep \
         share/capsweep/capsweep.proto; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
# The protocol is the one the service was built from, for other languages' stubs.
cmp "$source/service/capsweep.proto" "$prefix/share/capsweep/capsweep.proto"
# Nothing internal is installed: only the public tree.
if find "$prefix/include" -path '*/core/*' -o -path '*/simd/*' -o -path '*/broadphase/*' | grep -q .; then
  echo "internal headers were installed"; exit 1
fi
[ "$("$prefix/bin/capsweep" --version)" = "capsweep $(sed -n 's/^#define CAPSWEEP_VERSION_STRING "\(.*\)"/\1/p' "$prefix/include/capsweep/version.h")" ]

echo "== the reference answers"
"$prefix/bin/capsweep" queries --scene "$scene" --workload validate --count 3000 --seed 11 --out "$work/q.cwsq"
"$prefix/bin/capsweep" sweep --scene "$scene" --queries "$work/q.cwsq" --out "$work/reference.cwsr" > /dev/null

consume() {  # consume NAME: configure and build examples/NAME against the prefix only
  cmake -S "$source/examples/$1" -B "$work/$1" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
        > "$work/$1.configure.log" || { cat "$work/$1.configure.log"; exit 1; }
  cmake --build "$work/$1" -j2 > "$work/$1.build.log" || { cat "$work/$1.build.log"; exit 1; }
}

echo "== C++ (capsweep::io)"
consume cpp
"$work/cpp/sweep_file" "$scene" "$work/q.cwsq" "$work/cpp.cwsr"
cmp "$work/reference.cwsr" "$work/cpp.cwsr"

echo "== C (capsweep::c from a snapshot, capsweep::c_io from the scene)"
# The installed engine library needs oneTBB and the C / C++ run-time libraries only.
cmake -DLIBRARY="$prefix/lib/libcapsweep_c.so" -P "$source/tests/capi/needed_libraries.cmake"
"$prefix/bin/capsweep" build --scene "$scene" --out "$work/level.cwsw" > /dev/null
consume c
"$work/c/sweep_file_c" "$work/level.cwsw" "$work/q.cwsq" "$work/c.cwsr"
cmp "$work/reference.cwsr" "$work/c.cwsr"
"$work/c/import_scene_c" "$scene" "$work/level.cwsw"

echo "== Python (the installed module)"
site=$(find "$prefix/lib" -name _capsweep*.so -printf '%h\n' | head -1)
[ -n "$site" ] || { echo "the Python module was not installed"; exit 1; }
(cd "$work" && PYTHONPATH="$(dirname "$site")" "$python" "$source/examples/python/sweep_file.py" "$scene" q.cwsq py.cwsr)
cmp "$work/reference.cwsr" "$work/py.cwsr"

echo "== gRPC client (capsweep::client) against capsweep serve"
consume client
"$prefix/bin/capsweep" serve --listen 127.0.0.1:0 --world "level=$scene" > "$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 600); do grep -q 'listening on' "$work/serve.log" && break; sleep 0.1; done
address=$(sed -n 's/.*listening on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/serve.log" | head -1)
[ -n "$address" ] || { cat "$work/serve.log"; exit 1; }
"$work/client/sweep_client" "$address" level "$work/q.cwsq" "$work/client.cwsr"
cmp "$work/reference.cwsr" "$work/client.cwsr"

echo "all four consumers answered with capsweep sweep's bytes"
