#!/bin/sh
# cli_test.sh -- tests of the `scz` command-line tool.
# Usage: sh tests/cli_test.sh PATH/TO/scz
# Round trips (files, one call, stdin/stdout, empty arrays), the large-file
# paths (pipes both ways, both stream layouts, temporary outputs renamed into
# place, REL/PSNR from pipes, the GPU option), `info`, `demo`,
# statistics, and for each kind of bad argument or bad stream the documented
# exit code (1 usage, 2 I/O, 3 library/codec, 4 verification) and a message
# on stderr. Prints "N passed, N failed"; exit 0 only if nothing failed.

SCZ=${1:-${SCZ_TOOL:-}}
if [ -z "$SCZ" ] || [ ! -x "$SCZ" ]; then
    echo "usage: $0 PATH/TO/scz (tool not found: '$SCZ')" >&2
    exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/scz_cli.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); }
bad() {
    FAIL=$((FAIL + 1))
    echo "FAIL: $*" >&2
    if [ -s "$T/err" ]; then sed 's/^/    stderr: /' "$T/err" | head -n 5 >&2; fi
}

# run CMD...: runs a command, stdout to $T/out, stderr to $T/err, status in RC.
run() {
    "$@" >"$T/out" 2>"$T/err"
    RC=$?
}

# expect NAME WANT CMD...: the command's exit code is WANT; a nonzero WANT also
# needs a message on stderr.
expect() {
    name=$1
    want=$2
    shift 2
    run "$@"
    if [ "$RC" -ne "$want" ]; then
        bad "$name: exit code $RC, expected $want"
    elif [ "$want" -ne 0 ] && [ ! -s "$T/err" ]; then
        bad "$name: exit code $RC but no message on stderr"
    else
        ok
    fi
}

# grep_out NAME FILE PATTERN: FILE contains PATTERN (fixed string).
grep_in() {
    if grep -F -q -- "$3" "$2"; then ok; else bad "$1: '$3' not found in output"; fi
}

same() { # same NAME A B: files are identical
    if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi
}

absent() { # absent NAME FILE: no such file
    if [ -e "$2" ]; then bad "$1: $2 exists but should not"; else ok; fi
}

# ---------------------------------------------------------------- inputs
# Random bytes as floats: every bit pattern, NaN payloads and -0.0 included.
head -c 24576 /dev/urandom >"$T/rand.f32"   # 16 x 12 x 32 float32
head -c 40000 /dev/urandom >"$T/rand.f64"   # 50 x 100 float64
: >"$T/empty"
HAVE_PY=0
if command -v python3 >/dev/null 2>&1; then
    HAVE_PY=1
    # A smooth float32 field, 40 x 30 x 20 (fastest first).
    python3 - "$T/smooth.f32" <<'EOF'
import math, struct, sys
nx, ny, nz = 40, 30, 20
vals = [math.sin(0.1 * x) * math.cos(0.07 * y) + 0.01 * z
        for z in range(nz) for y in range(ny) for x in range(nx)]
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<%df" % len(vals), *vals))
EOF
fi

# ---------------------------------------------------------------- help, version
expect "help" 0 "$SCZ" --help
grep_in "help mentions exit codes" "$T/out" "Exit codes"
grep_in "help states the dims order" "$T/out" "FASTEST-VARYING FIRST"
expect "-h" 0 "$SCZ" -h
expect "version" 0 "$SCZ" --version
grep_in "version names ndzip" "$T/out" "ndzip"
expect "no arguments" 1 "$SCZ"

# ---------------------------------------------------------------- round trips
expect "compress f32" 0 "$SCZ" -i "$T/rand.f32" -z "$T/rand.scz" -f -3 16 12 32
if [ -s "$T/err" ]; then bad "compress wrote to stderr (progress must not show when stderr is not a tty)"; else ok; fi
expect "decompress f32" 0 "$SCZ" -z "$T/rand.scz" -o "$T/rand.out"
same "f32 round trip" "$T/rand.f32" "$T/rand.out"

