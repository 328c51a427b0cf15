#!/usr/bin/env bash
# local-cluster.sh - a loopback cluster under ./run: munged + slurmctld + 4 slurmd
# + slurmrestd (REST API and the dashboard).
#
#   scripts/local-cluster.sh up [--nodes N]
#                                     start whatever is not running, then wait until
#                                     the controller answers and every node responds;
#                                     --nodes N: N cpu nodes c1..cN instead of two
#                                     (kept for later `up`s; changing it needs `down`)
#   scripts/local-cluster.sh restart [slurmctld|slurmrestd|NODE...]
#                                     stop (by pid) and start again slurmctld and
#                                     every slurmd, or only the ones named
#   scripts/local-cluster.sh down     stop exactly the processes `up` started (by
#                                     pid) and the slurmstepds of running jobs
#   scripts/local-cluster.sh status   say what runs
#   scripts/local-cluster.sh env      eval "$(scripts/local-cluster.sh env)" puts a shell on it
#                                     (PATH, SLURM_CONF, SLURMRESTD_URL)
#   scripts/local-cluster.sh dashboard  print the dashboard's address with a fresh
#                                     token of the user running it
#
# Everything lives in ./run (gitignored): slurm.conf and gres.conf made from
# etc/local/*.in with free ports (the cpu node count in run/nodes),
# munge/ (own key, socket, log), state/,
# spool/<node>/, log/, pid/, dev/nvidia0..3 (fake GPUs), jwt.key (auth/jwt:
# scontrol token, slurmrestd), slurmrestd.port and slurmrestd.socket. The pids of what `up`
# started are recorded in run/pid/script/<name>.pid; `down` and `restart`
# signal only those (after checking that the pid still runs the same
# program), never by name.
#
# `up` is idempotent and repairs a cluster after a crash: it starts only the
# daemons whose recorded pid is dead or missing, and keeps run/slurm.conf
# (same ports), state/, spool/ and the munge key. It never stops anything,
# so the slurmstepds of running jobs survive; only `down` stops them. The
# config is written again only on a cold start (nothing of ours running) after
# etc/local/*.in changed (run/slurm.conf.sum records what it was made from).
# A cold start moves run/log to run/log.prev; a daemon started again beside
# running ones appends to its log. `up` waits until the controller answers
# and every node responds: idle, allocated, mixed or completing nodes are
# fine, drained ones are reported, not responding/down/unknown ones are
# waited for (SL_UP_TIMEOUT seconds).
# Binaries come from $SL_BUILD_DIR or ./build; real Slurm is never called.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${SL_BUILD_DIR:-$REPO/build}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
RUN=$REPO/run
CONF=$RUN/slurm.conf
CONF_SUM=$RUN/slurm.conf.sum      # checksum of what run/slurm.conf was made from
NODES_FILE=$RUN/nodes             # how many cpu nodes run/slurm.conf has
NODES_DEFAULT=2                   # the template's c1 and c2
NODES_MAX=4000                    # one slurmd each; ports come from 7000-11999
NODES_WANTED=                     # up --nodes N
TEMPLATES=("$REPO/etc/local/slurm.conf.in" "$REPO/etc/local/gres.conf.in" "$REPO/etc/local/cgroup.conf.in"
	"$REPO/etc/local/prolog.in" "$REPO/etc/local/epilog.in" "$REPO/etc/local/healthcheck.in"
	"$REPO/etc/local/reboot.in" "$REPO/etc/local/job_container.conf.in")
PIDS=$RUN/pid/script
UP_TIMEOUT=${SL_UP_TIMEOUT:-30}   # seconds to wait for the cluster to come up
STOP_TIMEOUT=10                   # seconds between SIGTERM and SIGKILL

MUNGED=$(command -v munged || echo /usr/sbin/munged)
MUNGEKEY=$(command -v mungekey || echo /usr/sbin/mungekey)

# What this run of the script did, for fail_up: whether nothing of ours ran
# when it began, and the daemons it started.
COLD=0
STARTED=()
# Daemons that must stay alive while wait_until polls; WAIT_DETAIL is what
# the last check saw, for the timeout message.
WATCH=()
WAIT_DETAIL=

log() { echo "local-cluster: $*"; }
die() { echo "local-cluster: $*" >&2; exit 1; }

usage() {
	echo "usage: $0 up [--nodes N]|down|status|env|dashboard" >&2
	echo "       $0 restart [slurmctld|slurmrestd|NODE...]" >&2
	exit 2
}

