#!/usr/bin/env bash
# run_gpu.sh -- everything a GPU machine should check, in one command
# (docs/GPU.md): configure and build for the device, the whole CTest suite
# (GPU tests included), compute-sanitizer memcheck / racecheck / synccheck
# over the GPU test, and the GPU benchmark on the data set and the large
# inputs. Logs go to $OUT (default /tmp/scz-gpu); a short summary is
# printed last.
#
#   bench/run_gpu.sh                      # all steps
#   STEPS="build test bench" bench/run_gpu.sh
#
# Environment: SCZ_DATA_DIR (data files; default ../shared/data),
# LARGE_SCRIPT (make-large-inputs.py; default ../shared/tools/...; its
# ../data must hold the data files), LARGE_DIR (where the large inputs go,
# default /tmp/scz-large), XXHASH_PREFIX (a libxxhash copy, if the machine has
# none), NVCOMP_ROOT (an nvCOMP copy, include/ and lib/: the benchmark then
# measures nvCOMP beside scz), BUILD (default /tmp/scz-gpu-build),
# CUDA_ARCH (default 90), SAN_TIMEOUT (seconds per sanitizer and test, default 420), BIG_GIB (host-API run of a large array, default 10;
# 0 skips it), JOBS, GPU_TESTS (the GPU test programs run alone and under
# the sanitizers; default test_cuda_ndzip test_cuda_huffman test_cuda_lossy test_cuda_lossy_dec),
# LOSSY (REL bounds of the lossy benchmark, default 1e-2,1e-3,1e-4; empty
# skips it), HUFF_MI (the
# huffman benchmark's u16 codes, in Mi; default 128, 0 skips it).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/scz-gpu}
BUILD=${BUILD:-/tmp/scz-gpu-build}
DATA=${SCZ_DATA_DIR:-$ROOT/../shared/data}
LARGE_SCRIPT=${LARGE_SCRIPT:-$ROOT/../shared/tools/make-large-inputs.py}
LARGE_DIR=${LARGE_DIR:-/tmp/scz-large}
STEPS=${STEPS:-build test memcheck racecheck synccheck bench}
CUDA_ARCH=${CUDA_ARCH:-90}
BIG_GIB=${BIG_GIB:-10}
JOBS=${JOBS:-$(nproc)}
GPU_TESTS=${GPU_TESTS:-test_cuda_ndzip test_cuda_huffman test_cuda_lossy test_cuda_lossy_dec test_cuda_gfc test_cuda_lzss test_stream_cuda}
LOSSY=${LOSSY-1e-2,1e-3,1e-4}
HUFF_MI=${HUFF_MI:-128}
mkdir -p "$OUT"
export SCZ_DATA_DIR="$DATA"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
note() { echo "$*" | tee -a "$SUMMARY"; }
has() { [[ " $STEPS " == *" $1 "* ]]; }
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

note "== $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+changes')"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /' | tee -a "$SUMMARY"

# A machine without libxxhash-dev: XXHASH_PREFIX names a copy (include/, lib/).
XXH=()
if [ -n "${XXHASH_PREFIX:-}" ]; then
  XXH=(-DXXHASH_INCLUDE_DIR="$XXHASH_PREFIX/include" -DXXHASH_LIBRARY="$XXHASH_PREFIX/lib/libxxhash.so")
  export LD_LIBRARY_PATH="$XXHASH_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

NVC=()
[ -n "${NVCOMP_ROOT:-}" ] && NVC=(-DNVCOMP_ROOT="$NVCOMP_ROOT")

if has build; then
  t0=$(date +%s)
  if cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCH" \
       -DSCZ_DATA_DIR="$DATA" "${XXH[@]}" "${NVC[@]}" >"$OUT/configure.log" 2>&1 &&
     cmake --build "$BUILD" -j "$JOBS" >"$OUT/build.log" 2>&1; then
    note "build: ok ($(( $(date +%s) - t0 )) s) $(grep -oE 'nvCOMP (found|not used)' "$OUT/configure.log" | head -1)"
  else
    note "build: FAILED"; tail -n 40 "$OUT/configure.log" "$OUT/build.log"; exit 1
  fi