expect "round trip in one call, f64, -s" 0 "$SCZ" -i "$T/rand.f64" -z "$T/rand64.scz" -o "$T/rand64.out" -d -2 50 100 -s
same "f64 one-call round trip" "$T/rand.f64" "$T/rand64.out"
grep_in "stats: bit-exact" "$T/out" "bit-exact          yes"
grep_in "stats: ratio labelled" "$T/out" "(original/compressed)"
grep_in "stats: inverse ratio labelled" "$T/out" "(compressed/original)"
grep_in "stats: bit rate" "$T/out" "bits/value"
grep_in "stats: PSNR formula" "$T/out" "20 log10(range) - 10 log10(MSE)"
grep_in "stats: throughput" "$T/out" "MB/s"

expect "-t f64 with -c ndzip and small chunks" 0 "$SCZ" -i "$T/rand.f64" -o "$T/rand64b.out" -t f64 -2 50 100 -c ndzip -C 4K -n 2 -q
same "-t f64 round trip" "$T/rand.f64" "$T/rand64b.out"

expect "1D and 4D shapes" 0 "$SCZ" -i "$T/rand.f32" -o "$T/r1.out" -f -1 6144
same "1D round trip" "$T/rand.f32" "$T/r1.out"
expect "4D shape" 0 "$SCZ" -i "$T/rand.f32" -o "$T/r4.out" -f -4 8 6 16 8 -C 4K
same "4D round trip" "$T/rand.f32" "$T/r4.out"

if [ "$HAVE_PY" = 1 ]; then
    expect "smooth field compresses" 0 "$SCZ" -i "$T/smooth.f32" -z "$T/smooth.scz" -f -3 40 30 20
    s_raw=$(wc -c <"$T/smooth.f32")
    s_z=$(wc -c <"$T/smooth.scz")
    if [ "$s_z" -lt "$s_raw" ]; then ok; else bad "smooth field did not shrink ($s_z >= $s_raw bytes)"; fi
fi

# stdin / stdout
run sh -c "cat '$T/rand.f32' | '$SCZ' -i - -z - -f -3 16 12 32 > '$T/pipe.scz'"
if [ "$RC" -eq 0 ]; then ok; else bad "compress stdin to stdout: exit $RC"; fi
same "stdout stream equals file stream" "$T/rand.scz" "$T/pipe.scz"
run sh -c "cat '$T/pipe.scz' | '$SCZ' -z - -o - > '$T/pipe.out'"
if [ "$RC" -eq 0 ]; then ok; else bad "decompress stdin to stdout: exit $RC"; fi
same "stdin/stdout round trip" "$T/rand.f32" "$T/pipe.out"
run sh -c "'$SCZ' -i '$T/rand.f32' -z - -o '$T/pipe2.out' -f -3 16 12 32 -s > '$T/pipe2.scz'"
if [ "$RC" -eq 0 ]; then ok; else bad "-s with stream on stdout: exit $RC"; fi
same "stats do not mix into stdout data" "$T/rand.scz" "$T/pipe2.scz"
grep_in "stats go to stderr when stdout carries data" "$T/err" "ratio"

# empty arrays: a 0 dim with an empty file
expect "empty array compress" 0 "$SCZ" -i "$T/empty" -z "$T/empty.scz" -f -2 0 7
expect "empty array decompress" 0 "$SCZ" -z "$T/empty.scz" -o "$T/empty.out"
same "empty round trip" "$T/empty" "$T/empty.out"

# compare mode: a stream against an original
expect "compare with the original" 0 "$SCZ" -z "$T/rand.scz" -i "$T/rand.f32" -s
grep_in "compare: bit-exact" "$T/out" "bit-exact          yes"
head -c 24576 /dev/urandom >"$T/other.f32"
expect "compare with a different original: verification failed" 4 "$SCZ" -z "$T/rand.scz" -i "$T/other.f32"
expect "pure decompress, matching type and dims" 0 "$SCZ" -z "$T/rand.scz" -o "$T/rand2.out" -f -3 16 12 32
expect "pure decompress, wrong type" 1 "$SCZ" -z "$T/rand.scz" -o "$T/rand3.out" -d

