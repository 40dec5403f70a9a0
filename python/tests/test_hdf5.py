"""The scz HDF5 filter through h5py (needs h5py and the plugin of a build)."""

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
import scz  # noqa: E402
import scz.hdf5  # noqa: E402


@pytest.fixture(scope="module")
def plugin():
    d = scz.hdf5.plugin_dir()
    if d is None:
        pytest.skip("the HDF5 plugin libh5z_scz.so is not built (libhdf5-dev) nor on HDF5_PLUGIN_PATH")
    h5py.h5pl.prepend(d.encode())
    if not h5py.h5z.filter_avail(scz.hdf5.FILTER_ID):
        pytest.skip("h5py's HDF5 does not load the plugin: the plugin is linked to another libhdf5 "
                    "(an h5py wheel carries its own; the plugin says which on stderr)")
    return d


def field(shape, dtype):
    z, y, x = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    return (np.sin(0.05 * x) * np.cos(0.07 * y) + 0.3 * np.sin(0.11 * z)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("codec", ["ndzip", "gfc", "lzss", None])
def test_lossless(tmp_path, plugin, dtype, codec):
    a = field((20, 33, 47), dtype)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(8, 16, 16), **scz.hdf5.filter_args(codec))
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert f["a"]._filters[str(scz.hdf5.FILTER_ID)][0] == (scz.hdf5.cd_values(codec)[0] or 1)
        b = f["a"][...]
    assert b.dtype == a.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("mode,bound", [("abs", 1e-3), ("rel", 1e-4)])
def test_lossy(tmp_path, plugin, mode, bound):
    a = field((20, 33, 47), "float32")
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(8, 16, 16), **scz.hdf5.filter_args("lossy", mode, bound))
    with h5py.File(tmp_path / "a.h5", "r") as f:
        b = f["a"][...]
    err = np.abs(a.astype(np.float64) - b).max()
    limit = bound if mode == "abs" else bound * float(a.max() - a.min())
    assert 0 < err <= limit


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "int32", "int64"])
def test_integers(tmp_path, plugin, dtype):
    a = (np.arange(40 * 50) // 3 % 200).astype(dtype).reshape(40, 50)
    with h5py.File(tmp_path / "a.h5", "w") as f:
        f.create_dataset("a", data=a, chunks=(16, 16), **scz.hdf5.filter_args("lzss"))
    with h5py.File(tmp_path / "a.h5", "r") as f:
        assert np.array_equal(f["a"][...], a)


def test_bad_arguments():
    with pytest.raises(ValueError):
        scz.hdf5.cd_values("lossy", "none")
    with pytest.raises(ValueError):
        scz.hdf5.cd_values("ndzip", "abs", 1e-3)
    with pytest.raises(ValueError):
        scz.hdf5.cd_values("nope")
    cd = scz.hdf5.cd_values("lossy", "abs", 1e-3)
    assert len(cd) == 11 and cd[:2] == (2, 1) and (cd[3] << 32 | cd[2]) == 0x3F50624DD2F1A9FC


def test_refused_on_integers(tmp_path, plugin):
    with h5py.File(tmp_path / "a.h5", "w") as f:
        with pytest.raises((ValueError, OSError, RuntimeError)):
            f.create_dataset("a", data=np.zeros((10, 10), np.int32), chunks=(5, 5),
                             **scz.hdf5.filter_args("lossy", "abs", 1e-3))
