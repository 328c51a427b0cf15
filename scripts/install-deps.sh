#!/usr/bin/env bash
# install-deps.sh - install the Debian packages that the build and the tests need.
#
# Quiet and idempotent: when everything is installed it prints nothing and
# exits 0. Otherwise, as root, it runs `apt-get update` and `apt-get install`
# for the missing packages only; as another user it prints the exact sudo
# command to run and exits 1 (it never calls sudo itself).
set -euo pipefail

PACKAGES=(
	libevent-dev     # event loop of the daemons
	libmunge-dev     # authentication (libmunge)
	munge            # munged, mungekey, munge/unmunge (tests start a private munged)
	libyaml-dev      # --yaml output
	libjansson-dev   # JSON input: slurmrestd's request bodies
	libjwt-dev       # auth/jwt: scontrol token, slurmrestd's X-SLURM-USER-TOKEN
	libcmocka-dev    # unit tests
	libsqlite3-dev   # accounting store
	libssl-dev       # libcrypto: SHA-256 of every frame and credential
	python3-pytest   # integration tests (run with /usr/bin/python3)
	python3-yaml     # tests only: --yaml output parses to the --json tree
	pkg-config
	cmake
	gcc
	make
	clang            # fuzz targets (libFuzzer), `make fuzz`
	libclang-rt-14-dev # libFuzzer and sanitizer runtimes for clang
	libpmix-dev      # PMIx server side in slurmstepd: srun --mpi=pmix (Open MPI)
	mpich            # tests only: an MPI ring through srun --mpi=pmi2 (test_mpi.py)
	libmpich-dev     # tests only: its mpicc (mpicc.mpich)
	openmpi-bin      # tests only: an Open MPI ring through srun --mpi=pmix
	libopenmpi-dev   # tests only: its mpicc (mpicc.openmpi)
	libjs-chart.js   # the dashboard's charts: slurmrestd serves its chart.min.js
	chromium         # tests only: the dashboard in a headless browser
	chromium-driver  # tests only: WebDriver for it
	python3-selenium # tests only: test_dashboard.py drives the browser
)

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
