#!/bin/bash
# same_streams.sh OLD_SCZ NEW_SCZ [DATA_DIR] -- the lossy streams of two
# builds of the `scz` tool, byte for byte, on the data directory's fields
# (MANIFEST.tsv): level 1 at REL 1e-1 .. 1e-6, two threads, both workflows
# forced, 64 KiB / 256 KiB chunks, radius 64, PSNR 60 / 90, ABS 0.5 / 0.01 /
# 1e-6, and rd_peers.py's ABS bounds of the fill fields (tos, iris); level
# 0 at REL 1e-2 .. 1e-4 and a few of the same variants. Prints the streams
# that differ and a count; exit status 1 if any differs (or fails).
#   bench/same_streams.sh /tmp/old/build/tools/scz build/tools/scz
set -u
OLD=$1 NEW=$2
D=${3:-${SCZ_DATA_DIR:-$(dirname "$0")/../../shared/data}}
[ -f "$D/MANIFEST.tsv" ] || D=/work/shared/data
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bad=0 n=0
one() { # tag file type dims... -- args
    local tag=$1 f=$2; shift 2
    local a=() ; while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift
    "$OLD" -i "$D/$f" -z "$T/o.scz" "${a[@]}" "$@" >/dev/null 2>&1 || { echo "FAIL old $f $tag"; bad=$((bad + 1)); return; }
    "$NEW" -i "$D/$f" -z "$T/n.scz" "${a[@]}" "$@" >/dev/null 2>&1 || { echo "FAIL new $f $tag"; bad=$((bad + 1)); return; }
    n=$((n + 1))
    cmp -s "$T/o.scz" "$T/n.scz" || { echo "DIFF $f $tag"; bad=$((bad + 1)); }
}
while IFS=$'\t' read -r f dt slow fast rest; do
    [ "$f" = file ] && continue
    t=-f; [ "$dt" = float64 ] && t=-d
    dims=$(echo "$fast" | tr x ' '); nd=$(echo $dims | wc -w)
    g=("$t" "-$nd" $dims --)
    for r in 1e-1 1e-2 1e-3 1e-4 1e-5 1e-6; do one "L1 REL $r" "$f" "${g[@]}" -M REL $r --level 1 -n 1; done
    one "L1 REL 1e-3 n2" "$f" "${g[@]}" -M REL 1e-3 --level 1 -n 2
    one "L1 REL 1e-4 n2" "$f" "${g[@]}" -M REL 1e-4 --level 1 -n 2
    one "L1 REL 1e-2 rle" "$f" "${g[@]}" -M REL 1e-2 --level 1 -n 1 --workflow rle
    one "L1 REL 1e-3 huffman" "$f" "${g[@]}" -M REL 1e-3 --level 1 -n 1 --workflow huffman
    one "L1 REL 1e-3 64K" "$f" "${g[@]}" -M REL 1e-3 --level 1 -n 2 -C 64K
    one "L1 REL 1e-4 256K" "$f" "${g[@]}" -M REL 1e-4 --level 1 -n 1 -C 256K
    one "L1 REL 1e-3 r64" "$f" "${g[@]}" -M REL 1e-3 --level 1 -n 1 --radius 64
    for p in 60 90; do one "L1 PSNR $p" "$f" "${g[@]}" -M PSNR $p --level 1 -n 1; done
    for b in 0.5 0.01 1e-6; do one "L1 ABS $b" "$f" "${g[@]}" -M ABS $b --level 1 -n 1; done
    for r in 1e-2 1e-3 1e-4; do one "L0 REL $r" "$f" "${g[@]}" -M REL $r -n 1; done
    one "L0 REL 1e-3 n2" "$f" "${g[@]}" -M REL 1e-3 -n 2
    one "L0 REL 1e-2 rle" "$f" "${g[@]}" -M REL 1e-2 -n 1 --workflow rle
    one "L0 ABS 0.01" "$f" "${g[@]}" -M ABS 0.01 -n 1
    one "L0 PSNR 60" "$f" "${g[@]}" -M PSNR 60 -n 1
    one "L0 REL 1e-3 64K" "$f" "${g[@]}" -M REL 1e-3 -n 2 -C 64K
    # fill fields: rd_peers.py's bound, REL x the range of the non-fill values
    case $f in
    tos_*) for b in 0.343328857421875 0.0343328857421875 0.0034332885742187503; do
               one "L1 ABS $b" "$f" "${g[@]}" -M ABS $b --level 1 -n 1; done ;;
    iris_*) for b in 0.369935529155116 0.0369935529155116 0.00369935529155116; do
                one "L1 ABS $b" "$f" "${g[@]}" -M ABS $b --level 1 -n 1; done ;;
    esac
done < "$D/MANIFEST.tsv"
echo "$n streams compared, $bad differ or failed"
[ "$bad" -eq 0 ]
