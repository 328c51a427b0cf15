#!/usr/bin/env bash
# local-cluster.sh - a loopback cluster under ./run: munged + slurmctld + 4 slurmd.
#
#   scripts/local-cluster.sh up       write run/slurm.conf, start the daemons, wait until idle
#   scripts/local-cluster.sh down     stop exactly the processes `up` started (by pid)
#   scripts/local-cluster.sh status   say what runs
#   scripts/local-cluster.sh env      eval "$(scripts/local-cluster.sh env)" puts a shell on it
#
# Everything lives in ./run (gitignored): slurm.conf and gres.conf made from
# etc/local/*.in with free ports, munge/ (own key, socket, log), state/,
# spool/<node>/, log/, pid/, dev/nvidia0..3 (fake GPUs). The pids of what `up`
# started are recorded in run/pid/script/<name>.pid; `down` signals only those
# (after checking that the pid still runs the same program), never by name.
# Binaries come from $SL_BUILD_DIR or ./build; real Slurm is never called.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SL_BUILD_DIR:-$REPO/build}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
RUN=$REPO/run
CONF=$RUN/slurm.conf
PIDS=$RUN/pid/script
UP_TIMEOUT=${SL_UP_TIMEOUT:-30}   # seconds to wait for the cluster to come up
STOP_TIMEOUT=10                   # seconds between SIGTERM and SIGKILL

MUNGED=$(command -v munged || echo /usr/sbin/munged)
MUNGEKEY=$(command -v mungekey || echo /usr/sbin/mungekey)

log() { echo "local-cluster: $*"; }
die() { echo "local-cluster: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 up|down|status|env" >&2
	exit 2
}

# Print n free TCP ports on 127.0.0.1, space separated. All are bound at
# once so that they differ from each other.
free_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks:
    s.close()
EOF
}

# Node names of run/slurm.conf, one per line (one NodeName line per node).
node_names() {
	awk '/^[[:space:]]*NodeName=/ {
		sub(/^[[:space:]]*NodeName=/, ""); split($0, f, /[[:space:]]/)
		if (f[1] != "DEFAULT") print f[1]
	}' "$CONF"
}

# The program a recorded name must be running: munged, slurmctld or slurmd.
program_of() {
	case $1 in
	munged) echo munged ;;
	slurmctld) echo slurmctld ;;
	slurmd-*) echo slurmd ;;
	*) echo "$1" ;;
	esac
}