# Print n distinct free TCP ports on 127.0.0.1, space separated.
free_ports() {
	python3 - "$1" <<'PY'
# From 7000-11999, below the kernel's ephemeral range (where an outgoing
# connection of any client could take a port between this choice and the
# daemon's bind) and below the 12000-31999 the test harness claims
# (tests/integration/cluster.py), starting at a random place.
import random, socket, sys
n = int(sys.argv[1])
lo, hi = 7000, 12000
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        hi = min(hi, int(f.read().split()[0]))
except (OSError, ValueError, IndexError):
    pass
ports, start = [], random.randrange(max(1, hi - lo))
for k in range(max(0, hi - lo)):
    port = lo + (start + k) % (hi - lo)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
    ports.append(port)
    if len(ports) == n:
        break
if len(ports) < n:
    sys.exit(f"local-cluster: no {n} free ports in {lo}-{hi - 1}")
print(" ".join(map(str, ports)))
PY
}

# Who listens on the TCP ports given (any address, IPv4 or IPv6): a line
# "PORT pid N (argv); ..." for each port taken, "a process this user
# cannot see" where /proc does not tell; nothing for a free port.
port_holders() {
	python3 - "$@" <<'PY'
import os, sys
want = set(map(int, sys.argv[1:]))
inodes = {}
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    try:
        with open(table) as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        col = row.split()
        port = int(col[1].rsplit(":", 1)[1], 16)
        if col[3] == "0A" and port in want:
            inodes[col[9]] = port
if not inodes:
    sys.exit(0)
found = {port: [] for port in inodes.values()}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                argv = "?"
            found[inodes[target[8:-1]]].append(f"pid {pid} ({argv})")
            break
for port, who in sorted(found.items()):
    print(port, "; ".join(who) or "a process this user cannot see")
PY
}

# Node names of a slurm.conf ($1, default run/slurm.conf), one per line (one
# NodeName line per node).
node_names() {
	awk '/^[[:space:]]*NodeName=/ {
		sub(/^[[:space:]]*NodeName=/, ""); split($0, f, /[[:space:]]/)
		if (f[1] != "DEFAULT") print f[1]
	}' "${1:-$CONF}"
}

# The TCP port daemon name listens on according to run/slurm.conf; nothing
# for munged (a unix socket). The nodes' ports are read once.
declare -A NODE_PORT=()
load_node_ports() {
	local node port
	((${#NODE_PORT[@]} == 0)) || return 0
	while read -r node port; do
		NODE_PORT[$node]=$port
	done < <(awk '/^[[:space:]]*NodeName=/ {
		sub(/^[[:space:]]*NodeName=/, ""); n = split($0, f, /[[:space:]]+/)
		for (i = 2; i <= n; i++) if (f[i] ~ /^Port=/) { sub(/^Port=/, "", f[i]); print f[1], f[i] }
	}' "$CONF")
}

port_of() {
	case $1 in
	slurmctld)
		awk -F= '/^[[:space:]]*SlurmctldPort=/ { sub(/[[:space:]].*/, "", $2); print $2 }' "$CONF" ;;
	slurmrestd)
		cat "$RUN/slurmrestd.port" 2>/dev/null || true ;;
	slurmd-*)
		load_node_ports
		echo "${NODE_PORT[${1#slurmd-}]:-}" ;;
	esac
}

# Every daemon of the cluster, in start order: munged, slurmctld,
# slurmd-<node>..., slurmrestd.
daemon_names() {
	echo munged
	echo slurmctld
	node_names | sed 's/^/slurmd-/'
	echo slurmrestd
}

# Pid recorded for name if that process is alive and still runs its
# program (munged, slurmctld, slurmd or slurmrestd): printed, and in
# LIVE_PID. Builtins only: it runs for every daemon on every poll of
# wait_until.
LIVE_PID=
live_pid() {
	is_live "$1" || return 1
	echo "$LIVE_PID"
}

