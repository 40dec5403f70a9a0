#!/usr/bin/env bash
# sweep_gpu.sh -- device-to-device throughput of the large inputs over the
# checksum-overlap tuning knobs (docs/GPU.md): SCZ_CUDA_GROUPS (chunk groups
# per compressed batch) x SCZ_CUDA_HASH_CTAS (hashing blocks per SM beside a
# codec kernel, 0 = after it). Needs the build and large inputs of
# bench/run_gpu.sh (same BUILD, LARGE_DIR).
set -uo pipefail
BUILD=${BUILD:-/tmp/scz-gpu-build}
LARGE_DIR=${LARGE_DIR:-/tmp/scz-large}
[ -n "${XXHASH_PREFIX:-}" ] && export LD_LIBRARY_PATH="$XXHASH_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
files=()
for f in "$LARGE_DIR"/tiled_*; do files+=(--file "$f"); done
printf '%-6s %-5s %s\n' groups ctas "file / ratio / comp GB/s / dec GB/s"
GL=${GROUPS_LIST:-2 4 8}
for h in ${HASH_CTAS:-0 2 4 8 16}; do
  for g in $GL; do
    [ "$h" = 0 ] && [ "$g" != "${GL%% *}" ] && continue
    SCZ_CUDA_GROUPS=$g SCZ_CUDA_HASH_CTAS=$h "$BUILD/bench/scz_bench_gpu" "${files[@]}" --reps 10 --warmup 2 |
      awk -v g="$g" -v h="$h" '/^tiled/ { printf "%-6s %-5s %-30s %s %s %s\n", g, h, $1, $5, $6, $8 }'
  done
done
