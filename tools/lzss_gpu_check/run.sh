#!/usr/bin/env bash
# run.sh -- checks the GPU lzss encoder (src/lzss/lzss.cu) on a machine
# without a GPU: the C model of its algorithm against the reference
# encoder (model_main MODE: 1 mirror-tiled slices like the benchmark
# inputs, 2 the data files, 3 knob variants and synthetic data), then the
# kernel itself, run on the CPU with emulated warps, against the model
# (both search paths: windows of up to 256 symbols and larger ones; keys
# shorter than M; unshuffled symbols read in place).
#   tools/lzss_gpu_check/run.sh [DATA_DIR]     (default ../shared/data)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
D=${1:-$ROOT/../shared/data}
W=${TMPDIR:-/tmp}/lzss_gpu_check
mkdir -p "$W"
python3 - "$ROOT/src/lzss/lzss.cu" "$W/kernel.inc" <<'PY'
import sys
s = open(sys.argv[1]).read()
def seg(a, b):
    i = s.index(a); return s[i:s.index(b, i)]
out = seg('template <int S> struct SymT;', '/* S bytes at q (shared memory')
out += seg('struct EParams {', '/* Per chunk: the end offsets')
out = out.replace('    extern __shared__ __align__(16) uint8_t lsm[];', '    uint8_t *lsm = g_smem;')
open(sys.argv[2], 'w').write(out)
PY
gcc -O2 -I"$ROOT/tests/support" -o "$W/model_main" "$HERE/model_main.c" "$HERE/model.c" "$ROOT/tests/support/ref_lzss.c"
gcc -O2 -c -I"$ROOT/tests/support" -o "$W/model.o" "$HERE/model.c"
gcc -O2 -c -I"$ROOT/tests/support" -o "$W/ref.o" "$ROOT/tests/support/ref_lzss.c"
g++ -O1 -std=c++20 -I"$ROOT/src" -DKERNEL_INC="\"$W/kernel.inc\"" -o "$W/warp_emu" "$HERE/warp_emu.cpp" \
  "$W/model.o" "$W/ref.o" -lpthread
"$W/model_main" 0 "$D"
for a in "sperr_wmag_91x91x91.f32 4 4 256 0 2 12 1000000" "mpas_surface_pressure_163842.f64 8 4 256 0 2 12" \
         "sperr_pressure_384x384.f64 8 8 1000 1 2 14" "tos_24x170x180.f32 4 1 1 0 1 8 300000" \
         "ncep_climo_T_17x64x128.f32 4 2 65536 0 2 16" "sperr_wmag_91x91x91.f32 4 4 256 3 2 12 400000" \
         "sperr_vorticity2d_512x512.f32 4 2 256 0 1 12 300000" "cesm_trefht_b06_66_110x64x128.f32 4 1 256 6 1 12 300000" \
         "gc_msx_e_149x149.f64 8 8 256 3 1 8"; do
  set -- $a
  f=$1; shift
  echo "warp_emu $f $*: $("$W/warp_emu" "$D/$f" "$@" | tail -1)"
done
