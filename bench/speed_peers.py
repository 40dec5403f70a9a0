#!/usr/bin/env python3
"""Compression and decompression speed of scz lossy (level 1 by default) beside
SZ3 (PyPI `pysz`), one thread, on the data directory's fields, with the same
bound for both (bench/rd_peers.py's definition):
  fields without fill: REL b (value range of the whole array), scz eb_mode REL,
                       SZ3 errorBoundMode REL
  fields with fill (|x| >= 1e19: tos, iris): ABS b x (range of the non-fill
                       values) for both
scz is called through ctypes on one or more builds of libscz.so (--lib
LABEL=PATH, repeatable: e.g. the previous build beside this one), SZ3 in the
same process; every repetition runs each candidate once, in an order that
rotates between repetitions (interleaved: a shared machine's load moves all
of them alike), and the table reports medians of --reps repetitions after
--warmup untimed ones. Each call timed alone;
MB/s of raw bytes (10^6 bytes / s). The table's clock is the process's CPU
time by default (--clock): on a shared machine a preempted call's wall time
grows by whole scheduler slices; the CSV has both. The scz streams of the builds must be
equal in size (checked; a --save-dir also writes them for a byte compare).

  OMP_NUM_THREADS=1 /tmp/venv-peers/bin/python bench/speed_peers.py \\
      --lib old=/tmp/base/build-cpu/libscz.so --lib new=build-cpu/libscz.so
"""
import argparse
import ctypes as C
import math
import os
import statistics
import sys
import time

import numpy as np

FILL = 1e19
SCZ_CODEC_LOSSY, SCZ_EB_ABS, SCZ_EB_REL = 2, 1, 2
DT = {"float32": (np.float32, 1), "float64": (np.float64, 2)}


class Shape(C.Structure):
    _fields_ = [("dtype", C.c_int), ("rank", C.c_uint32), ("dims", C.c_uint64 * 4)]


class Params(C.Structure):
    _fields_ = [("codec", C.c_int), ("eb_mode", C.c_int), ("eb", C.c_double),
                ("chunk_bytes", C.c_uint64), ("knobs", C.c_uint32 * 6)]


class Scz:
    def __init__(self, path):
        self.lib = C.CDLL(os.path.abspath(path), mode=C.RTLD_LOCAL)
        L = self.lib
        L.scz_ctx_create.argtypes = [C.POINTER(C.c_void_p), C.c_int]
        L.scz_ctx_set_threads.argtypes = [C.c_void_p, C.c_int]
        L.scz_compress_bound.restype = C.c_size_t
        L.scz_compress_bound.argtypes = [C.POINTER(Shape), C.POINTER(Params)]
        L.scz_compress.argtypes = [C.c_void_p, C.POINTER(Params), C.POINTER(Shape), C.c_void_p,
                                   C.c_void_p, C.c_size_t, C.POINTER(C.c_size_t)]
        L.scz_decompress.argtypes = [C.c_void_p, C.c_void_p, C.c_size_t, C.c_void_p, C.c_size_t,
                                     C.POINTER(Shape)]
        L.scz_ctx_last_error.restype = C.c_char_p
        L.scz_ctx_last_error.argtypes = [C.c_void_p]
        self.ctx = C.c_void_p()
        if L.scz_ctx_create(C.byref(self.ctx), 0) != 0:
            raise RuntimeError("scz_ctx_create")
        L.scz_ctx_set_threads(self.ctx, 1)