# Pid recorded for name if that process is alive and still runs its program.
live_pid() {
	local name=$1 pid prog cmd exe
	[[ -f $PIDS/$name.pid ]] || return 1
	pid=$(<"$PIDS/$name.pid")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] || return 1
	prog=$(program_of "$name")
	# argv[0] or the executable must be the program (guards against pid
	# reuse); a zombie has an empty cmdline and no exe
	cmd=$({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null || true)
	exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
	cmd=${cmd%% *}
	[[ -n $cmd && ( ${cmd##*/} == "$prog" || ${exe##*/} == "$prog" ) ]] || return 1
	echo "$pid"
}

recorded_names() {
	local f
	[[ -d $PIDS ]] || return 0
	for f in "$PIDS"/*.pid; do
		[[ -e $f ]] || continue
		f=${f##*/}
		echo "${f%.pid}"
	done
}

# Start a daemon in its own session with stdio to run/log/<name>.out; the
# wrapper records its own pid and then execs the daemon, so the recorded pid
# is the daemon's.
start_daemon() {
	local name=$1
	shift
	# shellcheck disable=SC2016 # $$ and $@ belong to the inner shell
	setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDS/$name.pid" "$@" \
		</dev/null >>"$RUN/log/$name.out" 2>&1 &
	local deadline=$((SECONDS + 5))
	until [[ -s $PIDS/$name.pid ]]; do
		((SECONDS < deadline)) || die "$name: no pid recorded"
		sleep 0.05
	done
}

print_logs() {
	local f
	for f in "$RUN"/log/*.log "$RUN"/log/*.out "$RUN"/munge/munged.log; do
		[[ -s $f ]] || continue
		echo "----- last 40 lines of ${f#"$REPO"/} -----" >&2
		tail -n 40 "$f" >&2
	done
}

# Fail with the logs, after stopping whatever was started.
fail_up() {
	echo "local-cluster: $*" >&2
	print_logs
	echo "local-cluster: stopping what was started; logs stay in ${RUN#"$REPO"/}/log" >&2
	cmd_down >&2 || true
	exit 1
}

ctl() { SLURM_CONF=$CONF "$BUILD/$1" "${@:2}"; }

# Poll until check succeeds (deadline UP_TIMEOUT) while the daemons we
# started stay alive.
wait_until() {
	local what=$1 check=$2 deadline=$((SECONDS + UP_TIMEOUT)) name
	while ! $check; do
		for name in $(recorded_names); do
			live_pid "$name" >/dev/null || fail_up "$name exited while waiting for $what"
		done
		((SECONDS < deadline)) || fail_up "timed out after ${UP_TIMEOUT}s waiting for $what"
		sleep 0.2
	done
}

munge_ok() { munge -n -S "$RUN/munge/munge.socket" 2>/dev/null | unmunge -S "$RUN/munge/munge.socket" >/dev/null 2>&1; }
ctld_up() { ctl scontrol ping 2>/dev/null | grep -q ' is UP'; }
all_idle() {
	local states
	states=$(ctl sinfo -h -o %t 2>/dev/null) || return 1
	[[ -n $states ]] && ! grep -qv '^idle$' <<<"$states"
}

write_config() {
	local nodes ports i sed_script
	mapfile -t nodes < <(grep -o '@PORT_[A-Za-z0-9_.-]*@' "$REPO/etc/local/slurm.conf.in" | sort -u)
	read -r -a ports <<<"$(free_ports $((${#nodes[@]} + 2)))"
	sed_script="s|@RUN_DIR@|$RUN|g; s|@SLURM_USER@|$(id -un)|g"
	sed_script+="; s|@SLURMCTLD_PORT@|${ports[0]}|g; s|@SLURMD_PORT@|${ports[1]}|g"
	for i in "${!nodes[@]}"; do
		sed_script+="; s|${nodes[$i]}|${ports[$((i + 2))]}|g"
	done
	sed "$sed_script" "$REPO/etc/local/slurm.conf.in" >"$CONF.tmp"
	sed "$sed_script" "$REPO/etc/local/gres.conf.in" >"$RUN/gres.conf"
	if grep -n '@[A-Z_]*@' "$CONF.tmp"; then
		die "unreplaced placeholder in etc/local/slurm.conf.in"
	fi
	mv "$CONF.tmp" "$CONF"
}

cmd_up() {
	local b name running=0 stale=0 node
	for b in slurmctld slurmd sinfo scontrol; do
		[[ -x $BUILD/$b ]] || die "$BUILD/$b not built; run 'make build' first"
	done
	[[ -x $MUNGED ]] || die "munged not found; run scripts/install-deps.sh"

	for name in $(recorded_names); do
		if live_pid "$name" >/dev/null; then running=$((running + 1)); else stale=$((stale + 1)); fi
	done
	if ((running > 0 && stale == 0)) && ctld_up && all_idle; then
		log "already up (scripts/local-cluster.sh status; make stop)"
		return 0
	fi
	if ((running > 0 || stale > 0)); then
		log "cleaning up a previous, partial run"
		cmd_down
	fi

	# keep the logs of the previous run in run/log.prev
	if [[ -d $RUN/log ]]; then
		rm -rf "$RUN/log.prev"
		mv "$RUN/log" "$RUN/log.prev"
	fi
	mkdir -p "$RUN"/{state,spool,log,pid/script,dev}
	mkdir -p "$RUN/munge"
	# Non-root users need to reach the munge socket (and read the config).
	chmod 0755 "$RUN" "$RUN/munge"
	for i in 0 1 2 3; do : >"$RUN/dev/nvidia$i"; done
	write_config
	while read -r node; do mkdir -p "$RUN/spool/$node"; done < <(node_names)

	if [[ ! -s $RUN/munge/munge.key ]]; then
		if [[ -x $MUNGEKEY ]]; then
			"$MUNGEKEY" --create --keyfile="$RUN/munge/munge.key" >/dev/null
		else
			dd if=/dev/urandom of="$RUN/munge/munge.key" bs=1024 count=1 status=none
		fi
	fi
	chmod 0600 "$RUN/munge/munge.key"

	log "starting munged"
	start_daemon munged "$MUNGED" --foreground --force \
		--socket="$RUN/munge/munge.socket" --key-file="$RUN/munge/munge.key" \
		--pid-file="$RUN/munge/munged.pid" --log-file="$RUN/munge/munged.log" \
		--seed-file="$RUN/munge/munged.seed"
	wait_until "munged" munge_ok

	log "starting slurmctld"
	SLURM_CONF=$CONF start_daemon slurmctld "$BUILD/slurmctld" -D -f "$CONF"
	wait_until "slurmctld to answer ping" ctld_up

	while read -r node; do
		log "starting slurmd -N $node"
		SLURM_CONF=$CONF start_daemon "slurmd-$node" "$BUILD/slurmd" -D -N "$node" -f "$CONF"
	done < <(node_names)
	wait_until "every node to be idle" all_idle

	log "up: $(ctl scontrol ping)"
	log "use it from a shell with:  eval \"\$(scripts/local-cluster.sh env)\""
}

# slurmstepds outlive their slurmd by design; ours are the ones whose
# command line names our slurmstepd and our slurm.conf. SIGTERM makes each
# end its job and exit.
stop_stepds() {
	local dir pid argv deadline pids=()
	for dir in /proc/[0-9]*; do
		argv=$(tr '\0' ' ' <"$dir/cmdline" 2>/dev/null) || continue
		[[ $argv == "$BUILD/slurmstepd "*"$CONF"* ]] || continue
		pids+=("${dir#/proc/}")
	done
	((${#pids[@]})) || return 0
	kill -TERM "${pids[@]}" 2>/dev/null || true
	deadline=$((SECONDS + STOP_TIMEOUT))
	for pid in "${pids[@]}"; do
		while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
	done
	log "stopped ${#pids[@]} slurmstepd"
}

cmd_down() {
	local name pid names=() order=() deadline
	mapfile -t names < <(recorded_names)
	if ((${#names[@]} == 0)); then
		log "nothing to stop"
		return 0
	fi
	# slurmds first, then the controller, then munged (they need it to the end)
	for name in "${names[@]}"; do [[ $name == slurmd-* ]] && order+=("$name"); done
	for name in "${names[@]}"; do [[ $name == slurmctld ]] && order+=("$name"); done
	for name in "${names[@]}"; do [[ $name == munged ]] && order+=("$name"); done
	for name in "${names[@]}"; do
		[[ $name == slurmd-* || $name == slurmctld || $name == munged ]] || order+=("$name")
	done

	stop_stepds
	for name in "${order[@]}"; do
		if pid=$(live_pid "$name"); then
			kill -TERM "$pid" 2>/dev/null || true
			deadline=$((SECONDS + STOP_TIMEOUT))
			while live_pid "$name" >/dev/null && ((SECONDS < deadline)); do
				sleep 0.1
			done
			if live_pid "$name" >/dev/null; then
				log "$name (pid $pid) ignored SIGTERM for ${STOP_TIMEOUT}s; sending SIGKILL"
				kill -KILL "$pid" 2>/dev/null || true
			fi
			log "stopped $name (pid $pid)"
		fi
		rm -f "$PIDS/$name.pid"
	done
}

cmd_status() {
	local name pid names=() down=0
	mapfile -t names < <(recorded_names)
	if ((${#names[@]} == 0)); then
		echo "local cluster is not running (scripts/local-cluster.sh up or make run)"
		return 1
	fi
	for name in "${names[@]}"; do
		if pid=$(live_pid "$name"); then
			printf '%-12s running (pid %s)\n' "$name" "$pid"
		else
			printf '%-12s NOT running (see run/log)\n' "$name"
			down=$((down + 1))
		fi
	done
	if live_pid slurmctld >/dev/null; then
		ctl scontrol ping || true
		ctl sinfo || true
	fi
	((down == 0))
}

cmd_env() {
	[[ -f $CONF ]] || echo "local-cluster: $CONF does not exist yet; run 'make run' first" >&2
	# shellcheck disable=SC2016 # $PATH is expanded by the shell that evals this
	printf 'export PATH=%q:"$PATH"\n' "$BUILD"
	printf 'export SLURM_CONF=%q\n' "$CONF"
}

(($# == 1)) || usage
case $1 in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
env) cmd_env ;;
*) usage ;;
esac
