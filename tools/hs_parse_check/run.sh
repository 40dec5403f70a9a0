#!/usr/bin/env bash
# run.sh -- checks hs_parse_build (src/entropy/huffman_cuda.h) on a machine
# without a GPU: the device code runs on the CPU with every thread of a
# block a fiber (emu.h, emu.cpp; x86-64), switched only at barriers and
# warp intrinsics in a random order that lets one warp run ahead of the
# others, so that a missing barrier shows. check.cpp compares
# hs_parse_build with hs_parse + hs_build (return code, Stream, table,
# long list) on valid codebooks of many shapes (alphabets of 1 .. 65536,
# up to 65536 codebook bytes, runs of every varint size, thousands of
# long runs) and on malformed ones (bytes altered, inserted, removed,
# lengths above 16, varints continued by 0 or longer than 3 bytes, runs
# beyond K, codebooks longer than K, header fields, padding, gap 0, a
# small long list), with streams that end at a protected page.
#   tools/hs_parse_check/run.sh [REPS] [NT: 64, 96, 256; 0 = all]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
W=${TMPDIR:-/tmp}/hs_parse_check
rm -rf "$W/src"
mkdir -p "$W/src/entropy" "$W/src/cuda"
ln -s "$ROOT/src/entropy/huffman_cuda.h" "$ROOT/src/entropy/huffman.h" "$W/src/entropy/"
ln -s "$ROOT/src/internal.h" "$ROOT/src/util" "$W/src/"
cp "$HERE/stub/cuda/"*.h "$W/src/cuda/"
g++ -O1 -g -std=c++17 -I"$W/src" -I"$ROOT/include" -I"$HERE" -o "$W/check" "$HERE/check.cpp" "$HERE/emu.cpp"
"$W/check" "${1:-2}" "${2:-0}"
