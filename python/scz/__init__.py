"""scz: compression of scientific arrays on GPUs and CPUs (numpy and CuPy).

    import numpy as np, scz
    a = np.random.rand(64, 128, 256).astype(np.float32)
    z = scz.compress(a, codec="lossy", mode="rel", bound=1e-3)   # bytes
    b = scz.decompress(z)                                          # numpy array, dtype and shape from the stream
    scz.stats(a, b)["max_abs_err"] <= scz.info(z)["abs_bound"]

Shapes follow numpy (C order, slowest first). Arrays exposing
``__cuda_array_interface__`` or a CUDA DLPack device (CuPy, PyTorch CUDA
tensors, Numba, JAX) are compressed on the GPU straight from device memory and come back as CuPy
arrays (docs/PYTHON.md). Errors raise :class:`SczError` with the library's
message.
"""

from __future__ import annotations

import numpy as np

from . import _scz
from ._scz import Context as _Context
from ._scz import SczError

__all__ = [
    "Context",
    "SczError",
    "compress",
    "decompress",
    "info",
    "stats",
    "codecs",
    "backend_available",
    "DTYPES",
]

__version__ = "0.1.0"

#: numpy dtypes the library takes, by the library's names
DTYPES = {
    np.dtype("float32"): "f32",
    np.dtype("float64"): "f64",
    np.dtype("uint8"): "u8",
    np.dtype("uint16"): "u16",
    np.dtype("uint32"): "u32",
    np.dtype("uint64"): "u64",
}
_NP = {v: k for k, v in DTYPES.items()}

_KNOB_NAMES = {
    "lossy": ("radius", "workflow", "level"),
    "gfc": ("dim",),
}
_WORKFLOWS = {"auto": 0, "huffman": 1, "rle": 2, "run-length": 2}


def _dtype_name(dt) -> str:
    dt = np.dtype(dt)
    if dt.byteorder == ">" or (dt.byteorder == "=" and not np.little_endian):
        raise SczError(f"big-endian arrays are not supported (dtype {dt}); convert with astype")
    name = DTYPES.get(dt.newbyteorder("="))
    if name is None:
        raise SczError(
            f"unsupported dtype {dt}: scz takes float32, float64, uint8, uint16, uint32, uint64"
        )
    return name


def _knobs(codec: str, knobs, options: dict):
    """The codec's knobs (scz.h), from a sequence or from named options."""
    k = [0] * 6
    if knobs is not None:
        for i, v in enumerate(knobs):
            k[i] = int(v)
    names = _KNOB_NAMES.get(codec, ())
    for key, value in options.items():
        if key not in names:
            raise TypeError(f"unexpected option {key!r} for codec {codec!r} (takes {', '.join(names) or 'none'})")
        if key == "workflow" and isinstance(value, str):
            if value not in _WORKFLOWS:
                raise ValueError(f"workflow must be one of {sorted(_WORKFLOWS)}")
            value = _WORKFLOWS[value]
        k[names.index(key)] = int(value)
    return tuple(k)


def _bytes_view(a: np.ndarray) -> np.ndarray:
    """The bytes of a C-contiguous array, without a copy."""
    return a.reshape(-1).view(np.uint8)


def _default_codec(dtype_name: str) -> str:
    """ndzip for floats, huffman for u8/u16/u32, lzss for u64 (as the scz tool)."""
    return "ndzip" if dtype_name in ("f32", "f64") else "lzss" if dtype_name == "u64" else "huffman"


_DLPACK_CUDA = (2, 3, 13)  # kDLCUDA, kDLCUDAHost, kDLCUDAManaged


def _cuda_interface(a):
    """The array's CUDA array interface, or a marker for a DLPack-only CUDA
    array (PyTorch and others), else None (a host array)."""
    cai = getattr(a, "__cuda_array_interface__", None)
    if cai is not None:
        return cai
    dev = getattr(a, "__dlpack_device__", None)
    if dev is not None and not isinstance(a, np.ndarray):
        try:
            if dev()[0] in _DLPACK_CUDA:
                return {"dlpack": True}
        except Exception:
            return None
    return None


