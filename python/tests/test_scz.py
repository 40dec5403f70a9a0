"""Tests of the Python package (docs/PYTHON.md): round trips of every codec
through numpy, bounds kept, header information, error statistics checked
against numpy, errors raised with the library's message, the numcodecs and
zarr v3 codecs, threads, and CuPy device arrays where a GPU is present
(skipped otherwise). Run: make python-test."""

import json
import os
import threading

import numpy as np
import pytest

import scz

RNG = np.random.default_rng(1234)


def smooth(shape, dtype=np.float32):
    grids = np.meshgrid(*[np.linspace(0, 3, n) for n in shape], indexing="ij")
    v = sum(np.sin((k + 1) * g) for k, g in enumerate(grids)) + 0.01 * RNG.standard_normal(shape)
    return v.astype(dtype)


def available(codec):
    return any(c["name"] == codec and c["available"] for c in scz.codecs())


SHAPES = [(1,), (7,), (4097,), (33, 65), (17, 16, 15), (3, 5, 7, 2)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ndzip_exact(shape, dtype):
    a = smooth(shape, dtype)
    z = scz.compress(a)
    b = scz.decompress(z)
    assert b.dtype == a.dtype and b.shape == a.shape
    assert a.tobytes() == b.tobytes()
    info = scz.info(z)
    assert info["codec"] == "ndzip" and info["lossless"] and info["shape"] == shape
    assert info["stream_bytes"] == len(z) and info["raw_bytes"] == a.nbytes


@pytest.mark.parametrize("mode,bound", [("abs", 1e-2), ("rel", 1e-3), ("rel", 1e-5), ("psnr", 70.0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lossy_bound(mode, bound, dtype):
    a = smooth((40, 50, 30), dtype)
    a[3, 4, 5] = np.nan
    a[7, 8, 9] = -np.inf
    z = scz.compress(a, codec="lossy", mode=mode, bound=bound)
    b = scz.decompress(z)
    info = scz.info(z)
    assert info["codec"] == "lossy" and info["mode"] == mode and info["bound"] == bound
    fin = np.isfinite(a)
    err = np.abs(a[fin].astype(np.float64) - b[fin].astype(np.float64)).max()
    assert err <= info["abs_bound"]
    assert np.isnan(b[3, 4, 5]) and b[7, 8, 9] == -np.inf
    s = scz.stats(a, b)
    assert s["max_abs_err"] == pytest.approx(err, rel=0, abs=0)
    assert s["nonfinite"] == 2 and s["nonfinite_mismatch"] == 0
    if mode == "psnr":
        assert s["psnr"] >= bound
    if mode == "rel":
        r = a[fin].astype(np.float64)
        assert info["abs_bound"] <= bound * (r.max() - r.min()) * (1 + 1e-12)


def test_lossy_options():
    a = smooth((64, 64))
    for wf in ("huffman", "rle", "auto"):
        z = scz.compress(a, codec="lossy", mode="abs", bound=0.05, radius=64, workflow=wf)
        info = scz.info(z)
        assert info["knobs"][0] == 64 and info["knobs"][1] == {"auto": 0, "huffman": 1, "rle": 2}[wf]
        assert np.abs(scz.decompress(z) - a).max() <= info["abs_bound"]
    z = scz.compress(a, codec="lossy", mode="abs", bound=0.05, knobs=(100, 1))
    assert scz.info(z)["knobs"][:2] == (100, 1)
    with pytest.raises(TypeError):
        scz.compress(a, codec="lossy", mode="abs", bound=0.05, dim=3)


def test_lossy_level():
    a = smooth((96, 80))
    z0 = scz.compress(a, codec="lossy", mode="rel", bound=1e-2)
    z1 = scz.compress(a, codec="lossy", mode="rel", bound=1e-2, level=1)
    info = scz.info(z1)
    assert info["knobs"][2] == 1 and info["knobs"][0] == 32767
    assert len(z1) < len(z0)
    assert np.abs(scz.decompress(z1).astype(np.float64) - a).max() <= info["abs_bound"]
    with pytest.raises(scz.SczError):
        scz.compress(a, codec="lossy", mode="rel", bound=1e-2, level=2)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32])
def test_huffman_exact(dtype):
    a = (RNG.geometric(0.3, size=(100, 77)) % np.iinfo(dtype).max).astype(dtype)
    z = scz.compress(a)
    assert scz.info(z)["codec"] == "huffman"
    b = scz.decompress(z)
    assert b.dtype == a.dtype and np.array_equal(a, b)


@pytest.mark.skipif(not available("gfc"), reason="gfc not in this build")
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gfc_exact(dtype):
    a = smooth((1000, 3), dtype)
    z = scz.compress(a, codec="gfc", dim=3)
    assert scz.info(z)["knobs"][0] == 3
    assert scz.decompress(z).tobytes() == a.tobytes()


@pytest.mark.skipif(not available("lzss"), reason="lzss not in this build")
def test_lzss_exact():
    a = (np.arange(100000) % 1000).astype(np.uint32)
    z = scz.compress(a, codec="lzss")
    assert np.array_equal(scz.decompress(z), a)


def test_special_shapes_and_layouts():
    a = smooth((20, 30))
    t = a.T  # not C-contiguous: compressed in its own (C) order
    assert np.array_equal(scz.decompress(scz.compress(t)), t)
    assert np.array_equal(scz.decompress(scz.compress(a[::2, 1::3])), a[::2, 1::3])
    s = np.float64(3.5)
    assert scz.decompress(scz.compress(np.array(s))).tolist() == [3.5]
    e = np.zeros((0, 5), np.float32)
    b = scz.decompress(scz.compress(e))
    assert b.shape == (0, 5) and b.dtype == np.float32


def test_decompress_into_out():
    a = smooth((50, 60))
    z = scz.compress(a)
    out = np.empty_like(a)
    r = scz.decompress(z, out=out)
    assert r is out and np.array_equal(out, a)
    with pytest.raises(scz.SczError):
        scz.decompress(z, out=np.empty(10, np.float32))
    with pytest.raises(scz.SczError):
        scz.decompress(z, out=np.empty_like(a, dtype=np.float64))


def test_errors():
    a = smooth((100,))
    z = scz.compress(a, codec="lossy", mode="rel", bound=1e-3)
    with pytest.raises(scz.SczError) as e:
        scz.decompress(z[:-7])
    assert e.value.status and "truncat" in str(e.value)
    bad = bytearray(z)
    bad[len(bad) // 2 + 100 if len(bad) > 400 else -3] ^= 0x40
    with pytest.raises(scz.SczError) as e:
        scz.decompress(bytes(bad))
    assert "checksum" in str(e.value) or "corrupt" in str(e.value)
    with pytest.raises(scz.SczError):
        scz.compress(np.arange(10, dtype=np.int32))
    with pytest.raises(scz.SczError):
        scz.compress(a.astype(">f4"))
    with pytest.raises(scz.SczError):
        scz.compress(a, codec="lossy")  # no bound
    with pytest.raises(ValueError):
        scz.compress(a, codec="nosuch")
    with pytest.raises(ValueError):
        scz.compress(a, codec="lossy", mode="nosuch", bound=1)
    with pytest.raises(scz.SczError):
        scz.compress(np.arange(10, dtype=np.uint16), codec="ndzip")  # codec does not take the dtype
    with pytest.raises(scz.SczError):
        scz.info(b"not a stream at all")
    with pytest.raises(scz.SczError):
        scz.stats(a, a[:50])


def test_stats_match_numpy():
    a = smooth((30, 40), np.float64)
    b = a + RNG.uniform(-1e-3, 1e-3, a.shape)
    s = scz.stats(a, b)
    d = b - a
    rng = a.max() - a.min()
    assert s["max_abs_err"] == pytest.approx(np.abs(d).max(), rel=1e-12)
    assert s["rmse"] == pytest.approx(np.sqrt((d * d).mean()), rel=1e-9)
    assert s["psnr"] == pytest.approx(20 * np.log10(rng) - 10 * np.log10((d * d).mean()), rel=1e-9)
    assert s["count"] == a.size and s["range"] == pytest.approx(rng)


def test_context_and_threads():
    ctx = scz.Context(backend="cpu", threads=2)
    assert ctx.backend == "cpu"
    arrays = [smooth((64, 64, 16)) for _ in range(4)]
    results = [None] * len(arrays)

    def work(i):
        z = ctx.compress(arrays[i], codec="lossy", mode="abs", bound=1e-3)
        results[i] = ctx.decompress(z)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(arrays))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(arrays, results):
        assert np.abs(a - b).max() <= 1e-3
    with pytest.raises(ValueError):
        scz.Context(backend="tpu")


def test_same_stream_as_the_library():
    """The binding adds nothing: a stream is the library's, chunk sizes
    honoured, and a tool-made stream (when the scz tool is on PATH or in
    SCZ_TOOL) decodes the same."""
    a = smooth((64, 64, 64))
    z = scz.compress(a, chunk_bytes=65536)
    assert scz.info(z)["chunks"] == 16
    tool = os.environ.get("SCZ_TOOL")
    if tool and os.path.exists(tool):
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            raw, out = os.path.join(d, "a.f32"), os.path.join(d, "a.scz")
            a.tofile(raw)
            subprocess.run([tool, "-i", raw, "-z", out, "-t", "f32", "-3", "64", "64", "64", "-c", "lossy", "-M",
                            "REL", "1e-3"], check=True, capture_output=True)
            with open(out, "rb") as f:
                zt = f.read()
            assert zt == scz.compress(a, codec="lossy", mode="rel", bound=1e-3)


# ---- numcodecs ----


def test_entry_points():
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        dist = distribution("scz")
    except PackageNotFoundError:
        pytest.skip("the package is used from a build tree: entry points come with pip install (make python-test)")
    groups = {(e.group, e.name, e.value) for e in dist.entry_points}
    assert ("numcodecs.codecs", "scz", "scz.numcodecs:Scz") in groups
    assert ("zarr.codecs", "scz", "scz.zarr:SczCodec") in groups


def test_numcodecs_registry_and_config():
    numcodecs = pytest.importorskip("numcodecs")
    import scz.numcodecs  # noqa: F401  (registers; installed packages need no import: test_entry_points)

    codec = numcodecs.get_codec({"id": "scz", "codec": "lossy", "mode": "abs", "bound": 0.01, "radius": 256})
    from scz.numcodecs import Scz

    assert isinstance(codec, Scz)
    cfg = codec.get_config()
    again = numcodecs.get_codec(json.loads(json.dumps(cfg)))
    assert again.get_config() == cfg
    a = smooth((30, 40, 50))
    b = again.decode(again.encode(a))
    assert b.shape == a.shape and np.abs(a - b).max() <= 0.01
    out = np.empty_like(a)
    again.decode(again.encode(a), out=out)
    assert np.abs(a - out).max() <= 0.01
    lossless = numcodecs.get_codec({"id": "scz"})
    assert np.array_equal(lossless.decode(lossless.encode(a)), a)


# ---- zarr v3 ----


def test_zarr_v3(tmp_path):
    zarr = pytest.importorskip("zarr")
    if int(zarr.__version__.split(".")[0]) < 3:
        pytest.skip("zarr v3 needed")
    from scz.zarr import SczCodec

    x = smooth((100, 130, 40))
    path = str(tmp_path / "t.zarr")
    arr = zarr.create_array(store=path, shape=x.shape, chunks=(32, 64, 40), dtype="float32",
                            serializer=SczCodec(codec="lossy", mode="abs", bound=1e-3), compressors=None)
    arr[:] = x
    again = zarr.open_array(path, mode="r")  # the codec found by name through the entry point
    y = again[:]
    assert np.abs(y - x).max() <= 1e-3
    assert again[5:50, 7, 3:9].shape == (45, 6)
    meta = json.loads((tmp_path / "t.zarr" / "zarr.json").read_text())
    assert meta["codecs"][0]["name"] == "scz"
    lossless = zarr.create_array(store={}, shape=(50, 60), chunks=(16, 16), dtype="float64",
                                 serializer=SczCodec(), compressors=None)
    v = smooth((50, 60), np.float64)
    lossless[:] = v
    assert np.array_equal(lossless[:], v)


def test_zarr_with_dask_and_xarray(tmp_path):
    zarr = pytest.importorskip("zarr")
    da = pytest.importorskip("dask.array")
    if int(zarr.__version__.split(".")[0]) < 3:
        pytest.skip("zarr v3 needed")
    from scz.zarr import SczCodec

    x = smooth((96, 130, 40))
    z = zarr.create_array(store=str(tmp_path / "d.zarr"), shape=x.shape, chunks=(32, 64, 40), dtype="float32",
                          serializer=SczCodec(codec="lossy", mode="rel", bound=1e-4), compressors=None)
    da.store(da.from_array(x, chunks=(32, 64, 40)), z)  # written chunk by chunk by Dask's workers
    y = da.from_zarr(str(tmp_path / "d.zarr")).compute()
    assert np.abs(y - x).max() <= 1e-4 * (x.max() - x.min()) * 1.0001
    xr = pytest.importorskip("xarray")
    ds = xr.Dataset({"t": (("a", "b", "c"), x)}).chunk({"a": 32})
    path = str(tmp_path / "x.zarr")
    ds.to_zarr(path, mode="w", zarr_format=3, consolidated=False,
               encoding={"t": {"serializer": SczCodec(codec="lossy", mode="abs", bound=1e-3), "compressors": None}})
    back = xr.open_zarr(path, consolidated=False)["t"].values
    assert np.abs(back - x).max() <= 1e-3


# ---- CuPy ----


def _cupy():
    ok, _ = scz.backend_available("cuda")
    if not ok:
        pytest.skip("no CUDA backend here: " + scz.backend_available("cuda")[1])
    return pytest.importorskip("cupy")


@pytest.mark.parametrize("mode,bound", [("rel", 1e-3), ("psnr", 80.0)])
def test_cupy_device_arrays(mode, bound):
    cp = _cupy()
    a = smooth((64, 96, 80))
    d = cp.asarray(a)
    dz = scz.compress(d, codec="lossy", mode=mode, bound=bound)
    assert isinstance(dz, cp.ndarray) and dz.dtype == cp.uint8
    hz = scz.compress(a, codec="lossy", mode=mode, bound=bound)
    assert cp.asnumpy(dz).tobytes() == hz  # the GPU writes the CPU's bytes
    db = scz.decompress(dz)
    assert isinstance(db, cp.ndarray) and db.shape == a.shape
    assert np.array_equal(cp.asnumpy(db), scz.decompress(hz))
    lz = scz.compress(d)
    assert np.array_equal(cp.asnumpy(scz.decompress(lz)), a)


def test_cupy_dlpack():
    cp = _cupy()
    a = smooth((32, 64, 64))
    d = cp.asarray(a)

    class OnlyDLPack:  # a device array seen through DLPack alone
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            return self.x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

    dz = scz.compress(OnlyDLPack(d), codec="lossy", mode="abs", bound=1e-3)
    assert isinstance(dz, cp.ndarray)
    assert cp.asnumpy(dz).tobytes() == scz.compress(a, codec="lossy", mode="abs", bound=1e-3)


def test_cupy_context_host_arrays():
    _cupy()
    ctx = scz.Context(backend="cuda")
    a = smooth((128, 128, 64))
    z = ctx.compress(a, codec="lossy", mode="rel", bound=1e-3)
    assert z == scz.compress(a, codec="lossy", mode="rel", bound=1e-3)
    assert np.array_equal(ctx.decompress(z), scz.decompress(z))
