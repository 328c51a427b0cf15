#!/usr/bin/env bash
# tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET...] - run each libFuzzer
# target (fuzz_<TARGET> of BUILD_DIR/tests/fuzz; all when none named) for
# SECONDS on its corpus: BUILD_DIR/corpus-<target> (what the runs found,
# kept between runs) and the checked-in seeds tests/fuzz/corpus/<target>.
# Each input has a time budget (-timeout) and a size cap (-max_len) per
# target, so a parser that is quadratic in its input is a failure too, as
# are a crash, a leak, an over-read and going over -rss_limit_mb. The log
# of each target is BUILD_DIR/fuzz-<target>.log; a failure prints its end
# (the report and the reproducer under BUILD_DIR/fuzz-artifacts/), every
# target still runs, and the exit status is 1 when any failed.
# Reproduce one: BUILD_DIR/tests/fuzz/fuzz_<target> <artifact file>.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

build=${1:?usage: $0 BUILD_DIR SECONDS [TARGET...]}
secs=${2:?usage: $0 BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	targets=(unpack conf hostlist frame io_stream stepd_proto journal sbatch_script
		 path_pattern parsers env rest_job)
fi

# target -> "max_len timeout_s": the largest input worth trying (what
# the parser's callers let through, or enough lines to show a quadratic
# cost) and the wall time one input may take with ASan on a loaded
# machine. A linear parser needs milliseconds of CPU for any of them; a
# quadratic one needs minutes at these sizes. hostlist gets more: a few
# bytes legitimately expand to up to a million names (SL_HOSTLIST_MAX),
# about 1 s of CPU under ASan.
limits() {
	case $1 in
	hostlist) echo "4096 10" ;;
	path_pattern | parsers) echo "4096 5" ;;
	conf) echo "16384 5" ;;
	unpack | frame | sbatch_script) echo "65536 5" ;;
	env | journal | io_stream | stepd_proto | rest_job) echo "262144 5" ;;
	*) echo "65536 5" ;;
	esac
}

mkdir -p "$build/fuzz-artifacts"
failed=()
for t in "${targets[@]}"; do
	bin=$build/tests/fuzz/fuzz_$t
	log=$build/fuzz-$t.log
	read -r max_len timeout < <(limits "$t")
	mkdir -p "$build/corpus-$t"
	seeds=()
	[ -d "tests/fuzz/corpus/$t" ] && seeds=("tests/fuzz/corpus/$t")
	if [ ! -x "$bin" ]; then
		echo "fuzz_$t: FAILED: $bin is not built"
		failed+=("$t")
		continue
	fi
	"$bin" -max_total_time="$secs" -timeout="$timeout" -max_len="$max_len" \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$build/fuzz-artifacts/$t-" \
		"$build/corpus-$t" "${seeds[@]}" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "fuzz_$t: ok, ${runs:-?} inputs in ${secs}s"
	else
		echo "fuzz_$t: FAILED (exit $rc); the end of $log:"
		tail -n 60 "$log"
		failed+=("$t")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: FAILED: ${failed[*]}"
	exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${secs}s without a finding"
