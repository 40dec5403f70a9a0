"""Runs python/tests with pytest against the package of a build directory
(argv[1], holding scz/ with the module), for CTest: exit 77 (skipped) with
the reason when numpy or pytest is missing."""
import os
import sys

pkg_dir, tests_dir = sys.argv[1], sys.argv[2]
missing = []
for name in ("numpy", "pytest"):
    try:
        __import__(name)
    except ImportError:
        missing.append(name)
if missing:
    print("skipped: " + ", ".join(missing) + " not installed for " + sys.executable +
          " (make python-env installs the tests' packages)")
    sys.exit(77)
sys.path.insert(0, pkg_dir)
os.environ["PYTHONPATH"] = pkg_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
import pytest  # noqa: E402

sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", tests_dir]))
