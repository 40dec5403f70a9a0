#!/usr/bin/env python3
"""Lossy compression ratio of scz (level 0 and level 1) beside SZ3 and zfp.

For every field of the data directory's MANIFEST.tsv and every REL bound
(relative to the value range of the finite values, as SZ3's REL mode):
  scz   the `scz` tool (-M REL b, --level 0 / 1, one thread); the decoded
        array is checked against the bound (scz -s) unless --no-check
  SZ3   PyPI `pysz` (default algorithm, REL mode, OpenMP off)
  zfp   PyPI `zfpy`, fixed accuracy with tolerance = REL x value range
Prints a per-field table of ratios (original / compressed) and the
geometric mean over the fields per bound, plus SZ3's single-thread MB/s.

  python3 -m venv /tmp/venv-peers && /tmp/venv-peers/bin/pip install numpy pysz zfpy
  /tmp/venv-peers/bin/python bench/ratio_peers.py [--scz build-cpu/tools/scz] [--data DIR]
      [--rel 1e-2,1e-3,1e-4] [--only NAME,...] [--no-check]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def manifest(data_dir):
    rows = []
    with open(os.path.join(data_dir, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            rows.append(r)
    return rows


def scz_ratio(scz, path, dtype, dims_fast, rel, level, check, tmp):
    z = os.path.join(tmp, "s.scz")
    t = "-f" if dtype == "float32" else "-d"
    cmd = [scz, "-i", path, "-z", z, t, f"-{len(dims_fast)}", *map(str, dims_fast), "-M", "REL", repr(rel),
           "--level", str(level), "-n", "1"]
    subprocess.run(cmd, check=True, capture_output=True)
    size = os.path.getsize(z)
    if check:
        out = subprocess.run([scz, "-z", z, "-i", path, "-s", "-n", "1"], check=True, capture_output=True,
                             text=True).stdout
        if "bound check        ok" not in out:
            raise SystemExit(f"scz level {level} REL {rel} {path}: bound check failed\n{out}")
    return os.path.getsize(path) / size


def finite_range(a):
    f = a[np.isfinite(a)]
    return (float(f.min()), float(f.max())) if f.size else (0.0, 0.0)


def sz3_config(rel):
    """SZ3 (pysz) at a value-range-relative bound, single-threaded (also rd_peers.py's)."""
    from pysz import szConfig, szErrorBoundMode
    cfg = szConfig()
    cfg.errorBoundMode = szErrorBoundMode.REL
    cfg.relErrorBound = rel
    try:
        cfg.openmp = False
    except Exception:
        pass
    return cfg


def sz3_ratio(a, rel):
    from pysz import sz
    cfg = sz3_config(rel)
    t0 = time.perf_counter()
    c, _ = sz.compress(a, cfg)
    t1 = time.perf_counter()
    d = sz.decompress(c, a.dtype, a.shape)
    if isinstance(d, tuple):
        d = d[0]
    t2 = time.perf_counter()
    lo, hi = finite_range(a)
    err = float(np.max(np.abs(d.astype(np.float64) - a.astype(np.float64))))
    if err > rel * (hi - lo) * (1 + 1e-12):
        print(f"  note: SZ3 max error {err:g} above {rel * (hi - lo):g}", file=sys.stderr)
    return a.nbytes / c.nbytes, t1 - t0, t2 - t1


def zfp_ratio(a, rel):
    import zfpy
    lo, hi = finite_range(a)
    tol = rel * (hi - lo)
    c = zfpy.compress_numpy(np.ascontiguousarray(a), tolerance=tol)
    return a.nbytes / len(c)


def geo(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scz", default=os.path.join(here, "..", "build-cpu", "tools", "scz"))
    ap.add_argument("--data", default=os.environ.get("SCZ_DATA_DIR", os.path.join(here, "..", "..", "shared", "data")))
    ap.add_argument("--rel", default="1e-2,1e-3,1e-4")
    ap.add_argument("--only", default="")
    ap.add_argument("--no-check", action="store_true")
    o = ap.parse_args()
    if not os.path.exists(os.path.join(o.data, "MANIFEST.tsv")):
        for d in ("/work/shared/data",):
            if os.path.exists(os.path.join(d, "MANIFEST.tsv")):
                o.data = d
    rels = [float(x) for x in o.rel.split(",")]
    rows = manifest(o.data)
    if o.only:
        keys = o.only.split(",")
        rows = [r for r in rows if any(k in r["file"] for k in keys)]
    cols = ["scz L0", "scz L1", "SZ3", "zfp"]
    res = {rel: {c: [] for c in cols} for rel in rels}
    sz_bytes = 0
    sz_t = [0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmp:
        for rel in rels:
            print(f"\n== REL {rel:g} ==")
            print(f"{'field':40s} " + " ".join(f"{c:>9s}" for c in cols) + "   L1/SZ3")
            for r in rows:
                path = os.path.join(o.data, r["file"])
                dt = np.float32 if r["dtype"] == "float32" else np.float64
                slow = [int(x) for x in r["dims_slowest_first"].split("x")]
                fast = [int(x) for x in r["dims_fastest_first"].split("x")]
                a = np.fromfile(path, dtype="<" + np.dtype(dt).str[1:]).reshape(slow)
                v0 = scz_ratio(o.scz, path, r["dtype"], fast, rel, 0, not o.no_check, tmp)
                v1 = scz_ratio(o.scz, path, r["dtype"], fast, rel, 1, not o.no_check, tmp)
                vs, tc, td = sz3_ratio(a, rel)
                sz_bytes += a.nbytes
                sz_t[0] += tc
                sz_t[1] += td
                vz = zfp_ratio(a, rel)
                for c, v in zip(cols, (v0, v1, vs, vz)):
                    res[rel][c].append(v)
                print(f"{r['file']:40s} " + " ".join(f"{v:9.2f}" for v in (v0, v1, vs, vz)) + f"   {v1 / vs:6.2f}")
            g = [geo(res[rel][c]) for c in cols]
            wins = sum(1 for x, y in zip(res[rel]["scz L1"], res[rel]["SZ3"]) if x > y)
            print(f"{'geometric mean':40s} " + " ".join(f"{v:9.2f}" for v in g) +
                  f"   (scz L1 above SZ3 on {wins} of {len(rows)} fields)")
    print("\n== summary: geometric-mean ratio ==")
    print("| bound | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    for rel in rels:
        print(f"| REL {rel:g} | " + " | ".join(f"{geo(res[rel][c]):.1f}" for c in cols) + " |")
    if sz_t[0] > 0:
        print(f"\nSZ3 single-thread (OpenMP off) over all runs: compress {sz_bytes / sz_t[0] / 1e6:.0f} MB/s, "
              f"decompress {sz_bytes / sz_t[1] / 1e6:.0f} MB/s")


if __name__ == "__main__":
    main()
