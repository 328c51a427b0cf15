# Makefile - the README contract: `make run`, `make stop`, `make check`.
#
# CMake does the real build; this file only strings the steps together.
#   make build   configure + build into build/
#   make run     install missing Debian packages, build, start the loopback
#                cluster in ./run (scripts/local-cluster.sh up), show it;
#                NODES=N: N cpu nodes instead of two
#   make stop    stop that cluster
#   make check   test packages, build, structure guards, unit tests (ctest),
#                integration tests (pytest, INTEGRATION_JOBS modules at a time)
#   make check SANITIZE=1  the same on an ASan/UBSan build in build-asan/
#                (what .ci/run does); SANITIZE=address picks the sanitizers
#   make check-fast  make check without the tests marked slow
#   make structure  no call/include cycle in a folder of src/, folder rules, size limits
#   make asan    build into build-asan with ASan+UBSan and run the unit tests there
#   make chaos   the chaos run (tests/chaos): a workload while daemons are
#                SIGKILLed at random for CHAOS_SECONDS (900; CI runs 60), then
#                its invariants; CHAOS_SEED=N repeats a run's plan and kills
#   make fuzz    the libFuzzer targets of tests/fuzz, FUZZ_SECONDS (30) each
#   make flake-hunt  .ci/run FLAKE_RUNS (3) times in a row beside a chaos
#                run that loads the machine (scripts/flake-hunt.sh)
#   make bench   every benchmark of bench/, one table (bench/suite.py;
#                BENCH_ARGS=--quick for small sizes, --with-slurm to run
#                each workload on Debian's Slurm 22.05 too, for ratios)
#   make clean   remove the build directories
# Integration tests can run against another build: SL_BUILD_DIR=build-asan make integration
# One module alone: SL_BUILD_DIR=$PWD/build /usr/bin/python3 -m pytest -q tests/integration/test_steps.py

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

comma := ,
SANITIZE ?=
ifneq ($(SANITIZE),)
SANITIZERS := $(if $(filter 1 yes,$(SANITIZE)),address$(comma)undefined,$(SANITIZE))
BUILD_DIR ?= build-asan
CMAKE_ARGS ?= -DSANITIZE=$(SANITIZERS) -DCMAKE_BUILD_TYPE=Debug
# sanitized daemons are slower: every deadline of the integration tests x3
export SL_TIMEOUT_SCALE ?= 3
UNIT_ENV := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
else
BUILD_DIR ?= build
CMAKE_ARGS ?=
UNIT_ENV :=
endif
ASAN_DIR ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# pytest comes from Debian's python3-pytest; the python3 on PATH may be
# another interpreter (pyenv) without it.
PYTHON ?= /usr/bin/python3
PYTEST_ARGS ?= -q
# Integration modules side by side (pytest-xdist): they mostly wait on
# daemons, so more workers than cores pay off. Each module keeps one
# worker (its cluster is module-scoped); INTEGRATION_JOBS=0 runs them in
# one process, in order.
INTEGRATION_JOBS ?= 4
PYTEST_XDIST := $(if $(filter-out 0,$(INTEGRATION_JOBS)),-n $(INTEGRATION_JOBS) --dist loadgroup)

export SL_BUILD_DIR ?= $(abspath $(BUILD_DIR))

.PHONY: all deps deps-test build run demo stop status check check-fast structure unit integration \
	chaos asan asan-integration fuzz flake-hunt bench clean distclean

all: build

deps:
	scripts/install-deps.sh

deps-test:
	scripts/install-deps.sh --test

build:
	cmake -S . -B $(BUILD_DIR) $(CMAKE_ARGS)
	cmake --build $(BUILD_DIR) -j$(JOBS)

run:
	$(MAKE) --no-print-directory deps
	$(MAKE) --no-print-directory build
	SL_BUILD_DIR=$(abspath $(BUILD_DIR)) scripts/local-cluster.sh up $(if $(NODES),--nodes $(NODES))
	$(MAKE) --no-print-directory demo

# A short tour of the running cluster with the built commands.
demo:
	SL_BUILD_DIR=$(abspath $(BUILD_DIR)) scripts/demo.sh

stop:
	scripts/local-cluster.sh down

status:
	scripts/local-cluster.sh status

check:
	$(MAKE) --no-print-directory deps-test
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory structure
	$(MAKE) --no-print-directory unit
	$(MAKE) --no-print-directory integration

check-fast:
	$(MAKE) --no-print-directory check PYTEST_ARGS="$(PYTEST_ARGS) -m 'not slow'"

# docs/architecture.md: one-way folders and files (reads the built objects).
structure:
	scripts/check-structure.sh $(BUILD_DIR)

unit:
	$(UNIT_ENV) ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)

integration:
	$(PYTHON) -m pytest $(PYTEST_XDIST) $(PYTEST_ARGS) tests/integration

# Not part of `make check` (tests/chaos is not collected there): its own
# target, and a 60 s run in .ci/run. The invariant table is printed (-s)
# and written to CHAOS_REPORT.
CHAOS_SECONDS ?= 900
CHAOS_REPORT ?= $(abspath $(BUILD_DIR))/chaos-report.md
CHAOS_CI ?=
CHAOS_SEED ?=
chaos: export CHAOS_CI := $(CHAOS_CI)
chaos: export CHAOS_SEED := $(CHAOS_SEED)
chaos:
	CHAOS_SECONDS=$(CHAOS_SECONDS) CHAOS_REPORT=$(CHAOS_REPORT) \
		$(PYTHON) -m pytest -s -rx $(PYTEST_ARGS) tests/chaos

asan:
	$(MAKE) --no-print-directory build unit SANITIZE=1 BUILD_DIR=$(ASAN_DIR) \
		SL_BUILD_DIR=$(abspath $(ASAN_DIR))

# The daemons themselves under ASan/UBSan: a leak or an overflow at exit
# fails the teardown of the test that started them.
asan-integration:
	$(MAKE) --no-print-directory build unit integration SANITIZE=1 BUILD_DIR=$(ASAN_DIR) \
		SL_BUILD_DIR=$(abspath $(ASAN_DIR))

# libFuzzer targets (clang), each for FUZZ_SECONDS (CI: 30, about 6
# minutes for the 11) on its corpus, with a time and size budget per
# input (tests/fuzz/run.sh). Any target's crash, leak, timeout or memory
# blow-up fails the run, after every target ran; its log and reproducer
# stay in $(FUZZ_DIR). A long run: make fuzz FUZZ_SECONDS=600.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 30
FUZZ_TARGETS ?= unpack conf hostlist frame io_stream stepd_proto journal sbatch_script \
	path_pattern parsers env rest_job
fuzz:
	CC=clang cmake -S . -B $(FUZZ_DIR) -DFUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# .ci/run FLAKE_RUNS times in a row while a chaos run loads the machine;
# stops at the first failure and keeps its log (scripts/flake-hunt.sh).
FLAKE_RUNS ?= 3
flake-hunt:
	scripts/flake-hunt.sh $(FLAKE_RUNS)

# Every benchmark on the build, one table (bench/README.md).
BENCH_ARGS ?=
bench: build
	/usr/bin/python3 bench/suite.py $(BENCH_ARGS)

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(FUZZ_DIR) .pytest_cache tests/integration/__pycache__ \
		tests/chaos/__pycache__

# Also forget the local cluster's state (stops it first).
distclean: stop clean
	rm -rf run