# ---------------------------------------------------------------- other codecs
# Each codec this build has (scz --version lists them) gets a round trip.
CODECS=$("$SCZ" --version | sed -n 's/^codecs in this build://p')
has_codec() { case " $CODECS " in *" $1 "*) return 0 ;; esac; return 1; }
if has_codec gfc; then
    expect "gfc round trip f64" 0 "$SCZ" -i "$T/rand.f64" -z "$T/gfc.scz" -o "$T/gfc.out" -d -2 50 100 -c gfc
    same "gfc bit-exact" "$T/rand.f64" "$T/gfc.out"
    expect "gfc --gfc-dim 5 f32" 0 "$SCZ" -i "$T/rand.f32" -z "$T/gfc5.scz" -o "$T/gfc5.out" -f -3 16 12 32 -c gfc --gfc-dim 5
    same "gfc dim 5 bit-exact" "$T/rand.f32" "$T/gfc5.out"
    expect "gfc --gfc-dim 33 refused" 1 "$SCZ" -i "$T/rand.f32" -z "$T/gfc33.scz" -f -3 16 12 32 -c gfc --gfc-dim 33
    expect "gfc -k 0=40 refused" 1 "$SCZ" -i "$T/rand.f32" -z "$T/gfc40.scz" -f -3 16 12 32 -c gfc -k 0=40
fi
if has_codec lzss; then
    expect "lzss round trip u8" 0 "$SCZ" -i "$T/rand.f32" -o "$T/lzss.out" -t u8 -1 24576 -c lzss
    same "lzss bit-exact" "$T/rand.f32" "$T/lzss.out"
    expect "lzss knob options" 0 "$SCZ" -i "$T/rand.f32" -z "$T/lzss2.scz" -o "$T/lzss2.out" -f -1 6144 -c lzss \
        --symbol 2 --window 300 --min-match 3 --shuffle off --subchunk-log2 9
    same "lzss knob options bit-exact" "$T/rand.f32" "$T/lzss2.out"
    expect "lzss knobs recorded" 0 "$SCZ" info "$T/lzss2.scz"
    grep_in "lzss knobs in info" "$T/out" "0=2 1=300 2=3 3=1 4=9 5=0"
    expect "lzss knob with another codec" 1 "$SCZ" -i "$T/rand.f32" -z "$T/lzss3.scz" -f -1 6144 -c ndzip --window 9
    expect "lzss bad shuffle value" 1 "$SCZ" -i "$T/rand.f32" -z "$T/lzss3.scz" -f -1 6144 -c lzss --shuffle maybe
    expect "lzss symbol size 3 refused" 1 "$SCZ" -i "$T/rand.f32" -z "$T/lzss3.scz" -f -1 6144 -c lzss --symbol 3
fi
if has_codec huffman; then
    expect "huffman round trip u8" 0 "$SCZ" -i "$T/rand.f32" -o "$T/huff.out" -t u8 -1 24576 -c huffman
    same "huffman bit-exact" "$T/rand.f32" "$T/huff.out"
