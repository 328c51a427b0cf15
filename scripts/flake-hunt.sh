#!/usr/bin/env bash
# flake-hunt.sh [RUNS] - .ci/run RUNS times (3) in a row on a loaded machine.
#
# A test that passes alone but fails one run in ten is a race or a test
# that assumes timing; load makes such failures show. The load is a chaos
# run (tests/chaos: a workload while daemons are SIGKILLed) on a copy of
# the plain build, restarted until the last .ci/run ends. Stops at the
# first failing .ci/run; every run's output stays in $FLAKE_DIR
# (/tmp/flake-hunt.XXXX). Exit status: 0 when every run passed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs=${1:-3}
dir=${FLAKE_DIR:-$(mktemp -d /tmp/flake-hunt.XXXX)}
mkdir -p "$dir"
make --no-print-directory deps-test build >"$dir/build.log" 2>&1
rm -rf "$dir/load-build"
cp -a build "$dir/load-build"

# The load runs in a session of its own. It stops on SIGINT, which pytest
# answers by tearing its cluster down (its daemons run in sessions of
# their own and would outlive a SIGKILL); the stop file ends the loop.
# A command started with & by a script ignores SIGINT, and Python then
# never turns it into KeyboardInterrupt: pytest is started with SIGINT
# back to its default.
rm -f "$dir/stop"
setsid bash -c '
	while [[ ! -e $0/stop ]]; do
		SL_BUILD_DIR="$0/load-build" CHAOS_SECONDS=600 CHAOS_CI=1 \
			CHAOS_REPORT="$0/load-chaos.md" /usr/bin/python3 -c "
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.executable, [sys.executable, \"-m\", \"pytest\", \"-q\", \"-p\", \"no:cacheprovider\", \"tests/chaos\"])
" >>"$0/load.log" 2>&1 || true
	done' "$dir" &
load=$!
stop_load() {
	touch "$dir/stop"
	kill -INT -- "-$load" 2>/dev/null || true
	wait "$load" 2>/dev/null || true
}
trap stop_load EXIT

rc=0
for ((i = 1; i <= runs; i++)); do
	t0=$SECONDS
	if .ci/run >"$dir/run$i.log" 2>&1; then
		echo "flake-hunt: run $i of $runs passed in $((SECONDS - t0)) s"
	else
		rc=$?
		echo "flake-hunt: run $i of $runs FAILED after $((SECONDS - t0)) s: $dir/run$i.log"
		grep -E '^(FAILED|ERROR) ' "$dir/run$i.log" | head -20 || true
		break
	fi
done
echo "flake-hunt: logs in $dir"
exit $rc
