"""Who a user is, as the controller sees it: the name and every group of
the user behind a submission, asked of NSS off the controller's loop and
kept for GroupUpdateTime; scontrol reconfigure asks again.

A user in more groups than a fixed buffer holds (here 260, past the 256 a
getgrouplist into a 256-entry array takes) still has all of them: the
partition that only the last group may use takes their jobs, and the job
runs with every group."""

import grp
import os
import pwd
import subprocess

import pytest

from cluster import Cluster, submit, wait_for, wait_state

USER = "slmanygroups"
GROUPS = [f"slmg{i:03d}" for i in range(260)]
LATE = "slmglate"  # a group the user joins during the test


def make_cluster():
    return Cluster(nodes=("n1",), name="users", partitions=[
        "debug Nodes=n1 Default=YES State=UP",
        f"last Nodes=n1 AllowGroups={GROUPS[-1]} State=UP",
        f"late Nodes=n1 AllowGroups={LATE} State=UP"])


def _run(*cmd, ok=(0, 9, 10)):
    r = subprocess.run(cmd, capture_output=True, text=True)
    # 9: made already (another worker); 10: /etc/group locked: looked at again
    if r.returncode not in ok:
        pytest.fail(f"{' '.join(cmd)}: {r.stderr.strip()}", pytrace=False)


@pytest.fixture(scope="module")
def many_groups_user():
    if os.geteuid() != 0:
        pytest.skip("needs root to make a user and its groups")
    for g in GROUPS + [LATE]:
        wait_for(lambda: _exists(grp.getgrnam, g) or _run("groupadd", g),
                 timeout=30, what=f"group {g}")
    if not _exists(pwd.getpwnam, USER):
        _run("useradd", "--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin",
             USER)
    _run("usermod", "-aG", ",".join(GROUPS), USER)
    _run("gpasswd", "-d", USER, LATE, ok=(0, 3))  # not in it yet (3: it was not)
    return pwd.getpwnam(USER)


def _exists(fn, name):
    try:
        fn(name)
        return True
    except KeyError:
        return False


@pytest.mark.slow  # making 261 groups takes half a minute the first time
def test_a_user_in_260_groups_keeps_every_group(cluster, many_groups_user, tmp_path):
    c = cluster
    d = c.dir / "groups"  # the user writes here: not pytest's 0700 tmp_path
    d.mkdir()
    os.chown(d, many_groups_user.pw_uid, many_groups_user.pw_gid)
    out = d / "groups.out"
    j = submit(c, "-p", "last", "-o", str(out), "--chdir", str(d), "--wrap", "id -G | wc -w",
               user=many_groups_user.pw_name)
    wait_state(c, j, "COMPLETED")
    assert int(out.read_text()) >= len(GROUPS) + 1  # and its own group


@pytest.mark.slow
def test_new_groups_count_after_reconfigure(cluster, many_groups_user):
    c = cluster
    r = c.run("sbatch", "-p", "late", "--wrap", "true", user=many_groups_user.pw_name,
              check=False)
    assert r.returncode == 1
    assert "User's group not permitted to use this partition" in r.stderr
    _run("gpasswd", "-a", USER, LATE)
    try:
        # kept for GroupUpdateTime: the controller has not asked again
        r = c.run("sbatch", "-p", "late", "--wrap", "true", user=many_groups_user.pw_name,
                  check=False)
        assert r.returncode == 1
        c.run("scontrol", "reconfigure")
        j = submit(c, "-p", "late", "-o", "/dev/null", "--wrap", "true",
                   user=many_groups_user.pw_name)
        wait_state(c, j, "COMPLETED")
    finally:
        _run("gpasswd", "-d", USER, LATE)
