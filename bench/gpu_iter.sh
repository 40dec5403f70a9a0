#!/usr/bin/env bash
# gpu_iter.sh -- one short development round on a GPU machine, for a small
# device-time budget (bench/run_gpu.sh is the full check): build only the
# GPU targets named, run those tests, the lossy benchmark on the large
# inputs, and optionally the phase profile or per-kernel times. Prints a
# short table last; logs in $OUT.
#
#   bench/gpu_iter.sh                                  # lossy + huffman tests, wmag REL 1e-3
#   TESTS="" PROF=1 bench/gpu_iter.sh                  # no tests, SCZ_GPU_PROFILE phases
#   TESTS=test_cuda_lossy BOUNDS=1e-3,1e-4 FILES="tiled_wmag_512x512x512.f32 tiled_mpas_67108864.f64" bench/gpu_iter.sh
#   TESTS="" NCU=1 bench/gpu_iter.sh                   # per-kernel durations (ncu)
#   TESTS="" KERNS="k_qfast|k_huff" bench/gpu_iter.sh  # ncu sections of those kernels
#
# Environment: SCZ_DATA_DIR (default ../shared/data), LARGE_SCRIPT (default
# ../shared/tools/make-large-inputs.py), LARGE_DIR (/tmp/scz-large), BUILD
# (/tmp/scz-iter-build), OUT (/tmp/scz-iter), TESTS, QUICK (SCZ_TEST_QUICK
# of the tests), BOUNDS (1e-3), FILES (tiled_wmag_512x512x512.f32), HUF
# (huffman benchmark, Mi u16 codes; 0; BOUNDS=none: no lossy rows), GFC (1: the gfc table too), PROF, NCU,
# KERNS, KCOUNT (6), EXTRA (more scz_bench_gpu options, e.g. "--lzss --no-nvcomp").
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/scz-iter}
B=${BUILD:-/tmp/scz-iter-build}
L=${LARGE_DIR:-/tmp/scz-large}
export SCZ_DATA_DIR=${SCZ_DATA_DIR:-$ROOT/../shared/data}
LARGE_SCRIPT=${LARGE_SCRIPT:-$ROOT/../shared/tools/make-large-inputs.py}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
t0=$(date +%s)
LP=
if [ ! -f "$L/tiled_wmag_512x512x512.f32" ]; then
  (python3 "$LARGE_SCRIPT" "$L" >"$OUT/large.log" 2>&1) &
  LP=$!
fi
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90} -DSCZ_PYTHON=OFF \
  -DSCZ_DATA_DIR="$SCZ_DATA_DIR" >"$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
TESTS=${TESTS-test_cuda_huffman test_cuda_lossy_dec test_cuda_lossy}
cmake --build "$B" -j "$(nproc)" --target scz_bench_gpu $TESTS >"$OUT/build.log" 2>&1 ||
  { grep -m20 -B2 -A5 error "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for t in $TESTS; do
  t1=$(date +%s)
  SCZ_TEST_QUICK=${QUICK:-} timeout 300 "$B/tests/$t" >"$OUT/$t.log" 2>&1
  echo "$t rc=$? $(( $(date +%s) - t1 )) s: $(grep -m3 -E 'FAIL|FATAL' "$OUT/$t.log" | cut -c1-200) $(tail -1 "$OUT/$t.log")"
done
[ -n "$LP" ] && wait "$LP"
FL=()
for f in ${FILES:-tiled_wmag_512x512x512.f32}; do FL+=(--file "$L/$f"); done
LO=(--lossy "${BOUNDS:-1e-3}")
[ "${BOUNDS:-}" = none ] && LO=()
BENCH=("$B/bench/scz_bench_gpu" "${FL[@]}" "${LO[@]}" --huffman "${HUF:-0}" ${GFC:+--gfc} ${EXTRA:-})
"${BENCH[@]}" --reps 10 --warmup 2 >"$OUT/bench.log" 2>&1
echo "bench rc=$?"
if [ -n "${PROF:-}" ]; then
  SCZ_GPU_PROFILE=1 "${BENCH[@]}" --reps 3 --warmup 1 >"$OUT/prof.log" 2>&1
  grep -E '^\[profile' "$OUT/prof.log" | tail -8
fi
NC=$(command -v ncu || ls -d /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [ -n "${NCU:-}" ] && [ -n "$NC" ]; then
  # ncu's per-kernel summary gives the average of each kernel: times its invocations
  timeout 240 "$NC" --metrics gpu__time_duration.sum --print-summary per-kernel "${BENCH[@]}" --reps 1 --warmup 0 \
    >"$OUT/ncu.txt" 2>&1
  python3 - "$OUT/ncu.txt" <<'PY'
import re, sys
cur, rows = None, []
for l in open(sys.argv[1]):
    m = re.match(r'  (\S.*?) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\), .*Invocations (\d+)', l)
    if m:
        name = re.sub(r'<unnamed>::', '', re.sub(r'\(.*', '', m.group(1)))
        cur, inv = f"{name[:50]} grid ({m.group(2)},{m.group(3)})", int(m.group(8))
    t = re.search(r'gpu__time_duration.sum\s+(\S+)\s+[\d.,]+\s+[\d.,]+\s+([\d.,]+)', l)
    if t and cur:
        a = float(t.group(2).replace(',', '')) * {'ms': 1000, 'us': 1, 'ns': 1e-3}.get(t.group(1), 1)
        rows.append((a * inv, cur, inv, a))
        cur = None
for tot, name, inv, a in sorted(rows, reverse=True)[:30]:
    print(f"{tot:9.1f} us  {inv:3d} x {a:8.1f}  {name}")
PY
fi
if [ -n "${KERNS:-}" ] && [ -n "$NC" ]; then
  timeout 300 "$NC" --kernel-name regex:"$KERNS" --launch-count "${KCOUNT:-6}" --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis \
    "${BENCH[@]}" --reps 1 --warmup 0 >"$OUT/ncu_sections.txt" 2>&1
  grep -E '^  [a-zA-Z_<].*\(|Duration|DRAM Throughput|Compute \(SM\) Thr|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Block Limit (Reg|Shared)' \
    "$OUT/ncu_sections.txt" | cut -c1-120
fi
grep -vE '^$' "$OUT/bench.log" | tail -20
