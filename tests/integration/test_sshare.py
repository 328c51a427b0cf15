"""sshare: the association tree with Slurm's columns;
NormShares is shares over the siblings' shares."""

CLUSTER_KWARGS = dict(nodes=["n1"])


def test_sshare_tree_and_columns(cluster, test_user):
    for args in (["add", "cluster", "test"],
                 ["add", "account", "phys", "Fairshare=30"],
                 ["add", "account", "chem", "Fairshare=10"],
                 ["add", "user", test_user.pw_name, "account=phys", "Fairshare=5"]):
        r = cluster.run("sacctmgr", "-i", *args, check=False)
        assert r.returncode == 0, r.stderr
    out = cluster.out("sshare", "-a")
    lines = out.split("\n")
    assert lines[0].split() == ["Account", "User", "RawShares", "NormShares", "RawUsage",
                                "EffectvUsage", "FairShare"]
    assert lines[1].startswith("-------------------- ---------- ")
    rows = cluster.out("sshare", "-a", "-P", "-n").split("\n")
    assert "root|||1.000000|0|0.000000|" in rows, rows
    # root (1) + phys (30) + chem (10) are siblings under root: 30/41
    assert " phys||30|0.731707|0|0.000000|" in rows, rows
    assert " chem||10|0.243902|0|0.000000|" in rows, rows
    assert f"  phys|{test_user.pw_name}|5|1.000000|0|0.000000|0.000000" in rows, rows
    long = cluster.out("sshare", "-l", "-a").split("\n")[0].split()
    assert long == ["Account", "User", "RawShares", "NormShares", "RawUsage", "NormUsage",
                    "EffectvUsage", "FairShare", "LevelFS", "GrpTRESMins", "TRESRunMins"]
    # without -a, another user's rows are left out (root sees its own only)
    assert test_user.pw_name not in cluster.out("sshare", "-P", "-n")
    r = cluster.run("sshare", "-P", "-n", user=test_user.pw_name)
    assert f"|{test_user.pw_name}|" in r.stdout, r
