# Thin wrapper over CMake. `make demo` and `make test` are the README's two
# set-up commands.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all demo test bench asan fp-check install clean python-test python-env

all: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

demo: all
	./$(BUILD)/tools/scz demo

test: all
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: all
	./$(BUILD)/bench/scz_bench $(BENCH_ARGS)

asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DSCZ_SANITIZE=ON -DSCZ_BUILD_BENCH=OFF -DSCZ_CUDA=OFF -DSCZ_PYTHON=OFF $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir $(ASAN_BUILD) --output-on-failure -j $(JOBS)

# The lossy bound must not depend on how the library is compiled: the suite
# once more with gcc in GNU C mode (contraction on by default), -O3
# -march=native, and with clang -ffp-contract=fast, both without the
# project's floating-point flags.
fp-check:
	cmake -S . -B build-fp-gcc -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=gcc -DCMAKE_C_FLAGS="-O3 -march=native" \
	  -DCMAKE_C_EXTENSIONS=ON -DSCZ_FP_FLAGS=OFF -DSCZ_CUDA=OFF -DSCZ_PYTHON=OFF -DSCZ_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build-fp-gcc -j $(JOBS)
	ctest --test-dir build-fp-gcc --output-on-failure -j $(JOBS)
	cmake -S . -B build-fp-clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_C_FLAGS="-O3 -march=native -ffp-contract=fast" -DCMAKE_C_EXTENSIONS=ON -DSCZ_FP_FLAGS=OFF \
	  -DSCZ_CUDA=OFF -DSCZ_PYTHON=OFF -DSCZ_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build build-fp-clang -j $(JOBS)
	ctest --test-dir build-fp-clang --output-on-failure -j $(JOBS)

# The Python package (docs/PYTHON.md): `pip install .` into a virtual
# environment, then its tests (numpy, numcodecs, zarr, pytest from PyPI).
# PY_CMAKE_ARGS passes CMake settings to the build, e.g.
# PY_CMAKE_ARGS="-C cmake.define.SCZ_CUDA=OFF" for a faster CPU-only build.
PYTHON ?= python3
PY_VENV ?= build-py-venv
PY_CMAKE_ARGS ?=
PY_TEST_DEPS ?= numpy pytest numcodecs "zarr>=3" dask xarray
# A virtual environment with the packages of the Python tests: the next
# configure of $(BUILD) takes its interpreter, and `make test` then runs
# python/tests (tests/python.cmake).
python-env:
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install -q --upgrade pip
	$(PY_VENV)/bin/python -m pip install -q $(PY_TEST_DEPS)
	rm -f $(BUILD)/CMakeCache.txt

python-test: all
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install -q --upgrade pip
	$(PY_VENV)/bin/python -m pip install -q $(PY_CMAKE_ARGS) ".[test]"
	cd python/tests && SCZ_TOOL=$(CURDIR)/$(BUILD)/tools/scz $(CURDIR)/$(PY_VENV)/bin/python -m pytest -q -rs

install: all
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX),)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fp-gcc build-fp-clang

# ThreadSanitizer: the suite (tests/test_concurrency.c above all: separate
# contexts from 4 threads at once) built with clang and LLVM's OpenMP
# runtime, libomp. Not gcc: libgomp is not instrumented, so TSan sees no
# ordering at its barriers and reports every parallel region as a race
# (setting 1 OpenMP thread per context would hide those, and the races
# inside the library's own parallel regions with them). libomp ships
# Archer (libarcher.so, Debian package libomp-dev), which it loads when the
# program runs under TSan and which tells TSan about OpenMP's barriers,
# locks and reductions; ignore_noninstrumented_modules=1 (Archer asks for
# it) keeps TSan out of the runtime's own code. So contexts run with their
# real thread counts. The install test is left out: a sanitized library
# needs the TSan runtime in the consumer program.
TSAN_BUILD ?= build-tsan
TSAN_CC ?= clang

.PHONY: tsan clean-tsan

tsan:
	@command -v $(TSAN_CC) >/dev/null || { echo "make tsan: needs $(TSAN_CC) and libomp (Debian: apt-get install clang libomp-dev)"; exit 1; }
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_C_COMPILER=$(TSAN_CC) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCZ_CUDA=OFF -DSCZ_PYTHON=OFF \
	  -DSCZ_BUILD_BENCH=OFF "-DCMAKE_C_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
	  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1" \
	  ctest --test-dir $(TSAN_BUILD) --output-on-failure -j $(JOBS) -E '^install$$'

clean: clean-tsan
clean-tsan:
	rm -rf $(TSAN_BUILD)

# libFuzzer targets (docs/FUZZING.md): clang with ASan + UBSan, a build of
# its own. `make fuzz` builds them and generates the seed corpora;
# `make fuzz-run` runs each for FUZZ_TIME seconds.
.PHONY: fuzz fuzz-run fuzz-clean
FUZZ_BUILD ?= build-fuzz
FUZZ_TIME ?= 60
fuzz:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCZ_FUZZ=ON -DSCZ_CUDA=OFF -DSCZ_PYTHON=OFF \
	  -DSCZ_BUILD_TOOLS=OFF -DSCZ_BUILD_TESTS=OFF -DSCZ_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	rm -rf $(FUZZ_BUILD)/fuzz-seeds
	$(FUZZ_BUILD)/tests/fuzz/fuzz_seeds $(FUZZ_BUILD)/fuzz-seeds

fuzz-run: fuzz
	./tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-clean:
	rm -rf $(FUZZ_BUILD)
clean: fuzz-clean
