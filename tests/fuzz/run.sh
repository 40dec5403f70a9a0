#!/bin/sh
# Runs the libFuzzer targets of a fuzz build (`make fuzz`) one after the
# other, each for SECONDS, under AddressSanitizer + UndefinedBehaviorSanitizer
# (leak detection on). Fails on the first crash, leak, timeout, out-of-memory
# or sanitizer report; the input that caused it is left in
# BUILD/fuzz-artifacts/TARGET/. docs/FUZZING.md.
#
#   tests/fuzz/run.sh BUILD SECONDS [TARGET...]
#
# Corpora: BUILD/fuzz-corpus/TARGET (grows across runs), read together
# with the generated seeds BUILD/fuzz-seeds/TARGET (made here by fuzz_seeds
# if absent), the committed seeds tests/fuzz/seeds/TARGET and the
# regression inputs tests/fuzz/regress/TARGET. Extra libFuzzer options can
# be passed in FUZZ_ARGS (e.g. FUZZ_ARGS=-runs=1000000).
set -eu
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD SECONDS [TARGET...]" >&2
  exit 2
fi
build=$1
secs=$2
shift 2
targets=${*:-fuzz_decode fuzz_chunk fuzz_codec fuzz_roundtrip fuzz_dstream}
src=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz

if [ ! -d "$build/fuzz-seeds" ]; then
  "$bin/fuzz_seeds" "$build/fuzz-seeds.tmp" >/dev/null
  mv "$build/fuzz-seeds.tmp" "$build/fuzz-seeds"
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export OMP_WAIT_POLICY=passive
for t in $targets; do
  inputs=$t
  [ "$t" = fuzz_dstream ] && inputs=fuzz_decode # fuzz_decode's input layout
  corpus=$build/fuzz-corpus/$t
  art=$build/fuzz-artifacts/$t
  mkdir -p "$corpus" "$art"
  echo "== $t: $secs s"
  # shellcheck disable=SC2086
  "$bin/$t" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
    -error_exitcode=1 -timeout_exitcode=1 -print_final_stats=1 -artifact_prefix="$art/" \
    ${FUZZ_ARGS:-} "$corpus" "$build/fuzz-seeds/$inputs" "$src/seeds/$inputs" "$src/regress/$inputs"
done
