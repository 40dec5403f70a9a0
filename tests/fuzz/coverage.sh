#!/bin/sh
# Source-based coverage reached by fuzz corpora (docs/FUZZING.md).
#
#   tests/fuzz/coverage.sh COVBUILD CORPUS_ROOT [TARGET...]
#
# Builds the fuzz targets with coverage instrumentation instead of the
# sanitizers (-DSCZ_FUZZ=ON -DSCZ_FUZZ_COVERAGE=ON, clang) in COVBUILD, runs
# each target once over every input of CORPUS_ROOT/TARGET (no fuzzing), and
# prints per target the line and function coverage of the library (src/)
# and the coverage of the decoder functions a campaign must reach.
# Needs llvm-profdata and llvm-cov of the clang version (LLVM_SUFFIX=-14
# picks llvm-cov-14).
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 COVBUILD CORPUS_ROOT [TARGET...]" >&2
  exit 2
fi
cov=$1
corpus=$2
shift 2
targets=${*:-fuzz_decode fuzz_chunk fuzz_codec fuzz_roundtrip}
root=$(cd "$(dirname "$0")/../.." && pwd)
sfx=${LLVM_SUFFIX:-}
CC=${CC:-clang} cmake -S "$root" -B "$cov" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCZ_FUZZ=ON -DSCZ_FUZZ_COVERAGE=ON \
  -DSCZ_CUDA=OFF -DSCZ_BUILD_TOOLS=OFF -DSCZ_BUILD_TESTS=OFF -DSCZ_BUILD_BENCH=OFF >/dev/null
cmake --build "$cov" -j "${JOBS:-2}" >/dev/null
# decoder functions (static ones as llvm-cov names them: file:function)
funcs="scz__header_read scz__table_check scz__hs_read dec_range8 dec_range16 cb_read scz__rle_decode \
lz_decompress decompress_range_f32 decompress_range_f64 ndz_decompress_chunk unpack_32 unpack_64 \
inverse_32 inverse_64 hc_decompress"
export OMP_WAIT_POLICY=passive
for t in $targets; do
  rm -rf "$cov/prof/$t"
  mkdir -p "$cov/prof/$t"
  LLVM_PROFILE_FILE="$cov/prof/$t/%p.profraw" "$cov/tests/fuzz/$t" -runs=0 -max_len=65536 \
    "$corpus/$t" >"$cov/prof/$t.log" 2>&1
  "llvm-profdata$sfx" merge -sparse "$cov/prof/$t"/*.profraw -o "$cov/prof/$t.profdata"
  echo "== $t: $(ls "$corpus/$t" | wc -l) inputs"
  "llvm-cov$sfx" report "$cov/tests/fuzz/$t" -instr-profile="$cov/prof/$t.profdata" "$root/src" |
    awk 'NR == 1 || /^TOTAL/'
  "llvm-cov$sfx" report -show-functions "$cov/tests/fuzz/$t" -instr-profile="$cov/prof/$t.profdata" \
    "$root/src" >"$cov/prof/$t.functions"
  printf '  %-24s %8s %5s %7s %8s %5s %7s %8s %5s %7s\n' function regions miss cover lines miss cover \
    branches miss cover
  for f in $funcs; do
    awk -v f="$f" '$1 == f || $1 ~ (":" f "$") {
      printf "  %-24s %8s %5s %7s %8s %5s %7s %8s %5s %7s\n", f, $2, $3, $4, $5, $6, $7, $8, $9, $10 }' \
      "$cov/prof/$t.functions"
  done
done