def _as_cupy(cp, a, cai):
    return cp.from_dlpack(a) if cai.get("dlpack") else cp.asarray(a)


class Context(_Context):
    """A reusable context: ``Context(backend="cpu" | "cuda", threads=0)``.

    A context keeps its scratch memory (host, and device memory on a CUDA
    context) between calls; one call at a time runs on a context (calls from
    several threads are serialised). On a CUDA context, host arrays are
    streamed through the GPU and device arrays stay on it.
    """

    def compress(self, array, codec: str | None = None, mode: str | None = None, bound: float = 0.0,
                 knobs=None, chunk_bytes: int = 0, **options):
        """Compresses an array; returns the stream (bytes, or a CuPy uint8
        array for a device array)."""
        cai = _cuda_interface(array)
        if cai is not None:
            return self._compress_device(array, cai, codec, mode, bound, knobs, chunk_bytes, options)
        a = np.asarray(array)
        dn = _dtype_name(a.dtype)
        if a.ndim == 0:
            a = a.reshape(1)
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        codec = codec or _default_codec(dn)
        mode = mode or ("rel" if codec == "lossy" else "")
        if codec == "lossy" and not bound and mode != "none":
            raise SczError("lossy compression needs a bound (mode='abs'|'rel'|'psnr', bound=...)")
        return _Context.compress(self, _bytes_view(a), dn, a.shape, codec, mode, float(bound),
                                 _knobs(codec, knobs, options), int(chunk_bytes))

    def decompress(self, stream, out=None):
        """Decompresses a stream into a new array (or into ``out``, which must
        have the stream's dtype and size). A CuPy stream decodes on the GPU
        into a CuPy array."""
        cai = _cuda_interface(stream)
        if cai is not None:
            return self._decompress_device(stream, cai, out)
        z = stream if isinstance(stream, (bytes, bytearray)) else _bytes_view(np.asarray(stream))
        meta = _scz.info(z)
        dt = _NP[meta["dtype"]]
        if out is None:
            out = np.empty(meta["shape"], dtype=dt)
        else:
            if np.dtype(out.dtype) != dt or out.size != int(np.prod(meta["shape"])):
                raise SczError(f"out must hold {meta['shape']} {dt}, got {out.shape} {out.dtype}")
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise SczError("out must be a writable C-contiguous array")
        if out.size:
            _Context.decompress_into(self, z, _bytes_view(out))
        return out

    # ---- device arrays (CuPy and anything with __cuda_array_interface__) ----

    def _device_ready(self):
        if self.backend != "cuda":
            raise SczError("device arrays need a CUDA context: scz.Context(backend='cuda')")
        import cupy  # noqa: F401  (the returned buffers are CuPy arrays)

        return cupy

    def _compress_device(self, array, cai, codec, mode, bound, knobs, chunk_bytes, options):
        cp = self._device_ready()
        a = _as_cupy(cp, array, cai)
        if not a.flags.c_contiguous:
            a = cp.ascontiguousarray(a)
        dn = _dtype_name(a.dtype)
        if a.ndim == 0:
            a = a.reshape(1)
        codec = codec or _default_codec(dn)
        mode = mode or ("rel" if codec == "lossy" else "")
        k = _knobs(codec, knobs, options)
        cap = _scz.compress_bound(dn, a.shape, codec, mode, float(bound), k, int(chunk_bytes))
        if cap == 0:
            raise SczError("invalid shape or parameters")
        z = cp.empty(cap, dtype=cp.uint8)
        size = cp.zeros(1, dtype=cp.uint64)
        stream = cp.cuda.get_current_stream()
        _Context.compress_device(self, a.data.ptr, dn, a.shape, z.data.ptr, cap, size.data.ptr, stream.ptr, codec,
                                 mode, float(bound), k, int(chunk_bytes))
        n = int(size.get(stream=stream)[0])
        return z[:n]

    def _decompress_device(self, stream_arr, cai, out):
        cp = self._device_ready()
        z = _as_cupy(cp, stream_arr, cai)
        if z.dtype != cp.uint8 or z.ndim != 1 or not z.flags.c_contiguous:
            raise SczError("a device stream must be a 1-D contiguous uint8 array")
        meta = _scz.header_info(cp.asnumpy(z[: min(z.size, 128)]).tobytes())  # 128 bytes to the host
        dt = _NP[meta["dtype"]]
        if out is None:
            out = cp.empty(meta["shape"], dtype=dt)
        elif np.dtype(out.dtype) != dt or out.size != int(np.prod(meta["shape"])) or not out.flags.c_contiguous:
            raise SczError(f"out must be a C-contiguous {meta['shape']} {dt} device array")
        stream = cp.cuda.get_current_stream()
        if out.size:
            _Context.decompress_device(self, z.data.ptr, z.size, out.data.ptr, out.nbytes, stream.ptr)
        return out


