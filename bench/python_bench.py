#!/usr/bin/env python3
"""Python binding overhead (issue 12): scz.compress / scz.decompress on a
large float32 array against the C tool (`scz`) on the same array, same
codec, same machine. The array is a data file repeated along its slowest
axis up to --gib GiB; the tool reads it from and writes its stream to
--tmp (use a RAM-backed folder such as /dev/shm, so file I/O is memory
copies). Wall clock, median of --reps runs each. bench/RESULTS.md keeps the
figures.

    python3 bench/python_bench.py --tool build/tools/scz --data ../shared/data --gib 1

With --cupy FILE (a raw float32 file, e.g. tiled_wmag_512x512x512.f32 of
make-large-inputs.py; --shape Z,Y,X) it times instead scz.compress /
scz.decompress of a CuPy array on the GPU (device to device, the array's
stream, synchronized) -- compare with scz_bench_gpu's D2D figures of the
C device API on the same file and run.

    python3 bench/python_bench.py --cupy /tmp/large/tiled_wmag_512x512x512.f32 --shape 512,512,512
"""
import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np

import scz


def load_field(data_dir):
    for path in sorted(glob.glob(os.path.join(data_dir, "*.f32"))):
        m = re.search(r"_(\d+(?:x\d+)*)\.f32$", path)
        if m:
            dims = tuple(int(d) for d in m.group(1).split("x"))
            if len(dims) == 3:
                return path, np.fromfile(path, "<f4").reshape(dims)
    raise SystemExit("no 3D float32 file in " + data_dir)


def med(f, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        r = f()
        t.append(time.perf_counter() - t0)
    return statistics.median(t), r


def cupy_bench(a):
    import cupy as cp

    shape = tuple(int(v) for v in a.shape.split(",")) if a.shape else (-1,)
    x = cp.asarray(np.fromfile(a.cupy, "<f4").reshape(shape))
    gb = x.nbytes / 1e9
    st = cp.cuda.get_current_stream()

    def timed(f):
        f()  # warm-up: buffers, kernels
        st.synchronize()
        t = []
        for _ in range(max(1, a.reps)):
            t0 = time.perf_counter()
            r = f()
            st.synchronize()
            t.append(time.perf_counter() - t0)
        return statistics.median(t), r

    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()
    print(f"CuPy device arrays: {os.path.basename(a.cupy)} {x.shape} float32, {x.nbytes / 2**30:.2f} GiB, "
          f"{dev}; median of {a.reps}")
    for name, kw in (("ndzip", {"codec": "ndzip"}), ("lossy REL 1e-3", {"codec": "lossy", "mode": "rel", "bound": 1e-3})):
        tc, z = timed(lambda: scz.compress(x, **kw))
        out = cp.empty_like(x)
        td, y = timed(lambda: scz.decompress(z, out=out))
        ok = bool(cp.array_equal(y, x)) if name == "ndzip" else True
        print(f"{name:16s} ratio {x.nbytes / z.size:7.3f}  compress {gb / tc:7.1f} GB/s  decompress {gb / td:7.1f} GB/s"
              f"{'' if ok else '  ROUND TRIP DIFFERS'}")
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool")
    ap.add_argument("--cupy", help="raw float32 file: time CuPy device arrays instead")
    ap.add_argument("--shape", help="Z,Y,X of the --cupy file (slowest first)")
    ap.add_argument("--data", default=os.environ.get("SCZ_DATA_DIR", "../shared/data"))
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default="/dev/shm")
    a = ap.parse_args()
    if a.cupy:
        return cupy_bench(a)
    if not a.tool:
        ap.error("--tool is required without --cupy")
    path, f = load_field(a.data)
    reps = max(1, int(round(a.gib * 2**30 / f.nbytes)))
    arr = np.ascontiguousarray(np.concatenate([f] * reps, axis=0))
    raw = os.path.join(a.tmp, "scz_pybench.f32")
    out = os.path.join(a.tmp, "scz_pybench.scz")
    arr.tofile(raw)
    dims = arr.shape[::-1]  # the tool's -3 takes the fastest first
    print(f"array: {os.path.basename(path)} x{reps} = {arr.shape} float32, {arr.nbytes / 2**30:.2f} GiB; "
          f"scz {scz.__version__}; {os.cpu_count()} CPUs; median of {a.reps}")
    rows = [("ndzip", {}, []), ("lossy REL 1e-3", {"codec": "lossy", "mode": "rel", "bound": 1e-3},
                                 ["-c", "lossy", "-M", "REL", "1e-3"])]
    for name, kw, targs in rows:
        if not kw:
            targs = ["-c", "ndzip"]
        tp, z = med(lambda: scz.compress(arr, **kw), a.reps)
        td, _ = med(lambda: scz.decompress(z), a.reps)
        cmd = [a.tool, "-i", raw, "-z", out, "-t", "f32", "-3", *map(str, dims), *targs]
        tt, _ = med(lambda: subprocess.run(cmd, check=True, capture_output=True), a.reps)
        dcmd = [a.tool, "-z", out, "-o", raw + ".out"]
        tdt, _ = med(lambda: subprocess.run(dcmd, check=True, capture_output=True), a.reps)
        with open(out, "rb") as fh:
            same = fh.read() == z
        gb = arr.nbytes / 1e9
        print(f"{name:16s} ratio {arr.nbytes / len(z):7.3f}  python compress {gb / tp:6.2f} GB/s ({tp:.3f} s), "
              f"tool {gb / tt:6.2f} GB/s ({tt:.3f} s): python/tool time {tp / tt:5.3f} | decompress python "
              f"{gb / td:6.2f} GB/s, tool {gb / tdt:6.2f} GB/s: {td / tdt:5.3f} | streams "
              f"{'identical' if same else 'DIFFER'}")
    for p in (raw, out, raw + ".out"):
        if os.path.exists(p):
            os.remove(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
