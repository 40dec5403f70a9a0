#!/usr/bin/env python3
"""Rate-distortion of scz's lossy codec (level 0 and level 1) beside SZ3 and
zfp: PSNR against bits per value over a sweep of REL bounds, per field.

For every field (the data directory's MANIFEST.tsv, or --file) and every
bound of the sweep: compressed bits per value, PSNR (20 log10(range) -
10 log10(MSE) over the finite values, as SZ3 and scz -s) and max error, for
  scz L0 / scz L1  the `scz` tool (-M REL b --level 0|1, one thread)
  SZ3              PyPI `pysz`, default algorithm, REL mode, OpenMP off
  zfp              PyPI `zfpy`, fixed accuracy, tolerance = REL x range
Fields with fill values (|x| >= 1e19, e.g. 1e20 over land: tos, iris) would
otherwise have a "value range" of 1e20 and a PSNR above 300 dB at any rate;
for them, as a user of any of these compressors would, every compressor gets
the ABS bound REL x (range of the non-fill values) and the PSNR, range and
max error are computed over the non-fill values (the same for every codec;
the fill values are still checked against the bound).
Then, per field, each curve's PSNR at 2, 4 and 8 bits per value (linear
interpolation between the two sweep points around it; none outside the
curve) and the winner at each rate, and PNG plots (matplotlib): one per
field and an overview.

  /tmp/venv-peers/bin/pip install numpy pysz zfpy matplotlib
  /tmp/venv-peers/bin/python bench/rd_peers.py --out bench/rd        # the 13 data fields
  /tmp/venv-peers/bin/python bench/rd_peers.py --file my.f32 --dims 512,512,100 --out rd-mine
      (--dims fastest first, as scz's -3 NX NY NZ; --type f32|f64 from the extension)
"""
import argparse
import csv
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SWEEP = [1e-1, 5e-2, 2e-2, 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6]
CODECS = ["scz L0", "scz L1", "SZ3", "zfp"]
RATES = [2.0, 4.0, 8.0]


FILL = 1e19  # |x| >= FILL: a fill value


def has_fill(a):
    return bool(np.any(np.abs(a[np.isfinite(a)]) >= FILL))


def stats(a, d, nofill=False):
    """PSNR, max error and range over the finite values (non-fill ones with nofill)."""
    f = np.isfinite(a)
    if nofill:
        f &= np.abs(a) < FILL
    x, y = a[f].astype(np.float64), d[f].astype(np.float64)
    rng = float(x.max() - x.min()) if x.size else 0.0
    mse = float(np.mean((x - y) ** 2)) if x.size else 0.0
    psnr = 20 * math.log10(rng) - 10 * math.log10(mse) if mse > 0 and rng > 0 else float("inf")
    return psnr, float(np.max(np.abs(x - y))) if x.size else 0.0, rng


def run_scz(scz, path, a, fast, rel, level, tmp, abs_eb=None):
    z, o = os.path.join(tmp, "s.scz"), os.path.join(tmp, "s.out")
    t = "-f" if a.dtype == np.float32 else "-d"
    mode = ["-M", "REL", repr(rel)] if abs_eb is None else ["-M", "ABS", repr(abs_eb)]
    subprocess.run([scz, "-i", path, "-z", z, t, f"-{len(fast)}", *map(str, fast), *mode,
                   "--level", str(level), "-n", "1"], check=True, capture_output=True)
    subprocess.run([scz, "-z", z, "-o", o, "-n", "1"], check=True, capture_output=True)
    d = np.fromfile(o, dtype=a.dtype).reshape(a.shape)
    return os.path.getsize(z), d


def run_sz3(a, rel, abs_eb=None):
    from pysz import sz, szErrorBoundMode
    from ratio_peers import sz3_config
    cfg = sz3_config(rel)
    if abs_eb is not None:
        cfg.errorBoundMode = szErrorBoundMode.ABS
        cfg.absErrorBound = abs_eb
    c, _ = sz.compress(a, cfg)
    d = sz.decompress(c, a.dtype, a.shape)
    if isinstance(d, tuple):
        d = d[0]
    return c.nbytes, np.asarray(d).reshape(a.shape)


def run_zfp(a, rel, rng):
    import zfpy
    c = zfpy.compress_numpy(np.ascontiguousarray(a), tolerance=rel * rng)
    return len(c), zfpy.decompress_numpy(c)


def at_rate(curve, bpv):
    """PSNR at bpv bits per value, linear between the sweep points around it."""
    pts = sorted((b, p) for b, p in curve if math.isfinite(p))
    for (b0, p0), (b1, p1) in zip(pts, pts[1:]):
        if b0 <= bpv <= b1 and b1 > b0:
            return p0 + (p1 - p0) * (bpv - b0) / (b1 - b0)
    return None


