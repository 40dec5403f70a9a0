#!/usr/bin/env bash
# gpu_pack.sh -- build GPU test and benchmark binaries on this machine (no
# GPU needed, only nvcc) and pack them, with the CUDA runtime they link, into
# one folder that can be copied to a GPU machine and run there without a
# build. Saves the build (~30 s a call) on a machine whose time is scarce.
#
#   bench/gpu_pack.sh PACK_DIR [TARGET ...]     (default targets: the CUDA
#                                               tests and scz_bench_gpu)
#   PACK_DIR/run.sh PROGRAM [ARGS ...]          (on the GPU machine: sets
#                                               LD_LIBRARY_PATH, runs it)
#
# Environment: BUILD (/tmp/scz-pack-build), CUDA_ARCH (90), JOBS (nproc).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,13p' "$0"; exit 2; }
PACK=$1
shift
B=${BUILD:-/tmp/scz-pack-build}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(test_cuda_huffman test_cuda_lossy test_cuda_lossy_dec test_cuda_lossy_enc1
  test_cuda_ndzip test_cuda_gfc test_cuda_lzss test_stream_cuda scz_bench_gpu)
cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" \
  -DSCZ_PYTHON=OFF >"$B.configure.log" 2>&1 || { tail -20 "$B.configure.log"; exit 1; }
cmake --build "$B" -j "${JOBS:-$(nproc)}" --target "${TARGETS[@]}" >"$B.build.log" 2>&1 ||
  { grep -m20 -B2 -A5 error "$B.build.log"; exit 1; }
mkdir -p "$PACK"
for t in "${TARGETS[@]}"; do
  f=$(find "$B" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$f" ] || { echo "gpu_pack: no binary for $t" >&2; exit 1; }
  cp "$f" "$PACK/"
  # the shared CUDA runtime (and nothing from the system's own libraries)
  ldd "$f" | awk '/libcudart/ {print $3}' | while read -r lib; do cp -L "$lib" "$PACK/"; done
done
cat >"$PACK/run.sh" <<'RUN'
#!/usr/bin/env bash
# Runs a packed program with the packed CUDA runtime (see bench/gpu_pack.sh).
HERE=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$HERE${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
p=$1
shift
exec "$HERE/$p" "$@"
RUN
chmod +x "$PACK/run.sh"
echo "packed ${TARGETS[*]} into $PACK ($(du -sh "$PACK" | cut -f1))"
