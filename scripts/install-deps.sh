#!/usr/bin/env bash
# install-deps.sh [--test] - install the Debian packages that building and
# running need; with --test also those of the tests.
#
# Quiet and idempotent: when everything is installed it prints nothing and
# exits 0. Otherwise, as root, it runs `apt-get update` and `apt-get install`
# for the missing packages only; as another user it prints the exact sudo
# command to run and exits 1 (it never calls sudo itself).
set -euo pipefail

# What `make run` needs: build the daemons and commands, and run them.
PACKAGES=(
	libevent-dev     # event loop of the daemons
	libmunge-dev     # authentication (libmunge)
	munge            # munged, mungekey, munge/unmunge (the cluster runs a private munged)
	libyaml-dev      # --yaml output
	libjansson-dev   # JSON input: slurmrestd's request bodies
	libjwt-dev       # auth/jwt: scontrol token, slurmrestd's X-SLURM-USER-TOKEN
	libsqlite3-dev   # accounting store
	libssl-dev       # libcrypto: SHA-256 of every frame and credential
	libpmix-dev      # PMIx server side in slurmstepd: srun --mpi=pmix (Open MPI)
	libjs-chart.js   # the dashboard's charts: slurmrestd serves its chart.min.js
	libpam0g-dev     # pam_slurm_adopt.so (src/pam/)
	liblua5.4-dev    # job_submit/lua
	pkg-config
	cmake
	gcc
	make
)

# What `make check` adds (--test): the unit and integration tests, the
# fuzzers and the chaos run of .ci/run.
TEST_PACKAGES=(
	libcmocka-dev    # unit tests (without it the build leaves them out)
	python3-pytest   # integration tests (run with /usr/bin/python3)
	python3-pytest-xdist # integration modules side by side (make check)
	python3-yaml     # --yaml output parses to the --json tree
	clang            # fuzz targets (libFuzzer), `make fuzz`
	libclang-rt-14-dev # libFuzzer and sanitizer runtimes for clang
	mpich            # an MPI ring through srun --mpi=pmi2 (test_mpi.py)
	libmpich-dev     # its mpicc (mpicc.mpich)
	openmpi-bin      # an Open MPI ring through srun --mpi=pmix
	libopenmpi-dev   # its mpicc (mpicc.openmpi)
	chromium         # the dashboard in a headless browser
	chromium-driver  # WebDriver for it
	python3-selenium # test_dashboard.py drives the browser
	pamtester        # test_extern_step.py drives pam_slurm_adopt.so
)
if [[ ${1:-} == --test ]]; then
	PACKAGES+=("${TEST_PACKAGES[@]}")
elif [[ $# -gt 0 ]]; then
	echo "usage: install-deps.sh [--test]" >&2
	exit 2
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: dpkg-query not found; this script supports Debian and its derivatives." >&2
	echo "install-deps: install these packages by hand: ${PACKAGES[*]}" >&2
	exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	# "ii " = wanted install, currently installed; anything else needs work.
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true)
	if [[ $status != ii* ]]; then
		missing+=("$pkg")
	fi
done

if ((${#missing[@]} == 0)); then
	exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
	echo "install-deps: missing Debian packages: ${missing[*]}" >&2
	echo "install-deps: run this, then try again:" >&2
	echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}"