fi
if has_codec lossy && [ "$HAVE_PY" = 1 ]; then
    for mode in "REL 1e-3" "REL 1e-5" "ABS 0.01" "PSNR 60"; do
        # shellcheck disable=SC2086
        expect "lossy $mode round trip" 0 "$SCZ" -i "$T/smooth.f32" -z "$T/lossy.scz" -o "$T/lossy.out" -f -3 40 30 20 -M $mode -s
        grep_in "lossy $mode: bound verified" "$T/out" "bound check        ok"
        grep_in "lossy $mode: chunk workflow" "$T/out" "chunk workflow"
    done
    expect "lossy stream against its original" 0 "$SCZ" -z "$T/lossy.scz" -i "$T/smooth.f32" -s
    grep_in "lossy compare: bound verified" "$T/out" "bound check        ok"
    expect "lossy info" 0 "$SCZ" info "$T/lossy.scz"
    grep_in "lossy info: codec" "$T/out" "lossy"
    grep_in "lossy info: bound" "$T/out" "absolute bound used"
    expect "lossy without a bound" 1 "$SCZ" -i "$T/smooth.f32" -z "$T/x.scz" -f -3 40 30 20 -c lossy
    expect "lossy --level 1 round trip, bound checked" 0 "$SCZ" -i "$T/smooth.f32" -z "$T/lossy1.scz" -o "$T/lossy1.out" \
        -f -3 40 30 20 -M REL 1e-2 --level 1 -s
    grep_in "lossy --level 1: bound met" "$T/out" "bound check        ok"
    expect "lossy --level 1 info" 0 "$SCZ" info "$T/lossy1.scz"
    grep_in "lossy --level 1: level in the header" "$T/out" "0=32767 1=0 2=1"
    expect "lossy --level 2 refused" 1 "$SCZ" -i "$T/smooth.f32" -z "$T/x.scz" -f -3 40 30 20 -M REL 1e-2 --level 2
    expect "--level with another codec refused" 1 "$SCZ" -i "$T/smooth.f32" -z "$T/x.scz" -f -3 40 30 20 -c ndzip --level 1
else
    # No lossy codec in this build: a bound alone asks for it and is refused.
    expect "error bound without a lossy codec in the build" 3 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -1 6144 -M REL 1e-3
fi

# ---------------------------------------------------------------- info, demo
expect "info" 0 "$SCZ" info "$T/rand.scz"
grep_in "info: codec" "$T/out" "ndzip"
grep_in "info: dims fastest first" "$T/out" "16 x 12 x 32 (fastest first"
grep_in "info: dims slowest first" "$T/out" "32 x 12 x 16 (slowest first"
grep_in "info: chunk table" "$T/out" "codec_info"
run sh -c "'$SCZ' info - < '$T/rand.scz'"
if [ "$RC" -eq 0 ] && grep -q ndzip "$T/out"; then ok; else bad "info on stdin: exit $RC"; fi
expect "info on an empty array" 0 "$SCZ" info "$T/empty.scz"
expect "info without a file" 1 "$SCZ" info

expect "demo" 0 "$SCZ" demo -n 2
grep_in "demo: smooth3d row" "$T/out" "smooth3d"
grep_in "demo: turb2d row" "$T/out" "turb2d"
grep_in "demo: verified" "$T/out" "bit-exact"

# ---------------------------------------------------------------- usage errors (1)
expect "missing dims" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f
absent "missing dims writes no stream" "$T/x.scz"
expect "missing type" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -3 16 12 32
expect "wrong file size" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -3 16 12 31
grep_in "wrong file size names the file's bytes" "$T/err" "24576"
grep_in "wrong file size names the expected bytes" "$T/err" "23808"
absent "wrong file size writes no stream" "$T/x.scz"
expect "unknown codec" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -3 16 12 32 -c nosuch
grep_in "unknown codec lists the codecs" "$T/err" "ndzip"
expect "lossy bound with a lossless codec" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -3 16 12 32 -c ndzip -M REL 1e-3
grep_in "lossless + bound message" "$T/err" "lossless"
absent "lossless + bound writes no stream" "$T/x.scz"
expect "unknown option" 1 "$SCZ" --frobnicate
expect "unknown type" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -t f16 -1 6144
expect "bad dimension" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -2 12 -5
expect "too few dimensions" 1 "$SCZ" -i "$T/rand.f32" -f -3 16 12
expect "dims product overflow" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -3 4294967296 4294967296 2
expect "dims byte size overflow" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -d -2 4294967296 1073741824
expect "0 dim with a non-empty file" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -2 0 7
expect "bad error-bound mode" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -1 6144 -M FOO 1
expect "bad error bound" 1 "$SCZ" -i "$T/rand.f32" -z "$T/x.scz" -f -1 6144 -M ABS -1
expect "nothing to do" 1 "$SCZ" -i "$T/rand.f32" -f -1 6144
expect "-z and -o both stdout" 1 "$SCZ" -i "$T/rand.f32" -z - -o - -f -1 6144
expect "bad size of the original in compare mode" 1 "$SCZ" -z "$T/rand.scz" -i "$T/rand.f64"