is_live() {
	local name=$1 pid='' prog cmd='' exe
	LIVE_PID=
	[[ -f $PIDS/$name.pid ]] || return 1
	read -r pid <"$PIDS/$name.pid" 2>/dev/null || true
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] || return 1
	case $name in
	slurmd-*) prog=slurmd ;;
	*) prog=$name ;;
	esac
	# argv[0] or the executable must be the program (guards against pid
	# reuse); a zombie has an empty cmdline and no exe
	IFS= read -r -d '' cmd <"/proc/$pid/cmdline" 2>/dev/null || true
	cmd=${cmd%% *}
	[[ -n $cmd ]] || return 1
	if [[ ${cmd##*/} != "$prog" ]]; then
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
		[[ ${exe##*/} == "$prog" ]] || return 1
	fi
	LIVE_PID=$pid
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

# Pids of the slurmstepds of this cluster: they outlive their slurmd by
# design; ours are the ones whose command line names our slurmstepd and our
# slurm.conf.
stepd_pids() {
	local dir argv=()
	for dir in /proc/[0-9]*; do
		mapfile -d '' -t argv <"$dir/cmdline" 2>/dev/null || continue
		[[ ${argv[0]:-} == "$BUILD/slurmstepd" && " ${argv[*]} " == *"$CONF"* ]] || continue
		echo "${dir#/proc/}"
	done
}

# Start a daemon in its own session with stdio appended to
# run/log/<name>.out and record its pid. In the background of a shell
# without job control the child leads no process group, so setsid(1)
# makes the session without forking again: $! is the daemon's own pid.
# Until setsid and then the daemon are exec'd, that pid's command line is
# not yet the daemon's (is_live would say it is not running): wait for
# it, or for the process to be gone (the caller's wait reports that).
start_daemon() {
	local name=$1 pid deadline=$((SECONDS + 5))
	shift
	setsid "$@" </dev/null >>"$RUN/log/$name.out" 2>&1 &
	pid=$!
	echo "$pid" >"$PIDS/$name.pid"
	STARTED+=("$name")
	while ! is_live "$name" && kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do
		sleep 0.01
	done
}

# Start the slurmds named (slurmd-NODE...) as start_daemon would, from one
# python3: its spawn is cheaper than a fork of this shell, which counts
# with a thousand nodes.
start_slurmds() {
	(($#)) || return 0
	SLURM_CONF=$CONF python3 - "$BUILD/slurmd" "$CONF" "$RUN/log" "$PIDS" "$@" <<'PY'
import subprocess, sys
slurmd, conf, logs, pids = sys.argv[1:5]
for name in sys.argv[5:]:
    with open(f"{logs}/{name}.out", "ab") as out:
        p = subprocess.Popen([slurmd, "-D", "-N", name[len("slurmd-"):], "-f", conf],
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             start_new_session=True)
    with open(f"{pids}/{name}.pid", "w") as f:
        f.write(f"{p.pid}\n")
PY
	STARTED+=("$@")
}

# SIGTERM the recorded pids of the daemons named, all at once; SIGKILL
# those still running after STOP_TIMEOUT; forget the pids.
stop_daemons() {
	local name deadline sig left=() still=() pids=()
	declare -A pid_of=()
	for name in "$@"; do
		if is_live "$name"; then
			pid_of[$name]=$LIVE_PID
			left+=("$name")
			pids+=("$LIVE_PID")
		fi
	done
	((${#pids[@]} == 0)) || kill -TERM "${pids[@]}" 2>/dev/null || true
	for sig in KILL ""; do
		deadline=$((SECONDS + STOP_TIMEOUT))
		while ((${#left[@]})) && ((SECONDS < deadline)); do
			still=()
			for name in "${left[@]}"; do is_live "$name" && still+=("$name"); done
			left=("${still[@]}")
			((${#left[@]} == 0)) || sleep 0.1
		done
		if ((${#left[@]} == 0)) || [[ -z $sig ]]; then break; fi
		pids=()
		for name in "${left[@]}"; do
			log "$name (pid ${pid_of[$name]}) ignored SIGTERM for ${STOP_TIMEOUT}s; sending SIGKILL"
			pids+=("${pid_of[$name]}")
		done
		kill -KILL "${pids[@]}" 2>/dev/null || true
	done
	for name in "$@"; do
		(($# > 10)) || [[ -z ${pid_of[$name]:-} ]] || log "stopped $name (pid ${pid_of[$name]})"
		rm -f "$PIDS/$name.pid"
	done
	(($# <= 10)) || log "stopped ${#pid_of[@]} of $(names_summary "$@")"
}

# "munged slurmctld slurmd-c1 ..." for a few names, "N slurmd" and the
# others for many.
names_summary() {
	local name n=0 other=()
	if (($# <= 10)); then
		echo "$*"
		return
	fi
	for name in "$@"; do
		if [[ $name == slurmd-* ]]; then n=$((n + 1)); else other+=("$name"); fi
	done
	echo "${other[*]}${other[*]:+ }$n slurmd"
}

stop_daemon() { stop_daemons "$1"; }

print_logs() {
	local f
	for f in "$RUN"/log/*.log "$RUN"/log/*.out "$RUN"/munge/munged.log; do
		[[ -s $f ]] || continue
		echo "----- last 40 lines of ${f#"$REPO"/} -----" >&2
		tail -n 40 "$f" >&2
	done
}

# Fail with the logs. After a cold start, stop the daemons this run started
# (slurmds first, munged last); otherwise leave every daemon as it is, since
# the ones that were running may be serving jobs. Never stops slurmstepds.
fail_up() {
	local i
	echo "local-cluster: $*" >&2
	print_logs
	if ((COLD && ${#STARTED[@]})); then
		echo "local-cluster: stopping what was started; logs stay in ${RUN#"$REPO"/}/log" >&2
		for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
			stop_daemon "${STARTED[$i]}" >&2 || true
		done
	else
		echo "local-cluster: the daemons are left as they are; logs in ${RUN#"$REPO"/}/log" >&2
	fi
	exit 1
}

ctl() { SLURM_CONF=$CONF "$BUILD/$1" "${@:2}"; }

# Poll until check succeeds (deadline UP_TIMEOUT) while the daemons in WATCH
# stay alive.
wait_until() {
	local what=$1 check=$2 deadline=$((SECONDS + UP_TIMEOUT)) name
	WAIT_DETAIL=
	while ! $check; do
		for name in "${WATCH[@]}"; do
			is_live "$name" ||
				fail_up "$name is not running while waiting for $what" \
					"(scripts/local-cluster.sh up starts what is missing)"
		done
		((SECONDS < deadline)) ||
			fail_up "timed out after ${UP_TIMEOUT}s waiting for $what${WAIT_DETAIL:+; $WAIT_DETAIL}"
		sleep 0.2
	done
}

munge_ok() { munge -n -S "$RUN/munge/munge.socket" 2>/dev/null | unmunge -S "$RUN/munge/munge.socket" >/dev/null 2>&1; }
ctld_up() { ctl scontrol ping 2>/dev/null | grep -q ' is UP'; }
# slurmrestd answers a ping on its unix socket (rest_auth/local: as this user).
rest_up() {
	/usr/bin/python3 - "$RUN/slurmrestd.socket" <<'PY' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(sys.argv[1])
s.sendall(b"GET /slurm/v0.0.38/ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
data = b""
while chunk := s.recv(4096):
    data += chunk
sys.exit(0 if data.startswith(b"HTTP/1.1 200") else 1)
PY
}

# Every node responds: sinfo's compact state has no '*' (not responding) and
# is not down, unknown or invalid. Busy nodes (alloc, mix, comp) are fine and
# so are drained ones (reported by report_drained).
nodes_ready() {
	local out node state base bad=()
	if ! out=$(ctl sinfo -h -N -o '%N %t' 2>&1) || [[ -z $out ]]; then
		WAIT_DETAIL="sinfo: ${out:-no nodes}"
		return 1
	fi
	while read -r node state; do
		base=${state%%[!a-z]*}
		if [[ $state == *'*'* || $base == down || $base == unk || $base == inval || -z $base ]]; then
			bad+=("$node=$state")
		fi
	done <<<"$out"
	WAIT_DETAIL="not ready: ${bad[*]}"
	((${#bad[@]} == 0))
}

report_drained() {
	local out
	out=$(ctl sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 ~ /^(drain|drng)/ { printf " %s", $1 }') || true
	[[ -n $out ]] || return 0
	log "drained:$out (not a failure; scontrol update NodeName=... State=RESUME returns them)"
	ctl sinfo -R 2>/dev/null | sed 's/^/local-cluster:   /' || true
}

# Root with writable cgroups (v1: the freezer, cpuset, memory and devices
# hierarchies; v2: the unified root): the cluster confines its jobs.
cgroups_usable() {
	local c probe
	((EUID == 0)) || return 1
	if [[ -e /sys/fs/cgroup/cgroup.controllers ]]; then
		probe=/sys/fs/cgroup/sl-probe-$$
		mkdir "$probe" 2>/dev/null && rmdir "$probe"
		return
	fi
	for c in freezer cpuset memory devices; do
		probe=/sys/fs/cgroup/$c/sl-probe-$$
		mkdir "$probe" 2>/dev/null && rmdir "$probe" || return 1
	done
}

cgroup_mode() {
	if cgroups_usable; then echo cgroup; else echo none; fi
}

# The cpu node count: up --nodes N, else what run/slurm.conf was made with,
# else the template's two.
node_count() {
	local n=
	[[ -z $NODES_WANTED ]] || { echo "$NODES_WANTED"; return; }
	[[ -f $NODES_FILE ]] && read -r n <"$NODES_FILE"
	[[ $n =~ ^[0-9]+$ ]] && echo "$n" || echo "$NODES_DEFAULT"
}

config_sum() {
	{ cat "${TEMPLATES[@]}"; echo "$RUN $(id -un) $(cgroup_mode) $(node_count)"; } |
		sha256sum | cut -d' ' -f1
}

# The slurm.conf template with n cpu nodes: the line of c1 once per node
# c1..cn (the template's c2 dropped) and the partition of c[1-2] on them.
node_template() {
	awk -v n="$1" '
	/^[[:space:]]*NodeName=c1[[:space:]]/ {
		for (i = 1; i <= n; i++) {
			l = $0
			sub(/NodeName=c1[[:space:]]/, "NodeName=c" i " ", l)
			gsub(/@PORT_c1@/, "@PORT_c" i "@", l)
			print l
		}
		next
	}
	/^[[:space:]]*NodeName=c2[[:space:]]/ { next }
	/^[[:space:]]*PartitionName=/ { sub(/Nodes=c\[1-2\]/, n == 1 ? "Nodes=c1" : "Nodes=c[1-" n "]") }
	{ print }' "${TEMPLATES[0]}"
}

write_config() {
	local nodes ports i sed_script count template
	count=$(node_count)
	template=$(node_template "$count")
	mapfile -t nodes < <(grep -o '@PORT_[A-Za-z0-9_.-]*@' <<<"$template" | sort -u)
	read -r -a ports <<<"$(free_ports $((${#nodes[@]} + 3)))"
	sed_script="s|@RUN_DIR@|$RUN|g; s|@SLURM_USER@|$(id -un)|g; s|@BIN_DIR@|$BUILD|g; s|@REPO_DIR@|$REPO|g"
	if [[ $(cgroup_mode) == cgroup ]]; then
		sed_script+="; s|@PROCTRACK@|proctrack/cgroup|g; s|@TASK_PLUGIN@|task/cgroup,task/affinity|g"
	else
		log "not root with writable cgroups: jobs are tracked through /proc and memory by sampling"
		sed_script+="; s|@PROCTRACK@|proctrack/linuxproc|g; s|@TASK_PLUGIN@|task/none|g"
	fi
	if ((EUID == 0)); then
		sed_script+="; s|@JOB_CONTAINER@|job_container/tmpfs|g"
	else
		log "not root: no private /tmp per job (job_container/none; tmpfs needs mount namespaces)"
		sed_script+="; s|@JOB_CONTAINER@|job_container/none|g"
	fi
	sed_script+="; s|@SLURMCTLD_PORT@|${ports[0]}|g; s|@SLURMD_PORT@|${ports[1]}|g"
	echo "${ports[2]}" >"$RUN/slurmrestd.port"
	# the nodes' ports through a map: one pass whatever their number
	for i in "${!nodes[@]}"; do
		echo "${nodes[$i]} ${ports[$((i + 3))]}"
	done >"$RUN/ports.tmp"
	sed "$sed_script" <<<"$template" | awk -v map="$RUN/ports.tmp" '
	BEGIN { while ((getline l < map) > 0) { split(l, f, " "); port[f[1]] = f[2] } }
	{
		while (match($0, /@PORT_[A-Za-z0-9_.-]*@/)) {
			k = substr($0, RSTART, RLENGTH)
			$0 = substr($0, 1, RSTART - 1) port[k] substr($0, RSTART + RLENGTH)
		}
		print
	}' >"$CONF.tmp"
	rm -f "$RUN/ports.tmp"
	sed "$sed_script" "${TEMPLATES[1]}" >"$RUN/gres.conf"
	sed "$sed_script" "${TEMPLATES[2]}" >"$RUN/cgroup.conf"
	sed "$sed_script" "$REPO/etc/local/job_container.conf.in" >"$RUN/job_container.conf"
	# the node scripts: slurmd runs only programs nobody but us may change
	mkdir -p "$RUN/etc"
	for i in prolog epilog healthcheck reboot; do
		sed "$sed_script" "$REPO/etc/local/$i.in" >"$RUN/etc/$i.tmp"
		chmod 0755 "$RUN/etc/$i.tmp"
		mv "$RUN/etc/$i.tmp" "$RUN/etc/$i"
	done
	if grep -n '@[A-Z_]*@' "$CONF.tmp"; then
		die "unreplaced placeholder in etc/local/slurm.conf.in"
	fi
	mv "$CONF.tmp" "$CONF"
	echo "$count" >"$NODES_FILE"
	config_sum >"$CONF_SUM"
}

# Keep run/slurm.conf (its ports) unless it is missing, or etc/local/*.in
# changed and nothing of ours runs (no daemon, no job's slurmstepd).
ensure_config() {
	local have
	if [[ -n $NODES_WANTED && -f $CONF ]] && ((!COLD)); then
		have=$(NODES_WANTED='' node_count)
		((have == NODES_WANTED)) ||
			die "the cluster runs with $have cpu nodes; 'scripts/local-cluster.sh down'" \
				"first, then 'up --nodes $NODES_WANTED'"
	fi
	if [[ ! -f $CONF ]]; then
		((COLD)) || die "${CONF#"$REPO"/} is missing while daemons run; stop them with 'scripts/local-cluster.sh down'"
		log "writing ${CONF#"$REPO"/} (new free ports)"
		write_config
	elif [[ $(config_sum) == "$(cat "$CONF_SUM" 2>/dev/null)" ]]; then
		: # unchanged: same ports as before
	elif ((COLD)) && [[ -z $(stepd_pids) ]]; then
		log "etc/local/*.in or the node count changed: writing ${CONF#"$REPO"/} again" \
			"($(node_count) cpu nodes, new free ports)"
		write_config
	else
		log "etc/local/*.in changed since ${CONF#"$REPO"/} was written (or it has no" \
			"${CONF_SUM#"$REPO"/}); keeping it while" \
			"daemons or jobs run ('scripts/local-cluster.sh down', then 'up' applies the change)"
	fi
}

# Fail before starting anything if a port that one of the daemons named
# needs is held by another process (ours are not running, so it is foreign).
check_ports() {
	local name port holders taken=0
	declare -A name_of=()
	load_node_ports
	for name in "$@"; do
		case $name in
		slurmd-*) port=${NODE_PORT[${name#slurmd-}]:-} ;;
		*) port=$(port_of "$name") ;;
		esac
		[[ -z $port ]] || name_of[$port]=$name
	done
	((${#name_of[@]})) || return 0
	while read -r port holders; do
		echo "local-cluster: port $port of ${name_of[$port]} (${CONF#"$REPO"/}) is taken by $holders" >&2
		taken=1
	done < <(port_holders "${!name_of[@]}")
	((taken == 0)) && return 0
	die "stop that process, or run 'scripts/local-cluster.sh down', remove ${CONF#"$REPO"/}" \
		"and run 'up' again to get new free ports"
}

# Start the daemons named (in daemon_names order) that are not running, and
# wait for munged and slurmctld to answer.
start_missing() {
	local name node slurmds_started=0 slurmds=() missing_list=()
	declare -A want=() missing=()
	for name in "$@"; do want[$name]=1; done
	while read -r name; do
		[[ -n ${want[$name]:-} ]] || continue
		is_live "$name" && continue
		missing[$name]=1
		missing_list+=("$name")
		[[ $name != slurmd-* ]] || slurmds+=("$name")
	done < <(daemon_names)
	check_ports "${missing_list[@]}"
	while read -r name; do
		if is_live "$name"; then
			WATCH+=("$name")
			continue
		fi
		[[ -n ${missing[$name]:-} ]] || continue
		case $name in
		munged)
			log "starting munged"
			start_daemon munged "$MUNGED" --foreground --force \
				--socket="$RUN/munge/munge.socket" --key-file="$RUN/munge/munge.key" \
				--pid-file="$RUN/munge/munged.pid" --log-file="$RUN/munge/munged.log" \
				--seed-file="$RUN/munge/munged.seed"
			;;
		slurmctld)
			wait_until "munged" munge_ok
			log "starting slurmctld"
			SLURM_CONF=$CONF start_daemon slurmctld "$BUILD/slurmctld" -D -f "$CONF"
			;;
		slurmd-*)
			# all at once, when the first comes
			((!slurmds_started)) || continue
			slurmds_started=1
			wait_until "munged" munge_ok
			wait_until "slurmctld to answer ping" ctld_up
			if ((${#slurmds[@]} > 10)); then
				log "starting ${#slurmds[@]} slurmd"
			else
				for node in "${slurmds[@]}"; do log "starting slurmd -N ${node#slurmd-}"; done
			fi
			start_slurmds "${slurmds[@]}" || fail_up "cannot start the slurmds"
			WATCH+=("${slurmds[@]}")
			continue
			;;
		slurmrestd)
			wait_until "slurmctld to answer ping" ctld_up
			log "starting slurmrestd on $(rest_url)"
			rm -f "$RUN/slurmrestd.socket"
			SLURM_CONF=$CONF start_daemon slurmrestd "$BUILD/slurmrestd" -f "$CONF" \
				"127.0.0.1:$(port_of slurmrestd)" "unix:$RUN/slurmrestd.socket"
			;;
		esac
		WATCH+=("$name")
	done < <(daemon_names)
}

# What `up` and `restart` wait for once the daemons are started: every
# daemon alive, munged and slurmctld answering, every node responding.
wait_ready() {
	mapfile -t WATCH < <(daemon_names)
	wait_until "munged" munge_ok
	wait_until "slurmctld to answer ping" ctld_up
	wait_until "every node to respond" nodes_ready
	wait_until "slurmrestd to answer" rest_up
	report_drained
}

rest_url() { echo "http://127.0.0.1:$(port_of slurmrestd)"; }

# The dashboard's address with a token of the user running this (a day
# long); the token is in the fragment, which browsers never send.
print_dashboard() {
	local token
	token=$(ctl scontrol token lifespan=86400 2>&1) || die "scontrol token: $token"
	token=${token#SLURM_JWT=}
	log "dashboard: $(rest_url)/#user=$(id -un)&token=$token"
}

# AccountingStorageEnforce=associations,limits,qos (etc/local/slurm.conf.in):
# the first start creates the cluster (with root's association), the account
# "local" and the association of the user running the script (and of
# $SUDO_USER), so that their jobs are accepted. Later starts find them.
ensure_accounts() {
	local user
	[[ -x $BUILD/sacctmgr ]] || return 0
	if [[ -z $(ctl sacctmgr -n -P list cluster format=Cluster) ]]; then
		ctl sacctmgr -i add cluster local >/dev/null
		log "accounts: added cluster local (root's association)"
	fi
	if [[ -z $(ctl sacctmgr -n -P list account local format=Account) ]]; then
		ctl sacctmgr -i add account local "Description=local users" >/dev/null
	fi
	for user in $(id -un) ${SUDO_USER:-}; do
		[[ $user == root ]] && continue
		if [[ -z $(ctl sacctmgr -n -P list assoc "users=$user" format=User) ]]; then
			ctl sacctmgr -i add user "$user" account=local >/dev/null
			log "accounts: added user $user to account local"
		fi
	done
}

need_binaries() {
	local b
	for b in slurmctld slurmd slurmrestd sinfo scontrol; do
		[[ -x $BUILD/$b ]] || die "$BUILD/$b not built; run 'make build' first"
	done
	[[ -x $MUNGED ]] || die "munged not found; run scripts/install-deps.sh"
}

cmd_up() {
	local name running=() stale=() nodes=()
	need_binaries

	for name in $(recorded_names); do
		if is_live "$name"; then running+=("$name"); else stale+=("$name"); fi
	done
	((${#running[@]})) || COLD=1

	if ((COLD)); then
		# keep the logs of the previous run in run/log.prev
		if [[ -d $RUN/log ]]; then
			rm -rf "$RUN/log.prev"
			mv "$RUN/log" "$RUN/log.prev"
		fi
		# a crash of everything leaves pid files of dead daemons
		for name in "${stale[@]}"; do rm -f "$PIDS/$name.pid"; done
	fi
	mkdir -p "$RUN"/{state,spool,log,pid/script,dev}
	mkdir -p "$RUN/munge"
	# Non-root users need to reach the munge socket (and read the config).
	chmod 0755 "$RUN" "$RUN/munge"
	# as root, character devices of the nvidia major with no driver behind
	# them (open: ENXIO), so the devices cgroup has something to deny;
	# otherwise plain files
	for i in 0 1 2 3; do
		if ((EUID == 0)) && [[ ! -c $RUN/dev/nvidia$i ]]; then
			rm -f "$RUN/dev/nvidia$i"
			mknod -m 0666 "$RUN/dev/nvidia$i" c 195 "$i" 2>/dev/null || true
		fi
		[[ -e $RUN/dev/nvidia$i ]] || : >"$RUN/dev/nvidia$i"
	done
	ensure_config
	mapfile -t nodes < <(node_names)
	mkdir -p "${nodes[@]/#/$RUN/spool/}"

	if [[ ! -s $RUN/munge/munge.key ]]; then
		if [[ -x $MUNGEKEY ]]; then
			"$MUNGEKEY" --create --keyfile="$RUN/munge/munge.key" >/dev/null
		else
			dd if=/dev/urandom of="$RUN/munge/munge.key" bs=1024 count=1 status=none
		fi
	fi
	chmod 0600 "$RUN/munge/munge.key"
	# auth/jwt's key (AuthAltParameters=jwt_key=): readable by SlurmUser only
	if [[ ! -s $RUN/jwt.key ]]; then
		(umask 077 && dd if=/dev/urandom of="$RUN/jwt.key" bs=32 count=1 status=none)
	fi
	chmod 0600 "$RUN/jwt.key"

	mapfile -t stale < <(for name in $(daemon_names); do is_live "$name" || echo "$name"; done)
	if ((${#stale[@]} == 0)); then
		mapfile -t nodes < <(daemon_names)
		log "already running: $(names_summary "${nodes[@]}") (scripts/local-cluster.sh status; make stop)"
	elif ((!COLD)); then
		log "not running: $(names_summary "${stale[@]}"); starting only those (running jobs are kept)"
	fi
	start_missing "${stale[@]}"
	wait_ready
	ensure_accounts
	log "up: $(ctl scontrol ping)"
	print_dashboard
	((COLD == 0)) ||
		log "use it from a shell with:  eval \"\$(scripts/local-cluster.sh env)\""
}

# restart [slurmctld|NODE...]: stop by pid and start again; no name means
# slurmctld and every slurmd (not munged). Running jobs' slurmstepds are
# left alone, as by `up`.
cmd_restart() {
	local arg nodes targets=() name
	# names are checked against the config, or the template before the first `up`
	if [[ -f $CONF ]]; then nodes=$(node_names); else nodes=$(node_names "${TEMPLATES[0]}"); fi
	for arg in "$@"; do
		if [[ $arg == slurmctld || $arg == slurmrestd ]]; then
			name=$arg
		elif grep -qxF -- "${arg#slurmd-}" <<<"$nodes"; then
			name=slurmd-${arg#slurmd-}
		else
			echo "local-cluster: restart: unknown daemon or node '$arg'" \
				"(known: slurmctld ${nodes//$'\n'/ })" >&2
			exit 2
		fi
		[[ " ${targets[*]} " == *" $name "* ]] || targets+=("$name")
	done
	[[ -f $CONF ]] || die "${CONF#"$REPO"/} does not exist; start the cluster with 'scripts/local-cluster.sh up'"
	need_binaries
	((${#targets[@]})) || mapfile -t targets < <(daemon_names | grep -vx munged)

	# slurmrestd and the slurmds first, then the controller
	local slurmds=()
	for name in "${targets[@]}"; do [[ $name == slurmrestd ]] && stop_daemon "$name"; done
	for name in "${targets[@]}"; do [[ $name == slurmd-* ]] && slurmds+=("$name"); done
	stop_daemons "${slurmds[@]}"
	for name in "${targets[@]}"; do [[ $name == slurmctld ]] && stop_daemon "$name"; done
	start_missing "${targets[@]}"
	wait_ready
	log "restarted $(names_summary "${targets[@]}"): $(ctl scontrol ping)"
}

# SIGTERM makes each slurmstepd end its job and exit.
stop_stepds() {
	local pid deadline pids=()
	mapfile -t pids < <(stepd_pids)
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
	local name names=() order=()
	mapfile -t names < <(recorded_names)
	if ((${#names[@]} == 0)); then
		log "nothing to stop"
		return 0
	fi
	# slurmrestd, the slurmds, then the controller, then munged (they need it to the end)
	for name in "${names[@]}"; do [[ $name == slurmrestd ]] && order+=("$name"); done
	for name in "${names[@]}"; do [[ $name == slurmd-* ]] && order+=("$name"); done
	for name in "${names[@]}"; do [[ $name == slurmctld ]] && order+=("$name"); done
	for name in "${names[@]}"; do [[ $name == munged ]] && order+=("$name"); done
	for name in "${names[@]}"; do
		[[ $name == slurmd-* || $name == slurmctld || $name == munged || $name == slurmrestd ]] ||
			order+=("$name")
	done

	stop_stepds
	local slurmds=()
	for name in "${order[@]}"; do
		if [[ $name == slurmd-* ]]; then
			slurmds+=("$name")
			continue
		fi
		((${#slurmds[@]} == 0)) || stop_daemons "${slurmds[@]}"
		slurmds=()
		stop_daemon "$name"
	done
	((${#slurmds[@]} == 0)) || stop_daemons "${slurmds[@]}"
	unmount_job_containers
}

# What job_container/tmpfs left mounted in run/ (BasePath, the namespaces
# of jobs stopped with their slurmd): unmounted, deepest first, lazily.
unmount_job_containers() {
	local points
	((EUID == 0)) && [[ -r /proc/self/mountinfo ]] || return 0
	mapfile -t points < <(awk -v p="$RUN/jobcontainer" \
		'index($5, p) == 1 { print length($5), $5 }' /proc/self/mountinfo | sort -rn | cut -d' ' -f2-)
	((${#points[@]})) || return 0
	umount -l "${points[@]}" 2>/dev/null || true
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
			printf '%-12s NOT running (see run/log; scripts/local-cluster.sh up starts it)\n' "$name"
			down=$((down + 1))
		fi
	done
	if is_live slurmctld; then
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
	[[ ! -s $RUN/slurmrestd.port ]] || printf 'export SLURMRESTD_URL=%q\n' "$(rest_url)"
}

cmd_dashboard() {
	[[ -f $CONF ]] || die "${CONF#"$REPO"/} does not exist yet; run 'make run' first"
	is_live slurmrestd || die "slurmrestd is not running; run 'make run'"
	print_dashboard
}

(($# >= 1)) || usage
case $1 in
up)
	if (($# == 3)) && [[ $2 == --nodes ]]; then
		if [[ ! $3 =~ ^[1-9][0-9]*$ ]] || (($3 > NODES_MAX)); then
			echo "local-cluster: --nodes takes 1 to $NODES_MAX, not '$3'" >&2
			exit 2
		fi
		NODES_WANTED=$3
	elif (($# != 1)); then
		usage
	fi
	cmd_up ;;
restart) shift; cmd_restart "$@" ;;
down) (($# == 1)) || usage; cmd_down ;;
status) (($# == 1)) || usage; cmd_status ;;
env) (($# == 1)) || usage; cmd_env ;;
dashboard) (($# == 1)) || usage; cmd_dashboard ;;
*) usage ;;
esac
