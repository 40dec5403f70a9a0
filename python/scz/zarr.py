"""A zarr v3 array-to-bytes codec for scz (registered as ``scz`` through
zarr's ``zarr.codecs`` entry point):

    import zarr
    from scz.zarr import SczCodec
    a = zarr.create_array(store, shape=..., chunks=..., dtype="float32",
                          serializer=SczCodec(codec="lossy", mode="rel", bound=1e-3),
                          compressors=None)

Each chunk becomes one scz stream (it carries its own shape, dtype and
checksums). xarray's ``to_zarr`` takes it in ``encoding={"var": {"serializer":
SczCodec(...), "compressors": None}}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from zarr.abc.codec import ArrayBytesCodec
from zarr.core.buffer import Buffer, NDBuffer
from zarr.core.common import parse_named_configuration
from zarr.registry import register_codec

from . import compress, decompress


@dataclass(frozen=True)
class SczCodec(ArrayBytesCodec):
    """scz as a zarr v3 serializer (array to bytes). Parameters as
    :func:`scz.compress`; lossy takes ``radius`` and ``workflow`` in
    ``options``, gfc ``dim``."""

    is_fixed_size = False

    codec: str | None = None
    mode: str | None = None
    bound: float = 0.0
    knobs: tuple | None = None
    chunk_bytes: int = 0
    options: tuple = ()

    def __init__(self, *, codec=None, mode=None, bound=0.0, knobs=None, chunk_bytes=0, **options):
        object.__setattr__(self, "codec", codec)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "bound", float(bound))
        object.__setattr__(self, "knobs", tuple(int(k) for k in knobs) if knobs is not None else None)
        object.__setattr__(self, "chunk_bytes", int(chunk_bytes))
        object.__setattr__(self, "options", tuple(sorted(options.items())))

    @classmethod
    def from_dict(cls, data):
        _, cfg = parse_named_configuration(data, "scz", require_configuration=False)
        return cls(**(cfg or {}))

    def to_dict(self):
        cfg = {"bound": self.bound, "chunk_bytes": self.chunk_bytes}
        if self.codec is not None:
            cfg["codec"] = self.codec
        if self.mode is not None:
            cfg["mode"] = self.mode
        if self.knobs is not None:
            cfg["knobs"] = list(self.knobs)
        cfg.update(dict(self.options))
        return {"name": "scz", "configuration": cfg}

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec) -> Buffer | None:
        a = np.ascontiguousarray(chunk_array.as_numpy_array())
        z = compress(a, self.codec, self.mode, self.bound, knobs=self.knobs, chunk_bytes=self.chunk_bytes,
                     **dict(self.options))
        return chunk_spec.prototype.buffer.from_bytes(z)

    def _decode_sync(self, chunk_bytes: Buffer, chunk_spec) -> NDBuffer:
        a = decompress(chunk_bytes.as_numpy_array().view("u1"))
        if a.shape != tuple(chunk_spec.shape):
            a = a.reshape(chunk_spec.shape)
        return chunk_spec.prototype.nd_buffer.from_numpy_array(a)

    async def _encode_single(self, chunk_array: NDBuffer, chunk_spec) -> Buffer | None:
        return self._encode_sync(chunk_array, chunk_spec)

    async def _decode_single(self, chunk_bytes: Buffer, chunk_spec) -> NDBuffer:
        return self._decode_sync(chunk_bytes, chunk_spec)

    def compute_encoded_size(self, input_byte_length: int, _chunk_spec) -> int:
        raise NotImplementedError("scz streams have a variable size")


# Installed packages are found through the entry point; this also serves
# a package used from a build tree.
register_codec("scz", SczCodec)