# ---------------------------------------------------------------- I/O errors (2)
expect "nonexistent input" 2 "$SCZ" -i "$T/nonexistent.f32" -z "$T/x.scz" -f -1 6144
expect "nonexistent stream" 2 "$SCZ" -z "$T/nonexistent.scz" -o "$T/x.out"
expect "unwritable output" 2 "$SCZ" -i "$T/rand.f32" -z "$T/no/such/dir/x.scz" -f -1 6144
if [ -w /dev/full ]; then
    expect "write error (disk full)" 2 "$SCZ" -i "$T/rand.f32" -z /dev/full -f -1 6144
fi

# ---------------------------------------------------------------- bad streams (3)
size=$(wc -c <"$T/rand.scz")
head -c $((size - 1)) "$T/rand.scz" >"$T/trunc1.scz"
expect "truncated stream (last byte)" 3 "$SCZ" -z "$T/trunc1.scz" -o "$T/x.out"
absent "truncated stream writes no output" "$T/x.out"
head -c 100 "$T/rand.scz" >"$T/trunc2.scz"
expect "truncated stream (inside the header)" 3 "$SCZ" -z "$T/trunc2.scz" -o "$T/x.out"
expect "info on a truncated stream" 3 "$SCZ" info "$T/trunc1.scz"

