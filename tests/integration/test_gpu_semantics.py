"""GPU options beyond --gres and --gpus on a real cluster: --gpus-per-task,
--ntasks-per-gpu, --cpus-per-gpu, --mem-per-gpu, typed GPUs, --gpu-bind
seen in each task's environment, an exclusive job's GPUs, and Slurm's
client-side refusals.

Two nodes g1, g2 of 4 CPUs, each with four fake GPUs: 0-1 a100, 2-3 v100
(gres.conf File= lines, so the GPU variables are exported).
"""

import os
import re
from pathlib import Path

import pytest

from cluster import job, submit, wait_state

CLUSTER_KWARGS = dict(
    nodes=("g1 Gres=gpu:a100:2,gpu:v100:2", "g2 Gres=gpu:a100:2,gpu:v100:2"),
    gres=("NodeName=g[1-2] Name=gpu Type=a100 File=@RUN_DIR@/dev/nvidia[0-1]",
          "NodeName=g[1-2] Name=gpu Type=v100 File=@RUN_DIR@/dev/nvidia[2-3]"),
    settings={"GresTypes": "gpu"},
)


def per_task(out, var="CUDA_VISIBLE_DEVICES"):
    """srun -l printenv lines "0: 1,2" -> {0: "1,2"}."""
    res = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+): (.*)$", line)
        if m:
            res[int(m.group(1))] = m.group(2)
    return res


def srun(cluster, *args, check=True):
    return cluster.run("srun", "-l", *args, check=check)


