#!/bin/sh
# The HDF5 command-line tools through the scz plugin (HDF5_PLUGIN_PATH set
# by CTest): h5dump reads a filtered dataset; h5repack -f UD=... compresses
# an unfiltered one, h5dump reads that, and h5repack -f NONE takes the filter
# off again with the values unchanged.
set -eu
test_hdf5=$1 h5dump=$2 h5repack=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$test_hdf5" --write "$d/a.h5"
"$h5dump" -p -d /ints "$d/a.h5" > "$d/ints.txt"
grep -q "FILTER_ID 378" "$d/ints.txt" || { echo "FAIL: h5dump shows no filter 378"; cat "$d/ints.txt"; exit 1; }
grep -q "(0,0): -7, -4, -1, 2, 5, 8, 11, 14, 17, 20, 23, 26," "$d/ints.txt" || { echo "FAIL: h5dump values"; cat "$d/ints.txt"; exit 1; }
echo "ok   h5dump reads an scz-filtered dataset"
# lossy ABS 1e-3: codec 2, mode 1, bound 1e-3 = 0x3F50624DD2F1A9FC (low, high words)
"$h5repack" -l /plain:CHUNK=5x6 -f /plain:UD=378,0,4,2,1,3539053052,1062232653 "$d/a.h5" "$d/b.h5"
"$h5dump" -p -d /plain "$d/b.h5" > "$d/plain.txt"
grep -q "FILTER_ID 378" "$d/plain.txt" || { echo "FAIL: h5repack did not apply the filter"; cat "$d/plain.txt"; exit 1; }
h5diff=$(dirname "$h5dump")/h5diff
"$h5diff" -d 0.001 "$d/a.h5" "$d/b.h5" /plain /plain || { echo "FAIL: repacked values beyond the bound 1e-3"; exit 1; }
"$h5repack" -f NONE "$d/b.h5" "$d/c.h5"
"$h5dump" -p -d /plain "$d/c.h5" > "$d/none.txt"
if grep -q "FILTER_ID 378" "$d/none.txt"; then echo "FAIL: filter still there after -f NONE"; exit 1; fi
"$h5diff" -d 0.001 "$d/a.h5" "$d/c.h5" /plain /plain || { echo "FAIL: values after -f NONE"; exit 1; }
echo "ok   h5repack -f UD=378,... applies the filter, -f NONE removes it"
