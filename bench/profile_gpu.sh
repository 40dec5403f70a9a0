#!/usr/bin/env bash
# profile_gpu.sh -- per-kernel times (nsys) and hardware counters (ncu) of
# the GPU benchmark on one large input, after bench/run_gpu.sh built it
# (same BUILD, LARGE_DIR, OUT, XXHASH_PREFIX). Output under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/scz-gpu}
BUILD=${BUILD:-/tmp/scz-gpu-build}
LARGE_DIR=${LARGE_DIR:-/tmp/scz-large}
FILE=${FILE:-$LARGE_DIR/tiled_wmag_512x512x512.f32}
[ -n "${XXHASH_PREFIX:-}" ] && export LD_LIBRARY_PATH="$XXHASH_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$OUT"
B="$BUILD/bench/scz_bench_gpu --file $FILE --reps 5 --warmup 1"
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NSYS" ]; then
  "$NSYS" profile -o /tmp/scz-prof --force-overwrite true $B >/dev/null 2>&1
  "$NSYS" stats --report cuda_gpu_kern_sum,cuda_gpu_mem_time_sum --format table /tmp/scz-prof.nsys-rep \
    >"$OUT/nsys.txt" 2>&1
  cut -c1-220 "$OUT/nsys.txt" | head -40
else
  echo "nsys: not found"
fi
if [ -n "$NCU" ]; then
  : >"$OUT/ncu.txt"
  for k in k_encode k_decode k_block_hash k_final_hash; do
    timeout 120 "$NCU" --kernel-name regex:"$k" --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis $B >>"$OUT/ncu.txt" 2>&1
  done
  grep -E '^  [a-z_].*\(|Duration|DRAM Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Warp Cycles Per Issued' \
    "$OUT/ncu.txt" | cut -c1-110
else
  echo "ncu: not found"
fi
