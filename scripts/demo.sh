#!/usr/bin/env bash
# demo.sh - a short tour of the running local cluster (make run calls it):
# the nodes, then a job array, a GPU job and a job that fails, seen in
# squeue while they run and through their output files when done; then
# srun steps with labelled output and a salloc allocation.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$("$REPO/scripts/local-cluster.sh" env)"
DEMO=$REPO/run/demo
mkdir -p "$DEMO"
chmod 0777 "$DEMO"

show() {
	echo
	echo "\$ $*"
	"$@"
}

show scontrol ping
show sinfo
show sinfo -N -l
show scontrol show node g1

submit() {
	local out
	out=$(sbatch --parsable -D "$DEMO" "$@")
	echo "${out%%;*}"
}

echo
echo "\$ sbatch -a 1-6%2 -J array --wrap 'echo task \$SLURM_ARRAY_TASK_ID on \$SLURMD_NODENAME; sleep 2'"
array=$(submit -a 1-6%2 -J array --wrap 'echo task $SLURM_ARRAY_TASK_ID on $SLURMD_NODENAME; sleep 2')
echo "Submitted batch job $array"
echo "\$ sbatch -p gpu-queue --gres=gpu:2 -J gpu --wrap 'echo GPUs \$CUDA_VISIBLE_DEVICES on \$SLURMD_NODENAME'"
gpu=$(submit -p gpu-queue --gres=gpu:2 -J gpu --wrap 'echo GPUs $CUDA_VISIBLE_DEVICES on $SLURMD_NODENAME; sleep 2')
echo "Submitted batch job $gpu"
echo "\$ sbatch -J fails --wrap 'echo about to fail >&2; exit 3'"
fails=$(submit -J fails --wrap 'echo about to fail >&2; exit 3')
echo "Submitted batch job $fails"

show squeue

# wait (with a deadline) until the demo's jobs have left the queue
deadline=$((SECONDS + 60))
while [[ -n $(squeue -h -j "$array,$gpu,$fails" 2>/dev/null) ]] && ((SECONDS < deadline)); do
	sleep 0.5
done

show squeue -t all -j "$array,$gpu,$fails"

# interactive work: a 4-task step on 2 nodes, its output labelled by task,
# then salloc running a command with two steps inside the allocation
show srun -N2 -n4 -l hostname
show srun -N2 -n4 -l printenv SLURMD_NODENAME SLURM_PROCID
steps='srun -l printenv SLURM_STEP_ID SLURMD_NODENAME; srun -n1 -l echo second step'
echo
echo "\$ salloc -N2 -n2 bash -c '$steps'"
salloc -N2 -n2 bash -c "$steps"

# a batch job with a running step, as squeue -s and scontrol show step see it
echo
echo "\$ sbatch -N2 -n2 -J withstep --wrap 'srun sleep 3'"
withstep=$(submit -N2 -n2 -J withstep --wrap 'srun sleep 3')
echo "Submitted batch job $withstep"
deadline=$((SECONDS + 20))
until squeue -s -h -j "$withstep" -o %i 2>/dev/null | grep -q "^$withstep\.0$" || ((SECONDS >= deadline)); do
	sleep 0.2
done
show squeue -s
show scontrol show step "$withstep.0"
show scontrol show job "$fails"
for f in "$DEMO"/slurm-"$array"_*.out "$DEMO/slurm-$gpu.out" "$DEMO/slurm-$fails.out"; do
	[[ -f $f ]] || continue
	echo
	echo "\$ cat ${f#"$REPO"/}"
	cat "$f"
done

# accounting: every job and step of the demo, then one job's efficiency
deadline=$((SECONDS + 30))
while [[ -n $(squeue -h -j "$withstep" 2>/dev/null) ]] && ((SECONDS < deadline)); do
	sleep 0.5
done
show sacct
show sacct -X -o JobID,JobName%12,State,ExitCode,Elapsed,TotalCPU,AllocTRES%40
show sacct -j "$withstep" -o JobID,JobName,State,NTasks,NodeList,MaxRSS,MaxRSSNode,AveRSS
show seff "$withstep"
show seff -u "$(id -un)"
echo
echo "The cluster keeps running. Use it from your shell with:"
echo '  eval "$(scripts/local-cluster.sh env)"'
echo "and stop it with: make stop"
echo
echo "Open the dashboard (live node states, GPUs, submissions, efficiency):"
"$REPO/scripts/local-cluster.sh" dashboard 2>&1 | sed 's/^local-cluster: dashboard: /  /' || true