def fields(data, only):
    with open(os.path.join(data, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if only and not any(k in r["file"] for k in only.split(",")):
                continue
            yield (os.path.join(data, r["file"]), r["file"], r["dtype"],
                   [int(x) for x in r["dims_fastest_first"].split("x")])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", action="append", default=[], help="LABEL=path/to/libscz.so (repeatable)")
    ap.add_argument("--data", default=os.environ.get("SCZ_DATA_DIR", os.path.join(here, "..", "..", "shared", "data")))
    ap.add_argument("--only", default="")
    ap.add_argument("--rel", default="1e-2,1e-3,1e-4")
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--no-sz3", action="store_true")
    ap.add_argument("--save-dir", help="write each build's streams there (LABEL/field.REL.scz)")
    ap.add_argument("--csv", help="per-repetition times (wall and CPU) as CSV")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="the table's clock: cpu = the process's CPU time (time.process_time; one thread "
                         "works, so it is that thread's time, unmoved by other processes taking the core), "
                         "wall = time.perf_counter")
    o = ap.parse_args()
    if not os.path.exists(os.path.join(o.data, "MANIFEST.tsv")) and os.path.exists("/work/shared/data/MANIFEST.tsv"):
        o.data = "/work/shared/data"
    libs = []
    for spec in o.lib or ["scz=" + os.path.join(here, "..", "build-cpu", "libscz.so")]:
        lab, path = spec.split("=", 1)
        libs.append((lab, Scz(path)))
    if not o.no_sz3:
        from pysz import sz
        sys.path.insert(0, here)
        from ratio_peers import sz3_config
        from pysz import szErrorBoundMode
    rels = [float(x) for x in o.rel.split(",")]
    names = [lab for lab, _ in libs] + ([] if o.no_sz3 else ["SZ3"])
    res = {}  # (field, rel) -> name -> (c MB/s, d MB/s, size)
    csvf = open(o.csv, "w") if o.csv else None
    if csvf:
        csvf.write("field,rel,codec,rep,compress_wall_s,decompress_wall_s,compress_cpu_s,decompress_cpu_s,bytes\n")
    for path, name, typ, fast in fields(o.data, o.only):
        dt, scz_dt = DT[typ]
        a = np.ascontiguousarray(np.fromfile(path, dtype=dt).reshape(list(reversed(fast))))
        fin = np.isfinite(a)
        nofill = bool(np.any(np.abs(a[fin]) >= FILL))
        v = a[fin & (np.abs(a) < FILL)] if nofill else a[fin]
        rng = float(v.max()) - float(v.min())
        shape = Shape(scz_dt, len(fast), (C.c_uint64 * 4)(*(fast + [1] * (4 - len(fast)))))
        nbytes = a.nbytes
        out = np.empty_like(a)
        for rel in rels:
            par = Params(SCZ_CODEC_LOSSY, SCZ_EB_ABS if nofill else SCZ_EB_REL, rel * rng if nofill else rel, 0,
                         (C.c_uint32 * 6)(0, 0, o.level, 0, 0, 0))
            cands = []
            for lab, s in libs:
                cap = s.lib.scz_compress_bound(C.byref(shape), C.byref(par))
                buf = C.create_string_buffer(cap)
                cands.append((lab, "scz", s, buf, cap))
            if not o.no_sz3:
                cfg = sz3_config(rel)
                if nofill:
                    cfg.errorBoundMode = szErrorBoundMode.ABS
                    cfg.absErrorBound = rel * rng
                cands.append(("SZ3", "sz3", cfg, None, None))
            times = {c[0]: ([], []) for c in cands}
            sizes = {}
            streams = {}
            for rep in range(o.warmup + o.reps):
                k = rep % len(cands)
                for lab, kind, obj, buf, cap in cands[k:] + cands[:k]:
                    if kind == "scz":
                        n = C.c_size_t(0)
                        c0, t0 = time.process_time(), time.perf_counter()
                        st = obj.lib.scz_compress(obj.ctx, C.byref(par), C.byref(shape), a.ctypes.data, buf, cap,
                                                  C.byref(n))
                        t1, c1 = time.perf_counter(), time.process_time()
                        if st != 0:
                            raise RuntimeError(f"{lab} {name} {rel}: {obj.lib.scz_ctx_last_error(obj.ctx)}")
                        c1b, t1b = time.process_time(), time.perf_counter()
                        st = obj.lib.scz_decompress(obj.ctx, buf, n.value, out.ctypes.data, nbytes, None)
                        t2, c2 = time.perf_counter(), time.process_time()
                        if st != 0:
                            raise RuntimeError(f"{lab} {name} {rel} decompress")
                        size = n.value
                        if rep == 0:
                            streams[lab] = buf.raw[:size]
                            err = np.abs(out.astype(np.float64) - a.astype(np.float64))
                            bound = rel * rng
                            if not np.all(err[fin] <= bound):
                                raise RuntimeError(f"{lab} {name} {rel}: bound broken")
                    else:
                        c0, t0 = time.process_time(), time.perf_counter()
                        c, _ = sz.compress(a, obj)
                        t1, c1 = time.perf_counter(), time.process_time()
                        c1b, t1b = time.process_time(), time.perf_counter()
                        d = sz.decompress(c, a.dtype, a.shape)
                        t2, c2 = time.perf_counter(), time.process_time()
                        size = c.nbytes
                    sizes[lab] = size
                    if rep >= o.warmup:
                        if o.clock == "cpu":
                            times[lab][0].append(c1 - c0)
                            times[lab][1].append(c2 - c1b)
                        else:
                            times[lab][0].append(t1 - t0)
                            times[lab][1].append(t2 - t1b)
                        if csvf:
                            csvf.write(f"{name},{rel:g},{lab},{rep - o.warmup},{t1 - t0:.6g},{t2 - t1b:.6g},"
                                       f"{c1 - c0:.6g},{c2 - c1b:.6g},{size}\n")
            sl = [sizes[lab] for lab, _ in libs]
            if len(set(sl)) != 1:
                print(f"WARNING {name} {rel:g}: stream sizes differ {sl}", file=sys.stderr)
            elif len(libs) > 1 and len(set(streams.values())) != 1:
                print(f"WARNING {name} {rel:g}: stream bytes differ", file=sys.stderr)
            if o.save_dir:
                for lab, st in streams.items():
                    os.makedirs(os.path.join(o.save_dir, lab), exist_ok=True)
                    with open(os.path.join(o.save_dir, lab, f"{name}.{rel:g}.scz"), "wb") as f:
                        f.write(st)
            res[(name, rel)] = {lab: (nbytes / statistics.median(times[lab][0]) / 1e6,
                                      nbytes / statistics.median(times[lab][1]) / 1e6, sizes[lab])
                                for lab in times}
            line = f"{name:36s} {rel:7g} " + " ".join(
                f"{lab}: {res[(name, rel)][lab][0]:7.1f} c {res[(name, rel)][lab][1]:7.1f} d" for lab in names)
            print(line, flush=True)
    if csvf:
        csvf.close()
    print()
    print("| field | REL | " + " | ".join(f"{n} comp | {n} dec" for n in names) + " |")
    print("|---|---|" + "---:|" * (2 * len(names)))
    for (name, rel), r in res.items():
        cells = " | ".join(f"{r[n][0]:.0f} | {r[n][1]:.0f}" for n in names)
        print(f"| {name} | {rel:g} | {cells} |")
    for rel in rels:
        g = []
        for n in names:
            for j in (0, 1):
                xs = [r[n][j] for (f, rr), r in res.items() if rr == rel]
                g.append(math.exp(sum(map(math.log, xs)) / len(xs)))
        print(f"| geometric mean | {rel:g} | " + " | ".join(f"**{x:.0f}**" for x in g) + " |")
    # fields where an scz build is slower than SZ3
    if not o.no_sz3:
        for (name, rel), r in res.items():
            for lab, _ in libs:
                if r[lab][0] < r["SZ3"][0]:
                    print(f"below SZ3: {lab} {name} REL {rel:g}: {r[lab][0]:.0f} < {r['SZ3'][0]:.0f} MB/s")


if __name__ == "__main__":
    main()
