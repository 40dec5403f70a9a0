#!/bin/sh
# install_test.sh BUILD_DIR: installs the build into a temporary prefix and
# builds two consumer programs against it, one through pkg-config (shared
# library) and one through the CMake package (find_package(scz), static
# library), then runs both: the install is usable as documented in README.
set -u
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

if cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then ok; else bad "cmake --install"; cat "$tmp/install.log"; fi
for f in include/scz.h lib/pkgconfig/scz.pc lib/cmake/scz/sczConfig.cmake; do
  if [ -f "$tmp/prefix/$f" ] || [ -f "$tmp/prefix/lib64/${f#lib/}" ]; then ok; else bad "missing $f"; fi
done
libdir=$(dirname "$(find "$tmp/prefix" -name scz.pc | head -n 1)")/..
# consumers are built with the compiler that built the library (its OpenMP runtime)
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -n "$cc" ] || cc=cc

cat >"$tmp/consumer.c" <<'C'
#include <scz.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
    float a[5000], b[5000];
    for (int i = 0; i < 5000; i++) a[i] = (float)i * 0.25f;
    scz_ctx *c;
    if (scz_ctx_create(&c, SCZ_BACKEND_CPU)) return 1;
    scz_shape s = {SCZ_DTYPE_F32, 1, {5000, 1, 1, 1}};
    scz_params p;
    scz_params_init(&p, SCZ_CODEC_NDZIP);
    size_t cap = scz_compress_bound(&s, &p), n;
    void *z = malloc(cap);
    if (scz_compress(c, &p, &s, a, z, cap, &n) || scz_decompress(c, z, n, b, sizeof b, NULL)) return 2;
    printf("round trip %s, %zu bytes\n", memcmp(a, b, sizeof a) ? "differs" : "exact", n);
    scz_ctx_destroy(c);
    free(z);
    return memcmp(a, b, sizeof a) != 0;
}
C

if command -v pkg-config >/dev/null 2>&1; then
  PKG_CONFIG_PATH="$libdir/pkgconfig" && export PKG_CONFIG_PATH
  if "$cc" "$tmp/consumer.c" -o "$tmp/c_pc" $(pkg-config --cflags --libs scz) &&
     LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/c_pc"; then ok; else bad "pkg-config consumer"; fi
else
  echo "pkg-config not found: that consumer is not checked"
fi

mkdir -p "$tmp/proj"
cat >"$tmp/proj/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(scz REQUIRED)
add_executable(consumer $tmp/consumer.c)
target_link_libraries(consumer scz::scz)
CM
if cmake -S "$tmp/proj" -B "$tmp/proj/b" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" >"$tmp/cm.log" 2>&1 &&
   cmake --build "$tmp/proj/b" >>"$tmp/cm.log" 2>&1 && "$tmp/proj/b/consumer"; then ok; else bad "CMake package consumer"; tail -n 20 "$tmp/cm.log"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