def test_gpus_per_task_gives_each_task_its_own_gpus(cluster):
    r = srun(cluster, "-w", "g1", "-n2", "--gpus-per-task=2", "printenv",
             "CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "0,1", 1: "2,3"}


def test_gpus_per_task_spreads_gpus_with_the_tasks(cluster, cancel_after):
    j = submit(cluster, "-o", "/dev/null", "-n3", "--gpus-per-task=2", "--wrap", "sleep 300")
    cancel_after.append(j)
    r = wait_state(cluster, j, "RUNNING")
    # two tasks fit g1's four GPUs, the third goes to g2 with two
    assert r["NodeList"] == "g[1-2]"
    assert r["TresPerTask"] == "gres:gpu:2"
    assert "gres/gpu=6" in r["TRES"]


def test_gpu_bind_map_and_verbose(cluster):
    r = srun(cluster, "-w", "g1", "-n2", "--gpus-per-node=4", "--gpu-bind=verbose,map_gpu:3,1",
             "printenv", "CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "3", 1: "1"}
    assert "gpu-bind: usable_gres=0x8; bit_alloc=0xf; local_inx=1; global_list=3;" in r.stderr


def test_ntasks_per_gpu_shares_each_gpu(cluster):
    r = srun(cluster, "-w", "g1", "-n4", "--ntasks-per-gpu=2", "sh", "-c",
             "echo $SLURM_STEP_GPUS/$CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "0,1/0", 1: "0,1/0", 2: "0,1/1", 3: "0,1/1"}


def test_typed_request_takes_only_its_type(cluster):
    r = srun(cluster, "-w", "g2", "-n1", "--gpus-per-node=v100:1", "printenv",
             "CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "2"}
    r = cluster.run("sbatch", "--gres=gpu:h100:1", "--wrap", "true", check=False)
    assert r.returncode == 1
    assert "Invalid generic resource (gres) specification" in r.stderr


def test_cpus_and_memory_per_gpu(cluster, cancel_after):
    j = submit(cluster, "-o", "/dev/null", "-w", "g1", "-n1", "--gpus-per-node=2",
               "--cpus-per-gpu=2", "--mem-per-gpu=300", "--wrap", "sleep 300")
    cancel_after.append(j)
    r = wait_state(cluster, j, "RUNNING")
    assert r["NumCPUs"] == "4"
    assert r["TRES"].startswith("cpu=4,mem=600M,node=1,")
    assert r["CpusPerTres"] == "gres:gpu:2"
    assert r["MemPerTres"] == "gres:gpu:300"
    assert r["TresPerNode"] == "gres:gpu:2"


def test_exclusive_job_gets_every_gpu_of_its_node(cluster, tmp_path):
    out = tmp_path / "gpus.out"
    j = submit(cluster, "-o", str(out), "-w", "g2", "--exclusive", "--gres=gpu:1", "--wrap",
               "echo $SLURM_JOB_GPUS")
    r = wait_state(cluster, j, "COMPLETED")
    assert out.read_text().strip() == "0,1,2,3"
    assert "gres/gpu=4" in r["TRES"]


def test_batch_script_sees_the_gpu_option_echoes(cluster, tmp_path):
    out = tmp_path / "env.out"
    j = submit(cluster, "-o", str(out), "-w", "g1", "-n2", "--gpus-per-task=1",
               "--gpu-bind=single:1", "--wrap",
               "echo $SLURM_GPUS_PER_TASK $SLURM_GPU_BIND; srun -l printenv CUDA_VISIBLE_DEVICES")
    wait_state(cluster, j, "COMPLETED")
    lines = out.read_text().splitlines()
    assert lines[0] == "1 single:1"
    assert per_task("\n".join(lines[1:])) == {0: "0", 1: "1"}


@pytest.mark.parametrize("args, rc, lines", [
    (["--gpus-per-task=1"], 1,
     ["sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus "
      "or -n/--ntasks is not allowed.",
      "sbatch: error: Invalid generic resource (gres) specification"]),
    (["--gpus-per-task=2", "--gpus=3"], 1,
     ["sbatch: error: Failed to validate job spec, --gpus not multiple of --gpus-per-task",
      "sbatch: error: Invalid generic resource (gres) specification"]),
    (["--gpus-per-task=2", "--gpus=4", "-n3"], 1,
     ["sbatch: error: Failed to validate job spec. Based on --gpus and --gpus-per-task number "
      "of requested tasks differ from -n/--ntasks.",
      "sbatch: error: Invalid generic resource (gres) specification"]),
    (["--cpus-per-gpu=2", "-c2"], 1,
     ["sbatch: error: --cpus-per-gpu is mutually exclusive with --cpus-per-task",
      "sbatch: error: Invalid generic resource (gres) specification"]),
    (["--gpus-per-socket=1"], 1,
     ["sbatch: error: --gpus-per-socket option requires --sockets-per-node specification",
      "sbatch: error: Invalid generic resource (gres) specification"]),
    (["--ntasks-per-gpu=2", "--gpus-per-task=1"], 1,
     ["sbatch: fatal: --gpus-per-task is mutually exclusive with --ntasks-per-gpu and "
      "SLURM_NTASKS_PER_GPU"]),
    (["--gpu-bind=bogus"], 255, ["sbatch: error: Invalid --gpu-bind argument: gpu:bogus"]),
    (["--gres-flags=bogus"], 255, ["sbatch: error: Invalid --gres-flags specification"]),
    (["--cpus-per-gpu=0"], 1, ['sbatch: error: Invalid numeric value "0" for --cpus-per-gpu.']),
])
def test_refusals_match_slurm(cluster, args, rc, lines):
    r = cluster.run("sbatch", *args, "--wrap", "true", check=False)
    assert (r.returncode, r.stdout) == (rc, "")
    assert r.stderr.splitlines() == lines


def test_enforce_binding_is_refused_not_ignored(cluster):
    r = cluster.run("sbatch", "--gres-flags=enforce-binding", "--wrap", "true", check=False)
    assert r.returncode == 255
    assert "--gres-flags=enforce-binding is not supported" in r.stderr


def test_gpus_with_gpus_per_task_sets_the_task_count(cluster, cancel_after):
    j = submit(cluster, "-o", "/dev/null", "-H", "--gpus=4", "--gpus-per-task=2", "--wrap", "true")
    cancel_after.append(j)
    r = job(cluster, j)
    assert r["NumTasks"].split()[0] == "2"
    assert r["TresPerJob"] == "gres:gpu:4"


def test_gpus_per_socket_counts_the_sockets_asked(cluster):
    r = srun(cluster, "-w", "g1", "-n1", "--sockets-per-node=1", "--gpus-per-socket=2",
             "printenv", "SLURM_STEP_GPUS")
    assert per_task(r.stdout) == {0: "0,1"}


def test_def_cpu_and_mem_per_gpu(fresh_cluster):
    c = fresh_cluster(nodes=CLUSTER_KWARGS["nodes"], gres=CLUSTER_KWARGS["gres"], name="defgpu",
                      settings={"GresTypes": "gpu", "DefCpuPerGPU": "2", "DefMemPerGPU": "100"})
    j = submit(c, "-o", "/dev/null", "-H", "-n1", "--gpus-per-node=2", "--wrap", "true")
    c.run("scontrol", "release", str(j))
    r = wait_state(c, j, "COMPLETED")
    assert r["TRES"].startswith("cpu=4,mem=200M,node=1,")
    # asked cpus per task: no default cpus per GPU; asked memory: none per GPU
    j = submit(c, "-o", "/dev/null", "-n1", "-c1", "--mem=50", "--gpus-per-node=2", "--wrap",
               "true")
    r = wait_state(c, j, "COMPLETED")
    assert r["TRES"].startswith("cpu=1,mem=50M,node=1,")
    # a partition's own DefCpuPerGPU/DefMemPerGPU win over slurm.conf's
    c.stop()
    c = fresh_cluster(nodes=CLUSTER_KWARGS["nodes"], gres=CLUSTER_KWARGS["gres"],
                      name="defgpupart",
                      partitions=["debug Nodes=g1,g2 Default=YES MaxTime=INFINITE State=UP",
                                  "gpu Nodes=g1,g2 DefCpuPerGPU=1 DefMemPerGPU=300 State=UP"],
                      settings={"GresTypes": "gpu", "DefCpuPerGPU": "2", "DefMemPerGPU": "100"})
    out = c.out("scontrol", "show", "partition", "gpu")
    assert "JobDefaults=DefCpuPerGPU=1,DefMemPerGPU=300" in out, out
    assert "JobDefaults=(null)" in c.out("scontrol", "show", "partition", "debug")
    j = submit(c, "-o", "/dev/null", "-p", "gpu", "-n1", "--gpus-per-node=2", "--wrap", "true")
    r = wait_state(c, j, "COMPLETED")
    assert r["TRES"].startswith("cpu=2,mem=600M,node=1,"), r["TRES"]


def _core_pairs(cpus):
    """(socket, core) of each CPU, from the kernel's topology."""
    def read(c, what):
        return int(open(f"/sys/devices/system/cpu/cpu{c}/topology/{what}").read())
    return {c: (read(c, "physical_package_id"), read(c, "core_id")) for c in cpus}


def test_closest_follows_gres_conf_cores(fresh_cluster):
    """--gpu-bind=closest gives each core-bound task the GPUs whose Cores=
    hold its core. Core indexes are the machine's (socket, core) pairs in
    order, as the stepd numbers them."""
    online = sorted(int(p.name[3:]) for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*")
                    if (p / "topology").exists())
    rank = {pair: i for i, pair in enumerate(sorted(set(_core_pairs(online).values())))}
    mine = _core_pairs(sorted(os.sched_getaffinity(0)))
    units = sorted(set(mine.values()))  # --cpu-bind=cores: task i gets the i-th core
    if len(units) < 2:
        pytest.skip("needs two cores to bind two tasks apart")
    a, b = rank[units[0]], rank[units[1]]
    c = fresh_cluster(nodes=("g1 Gres=gpu:4",), name="closest",
                      gres=(f"NodeName=g1 Name=gpu File=@RUN_DIR@/dev/nvidia[0-1] Cores={a}",
                            f"NodeName=g1 Name=gpu File=@RUN_DIR@/dev/nvidia[2-3] Cores={b}"),
                      settings={"GresTypes": "gpu", "TaskPlugin": "task/affinity"})
    r = c.run("srun", "-l", "-n2", "--cpu-bind=cores", "--gpus-per-node=4", "--gpu-bind=closest",
              "printenv", "CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "0,1", 1: "2,3"}
    r = c.run("srun", "-l", "-n2", "--cpu-bind=cores", "--gpus-per-node=4", "--gpu-bind=single:1",
              "printenv", "CUDA_VISIBLE_DEVICES")
    assert per_task(r.stdout) == {0: "0", 1: "3"}


def test_steps_in_an_allocation_get_the_gpus_they_ask(cluster):
    """Inside a four-GPU allocation a step takes what it asks: --gpus=N of
    all of them, --gpus-per-task per task, a type only of that type;
    nothing asked is all of them, shared."""
    srun = str(cluster.bin_dir / "srun")

    def step(*args):
        r = cluster.run("salloc", "-Q", "-w", "g1", "-n2", "--gpus-per-node=4", srun, "-l",
                        *args, "printenv", "CUDA_VISIBLE_DEVICES")
        return per_task(r.stdout)

    assert step("-n1", "--gpus=2") == {0: "0,1"}
    assert step("-n2") == {0: "0,1,2,3", 1: "0,1,2,3"}
    assert step("-n1", "--gres=gpu:v100:1") == {0: "2"}
    assert step("-n1", "--gpus=v100:2") == {0: "2,3"}
    assert step("-n2", "--gpus-per-task=1") == {0: "0", 1: "1"}
    r = cluster.run("salloc", "-Q", "-w", "g1", "-n2", "--gpus-per-node=2", srun, "-n1",
                    "--gpus=3", "true", check=False)
    assert r.returncode == 1
    assert "Unable to create step for job" in r.stderr, r.stderr
