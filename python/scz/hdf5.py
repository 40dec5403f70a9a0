"""The scz HDF5 filter from h5py (docs/HDF5.md).

The filter itself is the plugin ``libh5z_scz.so`` of a CMake build
(``BUILD/hdf5-plugin``, installed to ``LIBDIR/hdf5/plugins``); HDF5 finds it
through ``HDF5_PLUGIN_PATH`` (or ``h5py.h5pl.prepend``). This module only
spells the filter's parameters::

    import h5py, scz.hdf5
    with h5py.File("out.h5", "w") as f:
        f.create_dataset("t", data=a, chunks=(16, 256, 256),
                         **scz.hdf5.filter_args("lossy", mode="abs", bound=1e-3))

``filter_args`` returns ``{"compression": 378, "compression_opts": (...)}``
(the cd_values: codec, bound mode, the bound as two 32-bit words, knobs,
flags); the plugin's set_local adds the dtype and chunk shape itself.
"""

from __future__ import annotations

import os
import struct

__all__ = ["FILTER_ID", "filter_args", "cd_values", "plugin_dir"]

#: From HDF5's range for testing (256-511) until an id is registered.
FILTER_ID = 378

_CODECS = {"ndzip": 1, "lossy": 2, "huffman": 3, "gfc": 4, "lzss": 5}
_MODES = {"none": 0, "abs": 1, "rel": 2, "psnr": 3}
_WORKFLOWS = {"auto": 0, "huffman": 1, "rle": 2}
_NUM_KNOBS = 6


def cd_values(codec=None, mode=None, bound=0.0, *, radius=0, workflow=0, knobs=None, cuda=False):
    """The filter's cd_values (a tuple of 11 unsigned ints).

    codec: "ndzip", "lossy", "huffman", "gfc", "lzss" or None (the default
    for the dataset's dtype: ndzip for floats, huffman for 1-4 byte integers,
    lzss for 8-byte ones). mode: "abs", "rel", "psnr" for lossy (default
    "rel"), None for the lossless codecs. REL and PSNR hold per HDF5 chunk
    (each chunk is its own stream, with its own value range). radius and
    workflow ("auto", "huffman", "rle") are the lossy codec's knobs; knobs
    gives all six raw (scz_params.knobs). cuda: compress on a GPU where the
    plugin was built with CUDA (the CPU otherwise)."""
    c = 0
    if codec is not None:
        if codec not in _CODECS:
            raise ValueError(f"unknown codec {codec!r} (one of {', '.join(_CODECS)})")
        c = _CODECS[codec]
    if mode is None:
        mode = "rel" if codec == "lossy" else "none"
    if mode not in _MODES:
        raise ValueError(f"unknown mode {mode!r} (one of {', '.join(_MODES)})")
    m = _MODES[mode]
    if codec == "lossy" and m == 0:
        raise ValueError("the lossy codec needs a bound mode: abs, rel or psnr")
    if codec != "lossy" and m != 0:
        raise ValueError(f"a bound ({mode}) needs codec='lossy'")
    if m != 0 and not (bound > 0):
        raise ValueError("the bound must be positive")
    k = [0] * _NUM_KNOBS
    if knobs is not None:
        knobs = list(knobs)
        if len(knobs) > _NUM_KNOBS:
            raise ValueError(f"at most {_NUM_KNOBS} knobs")
        k[: len(knobs)] = knobs
    if radius:
        k[0] = int(radius)
    if workflow:
        k[1] = _WORKFLOWS[workflow] if isinstance(workflow, str) else int(workflow)
    (bits,) = struct.unpack("<Q", struct.pack("<d", float(bound) if m else 0.0))
    return (c, m, bits & 0xFFFFFFFF, bits >> 32, *[int(x) for x in k], 1 if cuda else 0)


def filter_args(codec=None, mode=None, bound=0.0, **kw):
    """``compression`` and ``compression_opts`` for h5py's create_dataset
    (arguments as :func:`cd_values`)."""
    return {"compression": FILTER_ID, "compression_opts": cd_values(codec, mode, bound, **kw)}


def plugin_dir():
    """The directory holding libh5z_scz.so: HDF5_PLUGIN_PATH's entries, then
    the build tree beside this package (BUILD/python/scz -> BUILD/hdf5-plugin);
    None if not found."""
    here = os.path.dirname(os.path.abspath(__file__))
    cands = [p for p in os.environ.get("HDF5_PLUGIN_PATH", "").split(os.pathsep) if p]
    cands.append(os.path.join(here, "..", "..", "hdf5-plugin"))
    for d in cands:
        if os.path.exists(os.path.join(d, "libh5z_scz.so")):
            return os.path.normpath(d)
    return None
