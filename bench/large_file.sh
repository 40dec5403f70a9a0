#!/bin/sh
# large_file.sh -- a float32 field of SIZE GiB through the `scz` tool, to
# files and through pipes, with ndzip and lossy REL 1e-3: peak memory (RSS,
# /usr/bin/time -v) of every scz process, wall-clock GB/s, stream sizes, and
# every decoded array checked against the original by SHA-256 (lossless) or
# by the tool's own bound check (lossy). Not a CTest test (it is slow); it
# exits 1 if a check fails or a peak RSS exceeds RSS_LIMIT_MIB.
#
# Usage: bench/large_file.sh [SIZE_GIB]          (default 2; 26 for the big run)
# Environment:
#   SCZ=path/to/scz       the tool (default build/tools/scz)
#   DIR=dir               work directory (default ${TMPDIR:-/tmp}/scz-large); at
#                         most two arrays of SIZE GiB and one stream live there at once
#   GPU=1                 run scz with --gpu
#   CODECS="ndzip lossy"  which phases to run
#   RSS_LIMIT_MIB=N       default: 1024, or SIZE/4 if smaller
#   SCZ_ARGS="..."        extra scz options (e.g. -n 2)
# Prints one line per scz process: step, wall seconds, GB/s (1e9 raw bytes
# per second), peak RSS in MiB.
set -u
SIZE=${1:-2}
SCZ=${SCZ:-build/tools/scz}
DIR=${DIR:-${TMPDIR:-/tmp}/scz-large}
CODECS=${CODECS:-ndzip lossy}
SCZ_ARGS=${SCZ_ARGS:-}
[ "${GPU:-0}" = 1 ] && SCZ_ARGS="$SCZ_ARGS --gpu"
HERE=$(cd "$(dirname "$0")" && pwd)
NX=2048
NY=2048
NZ=$((SIZE * 64)) # 2048 x 2048 x 64 float32 = 1 GiB
RAW=$((NX * NY * NZ * 4))
LIMIT=${RSS_LIMIT_MIB:-$((SIZE * 256 < 1024 ? SIZE * 256 : 1024))}
[ -x "$SCZ" ] || { echo "large_file.sh: no scz tool at '$SCZ' (set SCZ=)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "large_file.sh: /usr/bin/time (GNU time) is needed" >&2; exit 2; }
mkdir -p "$DIR" || exit 2
GEN="$DIR/gen_field"
cc -O2 -o "$GEN" "$HERE/gen_field.c" -lm || exit 2
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

echo "large_file.sh: $SIZE GiB float32 ($NX x $NY x $NZ, fastest first), scz $SCZ $SCZ_ARGS, RSS limit $LIMIT MiB"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %9s %8s %9s\n' step "wall s" "GB/s" "RSS MiB"

# report STEP TIMEFILE: one line from a GNU time -v output; checks the RSS
report() {
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$2" |
        awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$2")
    st=$(sed -n 's/.*Exit status: //p' "$2")
    awk -v s="$1" -v w="$wall" -v r="$rss" -v b="$RAW" 'BEGIN { printf "%-44s %9.1f %8.3f %9.1f\n", s, w, (w > 0 ? b / 1e9 / w : 0), r / 1024 }'
    [ "${st:-1}" = 0 ] || fail "$1: exit status $st"
    [ $((rss / 1024)) -le "$LIMIT" ] || fail "$1: peak RSS $((rss / 1024)) MiB above $LIMIT MiB"
}
T() { /usr/bin/time -v -o "$@"; } # T TIMEFILE CMD...

generate() {
    rm -f "$DIR/in.f32"
    "$GEN" $NX $NY $NZ 1 2>"$DIR/range" | tee "$DIR/in.f32" | sha256sum | cut -d' ' -f1 >"$DIR/in.sha"
    echo "generated in.f32: $(wc -c <"$DIR/in.f32") bytes, sha256 $(cut -c1-16 "$DIR/in.sha")..., value range $(cat "$DIR/range")"
}
DIMS="-f -3 $NX $NY $NZ"

for codec in $CODECS; do
    case $codec in
    ndzip)
        generate
        # shellcheck disable=SC2086
        T "$DIR/t1" "$SCZ" -i "$DIR/in.f32" -z "$DIR/z.scz" $DIMS -c ndzip -q $SCZ_ARGS
        report "ndzip compress file -> file" "$DIR/t1"
        echo "  stream: $(wc -c <"$DIR/z.scz") bytes, ratio $(awk -v a="$RAW" -v b="$(wc -c <"$DIR/z.scz")" 'BEGIN{printf "%.4f", a/b}')"
        # shellcheck disable=SC2086
        cat "$DIR/in.f32" | T "$DIR/t2" "$SCZ" -i - -z - $DIMS -c ndzip -q $SCZ_ARGS |
            T "$DIR/t3" "$SCZ" -z - -o - -q $SCZ_ARGS | sha256sum | cut -d' ' -f1 >"$DIR/out.sha"
        report "ndzip compress pipe -> pipe" "$DIR/t2"
        report "ndzip decompress pipe -> pipe" "$DIR/t3"
        cmp -s "$DIR/in.sha" "$DIR/out.sha" || fail "ndzip through pipes: SHA-256 differs"
        rm -f "$DIR/in.f32"
        # shellcheck disable=SC2086
        T "$DIR/t4" "$SCZ" -z "$DIR/z.scz" -o "$DIR/out.f32" -q $SCZ_ARGS
        report "ndzip decompress file -> file" "$DIR/t4"
        [ "$(sha256sum <"$DIR/out.f32" | cut -d' ' -f1)" = "$(cat "$DIR/in.sha")" ] || fail "ndzip file round trip: SHA-256 differs"
        rm -f "$DIR/out.f32" "$DIR/z.scz"
        ;;
    lossy)
        generate
        # shellcheck disable=SC2086
        T "$DIR/t5" "$SCZ" -i "$DIR/in.f32" -z "$DIR/z.scz" $DIMS -M REL 1e-3 -q $SCZ_ARGS
        report "lossy REL 1e-3 compress file -> file (2 passes)" "$DIR/t5"
        echo "  stream: $(wc -c <"$DIR/z.scz") bytes, ratio $(awk -v a="$RAW" -v b="$(wc -c <"$DIR/z.scz")" 'BEGIN{printf "%.4f", a/b}')"
        # through pipes, the range given (as a pipe has no second pass), and the
        # decoded array compared with the original as it streams by
        # shellcheck disable=SC2086
        cat "$DIR/in.f32" | T "$DIR/t6" "$SCZ" -i - -z - $DIMS -M REL 1e-3 --range $(cat "$DIR/range") -q $SCZ_ARGS |
            T "$DIR/t7" "$SCZ" -z - -i "$DIR/in.f32" -o - -s -q $SCZ_ARGS 2>"$DIR/stats" |
            sha256sum | cut -d' ' -f1 >"$DIR/dec.sha"
        report "lossy compress pipe -> pipe (--range)" "$DIR/t6"
        report "lossy decompress pipe -> pipe (+compare)" "$DIR/t7"
        grep -q "bound check        ok" "$DIR/stats" || fail "lossy through pipes: bound check"
        sed -n 's/^  \(max abs error\|PSNR\|error bound\) */  \1: /p' "$DIR/stats"
        rm -f "$DIR/in.f32"
        # shellcheck disable=SC2086
        T "$DIR/t8" "$SCZ" -z "$DIR/z.scz" -o "$DIR/out.f32" -q $SCZ_ARGS
        report "lossy decompress file -> file" "$DIR/t8"
        [ "$(sha256sum <"$DIR/out.f32" | cut -d' ' -f1)" = "$(cat "$DIR/dec.sha")" ] ||
            fail "lossy: the file decodes to other bytes than the piped stream"
        rm -f "$DIR/out.f32" "$DIR/z.scz"
        ;;
    *) echo "unknown codec $codec" >&2 ;;
    esac
done
rm -f "$DIR/gen_field" "$DIR/in.f32" "$DIR/out.f32" "$DIR/z.scz"
[ "$FAILED" = 0 ] && echo "all checks passed" || echo "SOME CHECKS FAILED"
exit "$FAILED"
