"""A numcodecs codec for scz (registered as ``scz`` through the
``numcodecs.codecs`` entry point): zarr v2 arrays, xarray/Dask through zarr
v2, and anything else that takes a numcodecs codec.

    from scz.numcodecs import Scz
    z = zarr.open(..., compressor=Scz(codec="lossy", mode="rel", bound=1e-3))

The codec sees the chunk as an array (dtype and shape), so lossy and the
float codecs work; given raw bytes it compresses them as uint8 (huffman).
"""

from __future__ import annotations

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray, ensure_ndarray, ndarray_copy
from numcodecs.registry import register_codec

from . import compress, decompress


class Scz(Codec):
    """scz as a numcodecs codec. Parameters as :func:`scz.compress`:
    codec, mode, bound, knobs (6 ints, as scz.h) or named options (lossy:
    radius, workflow; gfc: dim), chunk_bytes."""

    codec_id = "scz"

    def __init__(self, codec=None, mode=None, bound=0.0, knobs=None, chunk_bytes=0, **options):
        self.codec = codec
        self.mode = mode
        self.bound = float(bound)
        self.knobs = list(knobs) if knobs is not None else None
        self.chunk_bytes = int(chunk_bytes)
        self.options = dict(options)

    def encode(self, buf):
        a = ensure_ndarray(buf)
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        return compress(a, self.codec, self.mode, self.bound, knobs=self.knobs, chunk_bytes=self.chunk_bytes,
                        **self.options)

    def decode(self, buf, out=None):
        z = ensure_contiguous_ndarray(buf).view("u1")
        a = decompress(z)
        if out is not None:
            return ndarray_copy(a, out)
        return a

    def get_config(self):
        cfg = {"id": self.codec_id, "codec": self.codec, "mode": self.mode, "bound": self.bound,
               "knobs": self.knobs, "chunk_bytes": self.chunk_bytes}
        cfg.update(self.options)
        return cfg

    def __repr__(self):
        return (f"Scz(codec={self.codec!r}, mode={self.mode!r}, bound={self.bound!r}, knobs={self.knobs!r}, "
                f"chunk_bytes={self.chunk_bytes!r}" + "".join(f", {k}={v!r}" for k, v in self.options.items()) + ")")


# Installed packages are found through the entry point; this also serves
# a package used from a build tree.
register_codec(Scz)