_default = {}


def _ctx(backend: str, threads: int) -> Context:
    key = (backend, threads)
    c = _default.get(key)
    if c is None:
        c = _default[key] = Context(backend=backend, threads=threads)
    return c


def compress(array, codec: str | None = None, mode: str | None = None, bound: float = 0.0, *, knobs=None,
             chunk_bytes: int = 0, backend: str | None = None, threads: int = 0, **options):
    """Compresses a numpy (or CuPy) array into an scz stream.

    codec: "ndzip" (lossless float, default for floats), "lossy", "huffman"
    (lossless integers, default for uint), "gfc", "lzss" where built.
    mode / bound: for lossy, "abs" | "rel" (default) | "psnr" and the bound.
    Codec options by name: lossy ``radius=``, ``workflow="auto"|"huffman"|"rle"``,
    ``level=`` (0 default, 1 high ratio: FORMAT.md 7.9);
    gfc ``dim=``; or ``knobs=`` as in scz.h. backend: "cpu" (default for
    host arrays) or "cuda" (default for device arrays).
    """
    if backend is None:
        backend = "cuda" if _cuda_interface(array) is not None else "cpu"
    return _ctx(backend, threads).compress(array, codec, mode, bound, knobs, chunk_bytes, **options)


def decompress(stream, out=None, *, backend: str | None = None, threads: int = 0):
    """Decompresses an scz stream into a new numpy array (dtype and shape
    from the stream), or into ``out``. A device stream decodes on the GPU."""
    if backend is None:
        backend = "cuda" if _cuda_interface(stream) is not None else "cpu"
    return _ctx(backend, threads).decompress(stream, out)


def info(stream) -> dict:
    """The stream's header: dtype, shape (C order), codec, mode, bound and
    the absolute bound used, knobs, raw and stream sizes, chunks."""
    return _scz.info(stream if isinstance(stream, (bytes, bytearray)) else _bytes_view(np.asarray(stream)))


def stats(original, decoded) -> dict:
    """Error statistics of a decoded array against the original, in double
    precision: max_abs_err, max_rel_err (of the value range), rmse, nrmse,
    psnr, mean_abs_err, and NaN/Inf reproduction (nonfinite_mismatch)."""
    a = np.ascontiguousarray(original)
    b = np.ascontiguousarray(decoded)
    if a.shape != b.shape or a.dtype != b.dtype:
        raise SczError(f"stats needs arrays of one shape and dtype, got {a.shape} {a.dtype} and {b.shape} {b.dtype}")
    dn = _dtype_name(a.dtype)
    return _scz.stats(dn, _bytes_view(a), _bytes_view(b))


def codecs() -> list:
    """The codecs of this build: name, available, lossless, gpu."""
    return _scz.codecs()


def backend_available(backend: str = "cuda"):
    """(True, "") if the backend can run here, else (False, why)."""
    return _scz.backend_available(backend)