fi

if has test; then
  ctest --test-dir "$BUILD" --output-on-failure -j 4 --timeout 900 >"$OUT/ctest.log" 2>&1
  note "ctest: $(grep -E 'tests passed|tests failed' "$OUT/ctest.log" | tail -1)"
  grep -E '\((Failed|Skipped|Timeout|Not Run)' "$OUT/ctest.log" | sed 's/^/  /' | tee -a "$SUMMARY"
  for t in $GPU_TESTS; do
    "$BUILD/tests/$t" >"$OUT/$t.log" 2>&1
    note "$t: rc=$? $(grep -E 'byte-identical' "$OUT/$t.log") / $(tail -1 "$OUT/$t.log")"
    grep -m8 -E 'FAIL|FATAL' "$OUT/$t.log" | cut -c1-300 | tee -a "$SUMMARY"
  done
fi

for tool in memcheck racecheck synccheck; do
  has $tool || continue
  for t in $GPU_TESTS; do
    extra=""
    [ $tool = memcheck ] && extra="--leak-check full"
    t0=$(date +%s)
    quick=2
    [ $tool = memcheck ] && quick=1
    log="$OUT/$tool-$t.log"
    SCZ_TEST_QUICK=$quick timeout "${SAN_TIMEOUT:-420}" "$SAN" --tool $tool $extra --error-exitcode 9 \
      "$BUILD/tests/$t" >"$log" 2>&1
    rc=$?
    note "compute-sanitizer $tool $t: rc=$rc ($(( $(date +%s) - t0 )) s) $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY' "$log" | sort -u | tr '\n' ' ') $(tail -1 "$log")"
    [ $rc = 0 ] || grep -m3 -A4 -E '^========= (Invalid|Race|Barrier|Error|Program hit)' "$log" | cut -c1-200 | tee -a "$SUMMARY"
  done
done

if has bench; then
  files=()
  if [ -f "$LARGE_SCRIPT" ]; then
    [ -f "$LARGE_DIR/tiled_wmag_512x512x512.f32" ] || python3 "$LARGE_SCRIPT" "$LARGE_DIR" >"$OUT/large.log" 2>&1
    for f in "$LARGE_DIR"/tiled_*; do [ -f "$f" ] && files+=(--file "$f"); done
  fi
  "$BUILD/bench/scz_bench_gpu" --data "$DATA" "${files[@]}" --reps 20 --warmup 3 --host --huffman "$HUFF_MI" \
    ${LOSSY:+--lossy "$LOSSY"} --gfc --lzss \
    --csv "$OUT/bench.csv" >"$OUT/bench.log" 2>&1
  note "bench: rc=$?"
  cat "$OUT/bench.log" >>"$SUMMARY"
  if [ "$BIG_GIB" != 0 ] && [ -f "$LARGE_DIR/tiled_wmag_512x512x512.f32" ]; then
    "$BUILD/bench/scz_bench_gpu" --file "$LARGE_DIR/tiled_wmag_512x512x512.f32" --reps 3 --warmup 1 \
      --big "$BIG_GIB" --big-lossy 1e-3 >"$OUT/bench_big.log" 2>&1
    note "bench --big $BIG_GIB: rc=$?"
    tail -4 "$OUT/bench_big.log" >>"$SUMMARY"
  fi
fi
# Few files come back from some machines: one archive of all logs.
(cd "$OUT" && tar czf /tmp/scz-logs.tgz --exclude=summary.txt --exclude=bench.csv --exclude=logs.tgz . 2>/dev/null;
  find . -maxdepth 1 -type f ! -name summary.txt ! -name bench.csv -delete; mv /tmp/scz-logs.tgz logs.tgz)
echo "================ summary ================"
cat "$SUMMARY"