# corrupt BYTE_OFFSET SRC DST: DST = SRC with the byte at the offset inverted.
corrupt() {
    b=$(od -A n -t u1 -j "$1" -N 1 "$2" | tr -d ' \n')
    nb=$((255 - b))
    cp "$2" "$3"
    # shellcheck disable=SC2059
    printf "$(printf '\\%03o' "$nb")" | dd of="$3" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
corrupt 20 "$T/rand.scz" "$T/bad_header.scz"
expect "corrupted header byte" 3 "$SCZ" -z "$T/bad_header.scz" -o "$T/x.out"
corrupt 140 "$T/rand.scz" "$T/bad_table.scz"
expect "corrupted chunk-table byte" 3 "$SCZ" -z "$T/bad_table.scz" -o "$T/x.out"
corrupt $((size - 10)) "$T/rand.scz" "$T/bad_payload.scz"
expect "corrupted payload byte" 3 "$SCZ" -z "$T/bad_payload.scz" -o "$T/x.out"
grep_in "corrupted payload names the checksum" "$T/err" "checksum"
absent "corrupt stream writes no output" "$T/x.out"
expect "info on a corrupted header" 3 "$SCZ" info "$T/bad_header.scz"
expect "empty file as a stream" 3 "$SCZ" -z "$T/empty" -o "$T/x.out"
expect "info on an empty file" 3 "$SCZ" info "$T/empty"
expect "raw data as a stream" 3 "$SCZ" -z "$T/rand.f32" -o "$T/x.out"
cat "$T/rand.scz" "$T/rand.scz" >"$T/twice.scz"
expect "trailing bytes after a stream" 3 "$SCZ" -z "$T/twice.scz" -o "$T/x.out"
expect "info on trailing bytes" 3 "$SCZ" info "$T/twice.scz"

# ---------------------------------------------------------------- large-file paths: pipes, layouts, temp files
# Streams pass chunk by chunk; a pipe gets the table-last layout, a file the
# table-first one (the bytes scz_compress writes); outputs are renamed into
# place only when complete.
run sh -c "'$SCZ' -i '$T/rand.f32' -z - -f -3 16 12 32 -C 4K | cat > '$T/tl.scz'"
if [ "$RC" -eq 0 ]; then ok; else bad "compress to a pipe: exit $RC"; fi
expect "info on a table-last stream" 0 "$SCZ" info "$T/tl.scz"
grep_in "info names the table-last layout" "$T/out" "table last"
run sh -c "'$SCZ' info - < '$T/tl.scz'"
if [ "$RC" -eq 0 ] && grep -q "table last" "$T/out"; then ok; else bad "info of a table-last stream on stdin: exit $RC"; fi
expect "file stream is table first" 0 "$SCZ" info "$T/rand.scz"
grep_in "info names the table-first layout" "$T/out" "table first"
expect "decompress a table-last file" 0 "$SCZ" -z "$T/tl.scz" -o "$T/tl.out"
same "table-last round trip" "$T/rand.f32" "$T/tl.out"
run sh -c "cat '$T/rand.f32' | '$SCZ' -i - -z - -f -3 16 12 32 -C 4K | '$SCZ' -z - -o - | cat > '$T/pp.out'"
if [ "$RC" -eq 0 ]; then ok; else bad "pipe to pipe to pipe: exit $RC"; fi
same "pipes both ways" "$T/rand.f32" "$T/pp.out"
run sh -c "cat '$T/tl.scz' | '$SCZ' -z - -i '$T/rand.f32' -s"
if [ "$RC" -eq 0 ] && grep -q "bit-exact          yes" "$T/out"; then ok; else bad "compare a piped table-last stream: exit $RC"; fi
run sh -c "cat '$T/rand.f32' | '$SCZ' -z '$T/tl.scz' -i - -s"
if [ "$RC" -eq 0 ] && grep -q "bit-exact          yes" "$T/out"; then ok; else bad "compare with a piped original: exit $RC"; fi
expect "many chunks, round trip with stats" 0 "$SCZ" -i "$T/rand.f64" -z "$T/mc.scz" -o "$T/mc.out" -d -2 50 100 -C 4K -s
same "many chunks round trip" "$T/rand.f64" "$T/mc.out"
grep_in "many chunks: bit-exact" "$T/out" "bit-exact          yes"
cat "$T/tl.scz" "$T/tl.scz" >"$T/tl2.scz"
run sh -c "cat '$T/tl2.scz' | '$SCZ' -z - -o '$T/x.out'"
if [ "$RC" -eq 3 ] && grep -q "unexpected bytes" "$T/err"; then ok; else bad "trailing bytes through a pipe: exit $RC"; fi
absent "trailing bytes through a pipe write no output" "$T/x.out"
tsize=$(wc -c <"$T/tl.scz")
head -c $((tsize - 3)) "$T/tl.scz" >"$T/tltrunc.scz"
run sh -c "cat '$T/tltrunc.scz' | '$SCZ' -z - -o '$T/x.out'"
if [ "$RC" -eq 3 ] && grep -q "truncated" "$T/err"; then ok; else bad "truncated table-last stream through a pipe: exit $RC"; fi
absent "truncated pipe writes no output" "$T/x.out"

# a failure leaves an existing output untouched, and no temporary file
printf 'precious' >"$T/keep.out"
expect "corrupt stream over an existing output" 3 "$SCZ" -z "$T/bad_payload.scz" -o "$T/keep.out"
if [ "$(cat "$T/keep.out")" = precious ]; then ok; else bad "a failed decompression changed the existing output"; fi
printf 'precious' >"$T/keep.scz"
run sh -c "head -c 24000 '$T/rand.f32' | '$SCZ' -i - -z '$T/keep.scz' -f -3 16 12 32"
if [ "$RC" -eq 1 ] && grep -q "24000" "$T/err"; then ok; else bad "short pipe input: exit $RC"; fi
if [ "$(cat "$T/keep.scz")" = precious ]; then ok; else bad "a failed compression changed the existing stream"; fi
run sh -c "cat '$T/rand.f32' '$T/rand.f32' | '$SCZ' -i - -z '$T/long.scz' -f -3 16 12 32"
if [ "$RC" -eq 1 ]; then ok; else bad "long pipe input: exit $RC"; fi
absent "long pipe input writes no stream" "$T/long.scz"
if ls -A "$T" | grep -q 'tmp-'; then bad "temporary files left behind: $(ls -A "$T" | grep 'tmp-')"; else ok; fi
expect "new file mode follows the umask" 0 sh -c "umask 022; '$SCZ' -i '$T/rand.f32' -z '$T/mode.scz' -f -1 6144"
mode=$(ls -l "$T/mode.scz" | cut -c1-10)
if [ "$mode" = "-rw-r--r--" ]; then ok; else bad "output mode $mode, expected -rw-r--r--"; fi

# a signal during compression removes the temporary file
if command -v mkfifo >/dev/null 2>&1; then
    mkfifo "$T/fifo"
    "$SCZ" -i "$T/fifo" -z "$T/sig.scz" -f -1 1000000 2>/dev/null &
    pid=$!
    exec 3>"$T/fifo"
    head -c 4000 /dev/urandom >&3
    n=0
    while [ "$n" -lt 50 ] && ! ls -A "$T" | grep -q 'sig.scz.tmp-'; do sleep 0.1; n=$((n + 1)); done
    if ls -A "$T" | grep -q 'sig.scz.tmp-'; then ok; else bad "no temporary file while compressing"; fi
    kill -TERM "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    exec 3>&-
    if ls -A "$T" | grep -q 'sig.scz'; then bad "a killed compression left $(ls -A "$T" | grep sig.scz)"; else ok; fi
fi

# REL/PSNR need the whole array's range: a file is read twice, a pipe is
# spooled, --range gives it; all three write the same stream
if has_codec lossy && [ "$HAVE_PY" = 1 ]; then
    expect "REL from a file" 0 "$SCZ" -i "$T/smooth.f32" -z "$T/rel1.scz" -f -3 40 30 20 -M REL 1e-3 -C 8K
    run sh -c "cat '$T/smooth.f32' | '$SCZ' -i - -z '$T/rel2.scz' -f -3 40 30 20 -M REL 1e-3 -C 8K"
    if [ "$RC" -eq 0 ]; then ok; else bad "REL from a pipe: exit $RC"; fi
    same "REL: a pipe (spooled) gives the file's stream" "$T/rel1.scz" "$T/rel2.scz"
    range=$("$SCZ" -i "$T/smooth.f32" -o /dev/null -f -3 40 30 20 -s | sed -n 's/.*value range        \[\(.*\), \(.*\)\],.*/\1 \2/p')
    run sh -c "cat '$T/smooth.f32' | '$SCZ' -i - -z '$T/rel4.scz' -f -3 40 30 20 -M REL 1e-3 -C 8K --range $range"
    if [ "$RC" -eq 0 ]; then ok; else bad "REL from a pipe with --range: exit $RC"; fi
    same "REL: --range with the printed range gives the file's stream" "$T/rel1.scz" "$T/rel4.scz"
    # shellcheck disable=SC2086
    run sh -c "cat '$T/smooth.f32' | '$SCZ' -i - -z - -f -3 40 30 20 -M REL 1e-3 -C 8K --range $range | '$SCZ' -z - -o '$T/rel3.out' -i '$T/smooth.f32' -s"
    if [ "$RC" -eq 0 ] && grep -q "bound check        ok" "$T/out"; then ok; else bad "REL with --range through pipes: exit $RC"; fi
    expect "PSNR round trip in one call" 0 "$SCZ" -i "$T/smooth.f32" -o "$T/psnr.out" -f -3 40 30 20 -M PSNR 50 -C 8K -s
    grep_in "PSNR: bound verified" "$T/out" "bound check        ok"
    expect "PSNR from a file (passes)" 0 "$SCZ" -i "$T/smooth.f32" -z "$T/psnr1.scz" -f -3 40 30 20 -M PSNR 80 -C 8K
    run sh -c "cat '$T/smooth.f32' | '$SCZ' -i - -z '$T/psnr2.scz' -f -3 40 30 20 -M PSNR 80 -C 8K --range $range"
    if [ "$RC" -eq 0 ]; then ok; else bad "PSNR from a pipe: exit $RC"; fi
    same "PSNR: a pipe (spooled, passes) gives the file's stream" "$T/psnr1.scz" "$T/psnr2.scz"
    expect "PSNR stream against its original" 0 "$SCZ" -z "$T/psnr1.scz" -i "$T/smooth.f32" -s
    grep_in "PSNR: target met" "$T/out" "bound check        ok"
    expect "bad --range" 1 "$SCZ" -i "$T/smooth.f32" -z "$T/x.scz" -f -3 40 30 20 -M REL 1e-3 --range 1 0
fi

# the GPU backend: used when present, a clear error otherwise
run "$SCZ" -i "$T/rand.f32" -z "$T/gpu.scz" -f -3 16 12 32 -C 4K --gpu
if [ "$RC" -eq 0 ]; then
    ok
    same "GPU stream equals the CPU stream" "$T/gpu.scz" "$(
        "$SCZ" -i "$T/rand.f32" -z "$T/cpu4k.scz" -f -3 16 12 32 -C 4K
        echo "$T/cpu4k.scz"
    )"
    run sh -c "'$SCZ' -z '$T/tl.scz' -o - --gpu | cmp - '$T/rand.f32'"
    if [ "$RC" -eq 0 ]; then ok; else bad "GPU decode of a table-last stream: exit $RC"; fi