def fields(o):
    if o.file:
        name = os.path.basename(o.file)
        typ = o.type or ("float64" if name.endswith(".f64") else "float32")
        typ = {"f32": "float32", "f64": "float64"}.get(typ, typ)
        fast = [int(x) for x in o.dims.split(",")]
        return [(o.file, name, typ, fast)]
    out = []
    with open(os.path.join(o.data, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if o.only and not any(k in r["file"] for k in o.only.split(",")):
                continue
            out.append((os.path.join(o.data, r["file"]), r["file"], r["dtype"],
                        [int(x) for x in r["dims_fastest_first"].split("x")]))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scz", default=os.path.join(here, "..", "build-cpu", "tools", "scz"))
    ap.add_argument("--data", default=os.environ.get("SCZ_DATA_DIR", os.path.join(here, "..", "..", "shared", "data")))
    ap.add_argument("--file")
    ap.add_argument("--dims", help="fastest first, comma separated (with --file)")
    ap.add_argument("--type", help="f32 or f64 (with --file)")
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="rd", help="directory for the CSV and PNG files")
    o = ap.parse_args()
    if not o.file and not os.path.exists(os.path.join(o.data, "MANIFEST.tsv")) and os.path.exists(
            "/work/shared/data/MANIFEST.tsv"):
        o.data = "/work/shared/data"
    os.makedirs(o.out, exist_ok=True)
    rows, curves, filled = [], {}, set()
    with tempfile.TemporaryDirectory() as tmp:
        for path, name, typ, fast in fields(o):
            dt = np.float32 if typ == "float32" else np.float64
            a = np.fromfile(path, dtype=dt).reshape(list(reversed(fast)))
            nofill = has_fill(a)
            if nofill:
                filled.add(name)
            _, _, rng = stats(a, a, nofill)
            curves[name] = {c: [] for c in CODECS}
            for rel in SWEEP:
                ab = rel * rng if nofill else None
                for c in CODECS:
                    if c.startswith("scz"):
                        size, d = run_scz(o.scz, path, a, fast, rel, int(c[-1]), tmp, ab)
                    elif c == "SZ3":
                        size, d = run_sz3(a, rel, ab)
                    else:
                        size, d = run_zfp(a, rel, rng)
                    psnr, err, _ = stats(a, d, nofill)
                    ok = err <= rel * rng * (1 + 1e-12)
                    if nofill:  # the fill values too, against the same ABS bound
                        fa = np.isfinite(a) & (np.abs(a) >= FILL)
                        ok = ok and float(np.max(np.abs(a[fa].astype(np.float64) - d[fa].astype(np.float64)))) <= ab * (1 + 1e-12)
                    bpv = 8.0 * size / a.size
                    curves[name][c].append((bpv, psnr))
                    rows.append([name, c, rel, size, a.nbytes / size, bpv, psnr, err, ok])
            print(f"{name}: done", file=sys.stderr)
    with open(os.path.join(o.out, "rd.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["field", "codec", "rel", "bytes", "ratio", "bits_per_value", "psnr_db", "max_abs_err", "bound_met"])
        w.writerows(rows)
    # PSNR at 2 / 4 / 8 bits per value and the winners
    wins = {r: {c: 0 for c in CODECS} for r in RATES}
    print("\nPSNR (dB) at 2 / 4 / 8 bits per value (linear between sweep points; '-' outside the curve)")
    print(f"{'field':36s} " + " ".join(f"{c:>20s}" for c in CODECS))
    for name, cv in curves.items():
        cells = []
        for c in CODECS:
            v = [at_rate(cv[c], r) for r in RATES]
            cells.append("/".join("-" if x is None else f"{x:.1f}" for x in v))
        print(f"{name + (' *' if name in filled else ''):36s} " + " ".join(f"{x:>20s}" for x in cells))
        for r in RATES:
            best = max(((at_rate(cv[c], r), c) for c in CODECS if at_rate(cv[c], r) is not None), default=None)
            if best:
                wins[r][best[1]] += 1
    if filled:
        print("* fill values: ABS bounds REL x range of the non-fill values, PSNR over the non-fill values")
    print("\nwinner counts (highest PSNR at the rate):")
    for r in RATES:
        print(f"  {r:g} bits/value: " + ", ".join(f"{c} {wins[r][c]}" for c in CODECS))
    sz_vs = {r: sum(1 for cv in curves.values()
                    if at_rate(cv["scz L1"], r) is not None and at_rate(cv["SZ3"], r) is not None
                    and at_rate(cv["scz L1"], r) >= at_rate(cv["SZ3"], r)) for r in RATES}
    print("  scz L1 at least SZ3's PSNR: " + ", ".join(f"{r:g} bits/value on {sz_vs[r]} fields" for r in RATES))
    plot(curves, o.out)


def plot(curves, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plots", file=sys.stderr)
        return
    style = {"scz L0": ("tab:blue", "--"), "scz L1": ("tab:blue", "-"), "SZ3": ("tab:red", "-"), "zfp": ("tab:green", "-")}

    def draw(ax, name, cv, small=False):
        for c in CODECS:
            pts = sorted(p for p in cv[c] if math.isfinite(p[1]))
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=style[c][0], ls=style[c][1], marker=".",
                        ms=3 if small else 5, label=c)
        ax.set_xlim(0, 16)
        ax.set_title(name if not small else re.sub(r"\.f(32|64)$", "", name), fontsize=7 if small else 10)
        if not small:
            ax.set_xlabel("bits per value")
            ax.set_ylabel("PSNR (dB)")
            ax.grid(alpha=0.3)
            ax.legend()

    for name, cv in curves.items():
        fig, ax = plt.subplots(figsize=(6, 4.2))
        draw(ax, name, cv)
        fig.tight_layout()
        fig.savefig(os.path.join(out, re.sub(r"[^A-Za-z0-9_.-]", "_", name) + ".png"), dpi=80)
        plt.close(fig)
    n = len(curves)
    cols = 4 if n > 4 else n
    rows_ = (n + cols - 1) // cols
    fig, axs = plt.subplots(rows_, cols, figsize=(3.2 * cols, 2.6 * rows_), squeeze=False)
    for ax, (name, cv) in zip(axs.flat, curves.items()):
        draw(ax, name, cv, small=True)
        ax.tick_params(labelsize=6)
        ax.grid(alpha=0.3)
    for ax in list(axs.flat)[n:]:
        ax.axis("off")
    axs.flat[0].legend(fontsize=6)
    fig.supxlabel("bits per value")
    fig.supylabel("PSNR (dB)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "overview.png"), dpi=80)
    plt.close(fig)


if __name__ == "__main__":
    main()
