"""sacctmgr: clusters, accounts, users and QOS kept by the
controller in the accounting store; round trips, a restart keeps them,
refusals change nothing, only admins change anything.
"""

import pytest

CLUSTER_KWARGS = dict(nodes=["n1"])


def mgr(cluster, *args, **kw):
    return cluster.run("sacctmgr", *args, check=False, **kw)


def listing(cluster, *args):
    return cluster.out("sacctmgr", "-n", "-P", "list", *args)


@pytest.fixture(scope="module")
def tree(cluster):
    r = mgr(cluster, "-i", "add", "cluster", "testc")
    assert r.returncode == 0, r.stderr
    assert " Adding Cluster(s)" in r.stdout
    r = mgr(cluster, "-i", "add", "account", "physics", "Description=phys", "Organization=sci")
    assert r.returncode == 0 and " Adding Account(s)" in r.stdout, r
    r = mgr(cluster, "-i", "add", "user", "bob", "account=physics", "MaxJobs=3")
    assert r.returncode == 0 and " Adding User(s)" in r.stdout, r
    assert "  bob\n" in r.stdout
    r = mgr(cluster, "-i", "add", "qos", "high", "Priority=100", "UsageFactor=2",
            "MaxWall=1:00:00")
    assert r.returncode == 0 and " Adding QOS(s)" in r.stdout, r
    return cluster


def test_lists_show_what_was_added(tree):
    assert "physics|phys|sci" in listing(tree, "account", "format=Account,Descr,Org").split("\n")
    assert "bob|physics|None" in listing(tree, "user").split("\n")
    rows = listing(tree, "assoc", "format=Account,User,MaxJobs,QOS").split("\n")
    assert "physics|bob|3|normal" in rows, rows
    q = listing(tree, "qos", "format=Name,Priority,UsageFactor,MaxWall").split("\n")
    assert "high|100|2.000000|01:00:00" in q, q
    assert "normal|0|1.000000|" in q, q


def test_default_headers(tree):
    out = tree.out("sacctmgr", "list", "assoc")
    head = out.split("\n")[0]
    assert head.split() == ["Cluster", "Account", "User", "Partition", "Share", "Priority",
                            "GrpJobs", "GrpTRES", "GrpSubmit", "GrpWall", "GrpTRESMins",
                            "MaxJobs", "MaxTRES", "MaxTRESPerNode", "MaxSubmit", "MaxWall",
                            "MaxTRESMins", "QOS", "Def", "QOS", "GrpTRESRunMins"[:13]]
    assert out.split("\n")[1].startswith("---------- ")


def test_modify_and_qos_plus_equals(tree):
    r = mgr(tree, "-i", "modify", "user", "where", "name=bob", "account=physics", "set",
            "MaxJobs=2", "QOS+=high", "GrpTRES=cpu=4,gres/gpu=1")
    assert r.returncode == 0, r.stderr
    assert " Modified user associations..." in r.stdout
    rows = listing(tree, "assoc", "user=bob", "format=User,MaxJobs,QOS,GrpTRES").split("\n")
    assert "bob|2|high,normal|cpu=4,gres/gpu=1" in rows, rows
    r = mgr(tree, "-i", "modify", "user", "bob", "set", "QOS-=high")
    assert r.returncode == 0, r.stderr
    rows = listing(tree, "assoc", "user=bob", "format=User,QOS").split("\n")
    assert "bob|normal" in rows, rows


@pytest.mark.parametrize("args,text", [
    (["add", "user", "carl"], "Need name of account to add user to"),
    (["add", "user", "carl", "account=nosuch"], "This account 'nosuch' doesn't exist"),
    (["add", "account", "chem", "parent=nosuch"], "The parent account 'nosuch' doesn't exist"),
    (["add", "user", "carl", "account=physics", "qos=nosuch"], "Unknown QOS name: nosuch"),
    (["add", "user", "carl", "account=physics", "MaxJobs=-5"], "Bad MaxJobs value: -5"),
    (["add", "user", "carl", "account=physics", "MaxJobs=junk"], "Bad MaxJobs value: junk"),
    (["add", "account", "a" * 70], "Invalid name"),
    (["add", "account", "bad/name"], "Invalid name: bad/name"),
])
def test_bad_input_changes_nothing(tree, args, text):
    before = (listing(tree, "assoc"), listing(tree, "user"), listing(tree, "account"))
    r = mgr(tree, "-i", *args)
    assert r.returncode == 1, r
    assert text in r.stderr, r.stderr
    assert (listing(tree, "assoc"), listing(tree, "user"), listing(tree, "account")) == before


def test_duplicate_is_nothing_new(tree):
    r = mgr(tree, "-i", "add", "account", "physics")
    assert r.returncode == 0 and " Nothing new added." in r.stdout, r


def test_no_commit_without_yes(tree):
    r = mgr(tree, "add", "account", "bio", input="n\n")
    assert "Would you like to commit changes? (You have 30 seconds to decide)" in r.stdout
    assert " Changes Discarded" in r.stdout
    assert "bio" not in listing(tree, "account").split("|")
    r = mgr(tree, "add", "account", "bio", input="y\n")
    assert r.returncode == 0, r
    assert "bio|" in listing(tree, "account", "format=Account,Org")


def test_non_admin_refused_but_may_list(tree, test_user):
    before = listing(tree, "assoc")
    r = mgr(tree, "-i", "add", "account", "sneaky", user=test_user.pw_name)
    assert r.returncode == 1 and "Access/permission denied" in r.stderr, r
    assert listing(tree, "assoc") == before
    r = mgr(tree, "-n", "-P", "list", "assoc", user=test_user.pw_name)
    assert r.returncode == 0 and r.stdout == before


def test_delete_user_and_restart_keeps_table(tree):
    r = mgr(tree, "-i", "add", "user", "eve", "account=physics")
    assert r.returncode == 0, r
    r = mgr(tree, "-i", "delete", "user", "eve")
    assert r.returncode == 0 and " Deleting users..." in r.stdout, r
    assert "eve" not in listing(tree, "user")
    r = mgr(tree, "-i", "delete", "user", "eve")
    assert " Nothing deleted" in r.stdout
    before = [listing(tree, e) for e in ("assoc", "user", "account", "qos", "cluster")]
    tree.restart_slurmctld()
    tree.wait_ctld_up()
    after = [listing(tree, e) for e in ("assoc", "user", "account", "qos", "cluster")]
    assert after == before


def test_with_associations_and_parsable(tree):
    out = tree.out("sacctmgr", "-p", "list", "user", "bob", "-s")
    lines = out.split("\n")
    assert lines[0].startswith("User|Def Acct|Admin|Cluster|Account|Partition|Share|"), lines
    assert lines[0].endswith("QOS|Def QOS|")
    assert lines[1].startswith("bob|physics|None|test|physics||1|"), lines
    out = tree.out("sacctmgr", "-n", "-P", "list", "account", "physics", "withassoc",
                   "format=Account,ParentName,User")
    assert "physics|root|" in out.split("\n"), out
    assert "physics||bob" in out.split("\n"), out