elif [ "$RC" -eq 3 ] && grep -q "GPU" "$T/err"; then
    ok
else
    bad "--gpu: exit $RC"
fi

# Huffman streams whose bit count is an exact multiple of a segment (32768
# bits): u8 arrays of k*32768 (+-1) elements holding two values (1-bit
# codes) must round-trip bit for bit through the tool, at 1 and 2 threads.
for n in 32767 32768 32769 65536 98304; do
    awk -v n=$n 'BEGIN { s = 7; for (i = 0; i < n; i++) { s = (s * 1103515245 + 12345) % 2147483648; printf "%c", (s >= 1073741824 ? 65 : 66) } }' >"$T/two_$n.u8"
    for th in 1 2; do
        expect "huffman $n two-valued bytes, $th threads" 0 "$SCZ" -i "$T/two_$n.u8" -z "$T/two_$n.scz" -t u8 -1 $n -c huffman -n $th
        expect "huffman $n decompress, $th threads" 0 "$SCZ" -z "$T/two_$n.scz" -o "$T/two_$n.out" -n $th
        same "huffman $n two-valued bytes round trip, $th threads" "$T/two_$n.u8" "$T/two_$n.out"
        rm -f "$T/two_$n.out"
    done
done

# The lossy codec with 1-bit code streams of k*32768 codes: float32 random
# walks with steps 0 and 1 restarted in every 4096-block, ABS 0.5; each value
# must come back within the bound (-d verifies, exit 4 otherwise).
for n in 32768 65536; do
    LC_ALL=C awk -v n=$n 'BEGIN { s = 11; v = 0
        for (i = 0; i < n; i++) {
            s = (s * 1103515245 + 12345) % 2147483648
            if (i % 4096 == 0) v = 0; else if (s >= 1073741824) v++
            b = 0
            if (v > 0) { e = 0; while (2 ^ (e + 1) <= v) e++; b = (127 + e) * 8388608 + (v - 2 ^ e) * 2 ^ (23 - e) }
            printf "%c%c%c%c", b % 256, int(b / 256) % 256, int(b / 65536) % 256, int(b / 16777216) }
    }' >"$T/walk_$n.f32"
    for th in 1 2; do
        expect "lossy 1-bit codes, $n values, $th threads" 0 "$SCZ" -i "$T/walk_$n.f32" -z "$T/walk_$n.scz" \
            -o "$T/walk_$n.out" -f -1 $n -c lossy -M ABS 0.5 -n $th
    done
done

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
