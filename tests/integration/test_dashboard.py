"""test_dashboard.py - the page slurmrestd serves at "/": its files and
headers over plain HTTP, then the page itself in headless Chromium
(Selenium) against a live cluster: the counts it draws are sinfo's and
sacct's, it follows the cluster as jobs start, it signs in from the
address's fragment or its form, and a job's name is never run as HTML.

The browser part skips, with the reason, where chromium, chromium-driver
or python3-selenium are missing (scripts/install-deps.sh installs them).
"""

import http.client
import os
import shutil

import pytest

from cluster import TIMEOUT_SCALE, submit, wait_for, wait_state

CLUSTER_KWARGS = {
    "nodes": ("g1 Gres=gpu:4", "g2 Gres=gpu:4", "c1"),
    "partitions": ["gpu Nodes=g1,g2 Default=YES MaxTime=INFINITE State=UP",
                   "cpu Nodes=c1 MaxTime=INFINITE State=UP"],
    "gres": ("NodeName=g[1-2] Name=gpu File=@RUN_DIR@/dev/nvidia[0-3]",),
    "settings": {"AuthAltTypes": "auth/jwt",
                 "AuthAltParameters": "jwt_key=@RUN_DIR@/jwt.key"},
    "name": "dashboard",
}

CHARTJS = "/usr/share/javascript/chart.js/chart.min.js"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def get(cluster, path, method="GET"):
    """(status, headers, body) of one request on the TCP port, no token."""
    c = http.client.HTTPConnection("127.0.0.1", cluster.restd_port, timeout=30 * TIMEOUT_SCALE)
    try:
        c.request(method, path)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        c.close()


def token(cluster, user):
    r = cluster.run("scontrol", "token", f"username={user}", "lifespan=3600")
    assert r.stdout.startswith("SLURM_JWT="), r.stdout
    return r.stdout.strip().split("=", 1)[1]


# ----- the files, over plain HTTP -------------------------------------------


@pytest.mark.parametrize("path,ctype,marker", [
    ("/", "text/html", b"<!DOCTYPE html>"),
    ("/index.html", "text/html", b"<!DOCTYPE html>"),
    ("/dashboard.js", "text/javascript", b"window.dashboard"),
    ("/dashboard.css", "text/css", b"{"),
])
def test_dashboard_files_are_served_without_a_token(restd, path, ctype, marker):
    status, h, body = get(restd, path)
    assert status == 200
    assert h["content-type"].startswith(ctype)
    assert marker in body
    assert int(h["content-length"]) == len(body)
    # nothing from elsewhere may run in the page, nor may it be framed
    assert "script-src 'self'" in h["content-security-policy"]
    assert "frame-ancestors 'none'" in h["content-security-policy"]
    assert h["x-content-type-options"] == "nosniff"
    assert h["x-frame-options"] == "DENY"


def test_the_page_loads_only_its_own_files(restd):
    _, _, body = get(restd, "/")
    page = body.decode()
    for src in ("chart.js", "dashboard.js", "dashboard.css"):
        assert f'"{src}"' in page or f'"/{src}"' in page, src
    assert "http://" not in page and "https://" not in page


@pytest.mark.skipif(not os.path.exists(CHARTJS), reason="libjs-chart.js is not installed")
def test_chartjs_comes_from_debians_package(restd):
    status, h, body = get(restd, "/chart.js")
    assert status == 200
    assert h["content-type"].startswith("text/javascript")
    with open(CHARTJS, "rb") as f:
        assert body == f.read()


def test_head_answers_without_a_body(restd):
    status, h, body = get(restd, "/", method="HEAD")
    assert status == 200
    assert body == b""


def test_other_paths_and_methods_are_the_apis(restd):
    # a POST to the page is not the page: the API answers it (with its 401)
    status, h, _ = get(restd, "/", method="POST")
    assert status != 200
    status, h, _ = get(restd, "/../etc/passwd")
    assert status != 200
    status, h, body = get(restd, "/dashboard.js.map")
    assert status in (401, 404)
    assert h["content-type"] == "application/json"
    # the API itself still wants a token
    status, _, _ = get(restd, "/slurm/v0.0.38/jobs")
    assert status == 401


# ----- the page in a browser ------------------------------------------------


def _browser_problem():
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "python3-selenium is not installed"
    if not os.path.exists(CHROMEDRIVER):
        return "chromium-driver is not installed"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        return "chromium is not installed"
    return None


@pytest.fixture(scope="module")
def browser(restd):
    problem = _browser_problem()
    if problem:
        pytest.skip(f"no browser test: {problem}")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    o = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1600", f"--user-data-dir={restd.dir / 'chromium'}"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(CHROMEDRIVER), options=o)
    d.set_page_load_timeout(60 * TIMEOUT_SCALE)
    yield d
    d.quit()


def js(d, expr):
    return d.execute_script(f"return {expr}")


def errors_in_console(d):
    return [e for e in d.get_log("browser") if e["level"] == "SEVERE"]


def open_page(d, cluster, user, tok=None, refresh=1):
    url = f"http://127.0.0.1:{cluster.restd_port}/?refresh={refresh}"
    if tok:
        url += f"#user={user}&token={tok}"
    # from a blank page: a new fragment alone would not load the page again
    d.get("about:blank")
    d.get(url)
    d.get_log("browser")  # what the last page left


def refreshed(d, after=0):
    """Wait until the page has drawn once more than `after` times."""
    wait_for(lambda: (js(d, "window.dashboard && window.dashboard.refreshes") or 0) > after,
             timeout=30, what="the dashboard to refresh")
    return js(d, "window.dashboard.refreshes")


def sinfo_counts(cluster, partition):
    """sinfo's node count per dashboard kind for one partition."""
    kinds = {}
    for line in cluster.out("sinfo", "-h", "-p", partition, "-o", "%T %D").splitlines():
        state, n = line.split()
        state = state.rstrip("*~#!%$@^-")
        kind = {"allocated": "allocated", "completing": "allocated", "mixed": "mixed",
                "idle": "idle", "drained": "drained", "draining": "drained",
                "down": "down"}.get(state, "down")
        kinds[kind] = kinds.get(kind, 0) + int(n)
    return kinds


def page_nodes(d, partition):
    got = js(d, f"window.dashboard.nodes[{partition!r}]") or {}
    return {k: v for k, v in got.items() if v}


def test_page_signs_in_from_the_fragment_and_draws_sinfos_counts(restd, browser, test_user):
    tok = token(restd, test_user.pw_name)
    open_page(browser, restd, test_user.pw_name, tok)
    refreshed(browser)
    # the token left the address bar (and so the history)
    assert "token=" not in browser.current_url
    assert js(browser, "document.getElementById('login').hidden") is True
    assert test_user.pw_name in browser.find_element("id", "who").text
    for p in ("gpu", "cpu"):
        assert page_nodes(browser, p) == sinfo_counts(restd, p), p
    assert js(browser, "window.dashboard.gpus") == {
        "gpu": {"allocated": 0, "idle": 8, "total": 8}}
    assert "0 of 8 GPUs allocated" in browser.find_element("id", "gpu-charts").text
    assert js(browser, "Object.keys(window.dashboard.charts).sort()") == [
        "eff", "nodes", "subs"]
    assert errors_in_console(browser) == []


def test_page_follows_the_cluster_as_a_job_starts_and_ends(restd, browser, test_user, workdir):
    tok = token(restd, test_user.pw_name)
    open_page(browser, restd, test_user.pw_name, tok)
    refreshed(browser)
    before = js(browser, "window.dashboard.submissions.batch") or 0
    j = submit(restd, "-p", "gpu", "-w", "g1", "--gres=gpu:2", "-J", "gpujob", "-D", workdir,
               "-o", "/dev/null", "--wrap", "sleep 300", user=test_user.pw_name)
    wait_state(restd, j, "RUNNING")
    # the page polls every second (?refresh=1): it sees the job without a reload
    wait_for(lambda: js(browser, "window.dashboard.gpus.gpu.allocated") == 2,
             timeout=30, what="2 GPUs allocated on the page")
    assert js(browser, "window.dashboard.gpus.gpu") == {"allocated": 2, "idle": 6, "total": 8}
    wait_for(lambda: page_nodes(browser, "gpu") == sinfo_counts(restd, "gpu"),
             timeout=30, what="the page's node states to be sinfo's")
    assert page_nodes(browser, "gpu") == {"mixed": 1, "idle": 1}
    wait_for(lambda: (js(browser, "window.dashboard.submissions.batch") or 0) == before + 1,
             timeout=30, what="the submission to be counted")
    wait_for(lambda: str(j) in browser.find_element("id", "queue").text,
             timeout=30, what="the job in the page's queue")
    restd.run("scancel", str(j))
    wait_state(restd, j, {"CANCELLED", "COMPLETED"})
    wait_for(lambda: js(browser, "window.dashboard.gpus.gpu.allocated") == 0,
             timeout=30, what="the GPUs free again on the page")
    # like squeue, the queue leaves out finished jobs the controller keeps
    wait_for(lambda: "gpujob" not in browser.find_element("id", "queue").text,
             timeout=30, what="the cancelled job to leave the page's queue")
    assert errors_in_console(browser) == []


def test_finished_jobs_feed_the_efficiency_chart(restd, browser, test_user, workdir):
    j = submit(restd, "-p", "cpu", "--mem=100", "-J", "effjob", "-D", workdir, "-o", "/dev/null",
               "--wrap", "sleep 2", user=test_user.pw_name)
    wait_state(restd, j, "COMPLETED", timeout=60)
    tok = token(restd, test_user.pw_name)
    open_page(browser, restd, test_user.pw_name, tok)
    wait_for(lambda: js(browser, f"window.dashboard.efficiency.some(e => e.job_id === {j})"),
             timeout=30, what="the finished job in the efficiency data")
    e = js(browser, f"window.dashboard.efficiency.find(e => e.job_id === {j})")
    assert e["req_mb"] == 100
    assert e["cpus"] >= 1
    assert e["elapsed"] >= 2
    assert 0 <= e["cpu_eff"] <= 100
    assert e["state"] == "COMPLETED"
    assert errors_in_console(browser) == []


def test_without_a_token_the_page_asks_for_one(restd, browser, test_user):
    open_page(browser, restd, test_user.pw_name)
    wait_for(lambda: js(browser, "document.getElementById('login').hidden") is False,
             timeout=30, what="the sign-in form")
    assert js(browser, "window.dashboard.refreshes") == 0
    before = js(browser, "window.dashboard.refreshes")
    browser.find_element("id", "login-user").send_keys(test_user.pw_name)
    # scontrol token's line as printed works as well as the bare token
    browser.find_element("id", "login-token").send_keys(
        "SLURM_JWT=" + token(restd, test_user.pw_name))
    browser.find_element("css selector", "#login button").click()
    refreshed(browser, before)
    assert js(browser, "document.getElementById('login').hidden") is True
    assert js(browser, "window.dashboard.gpus.gpu.total") == 8


def test_a_bad_token_shows_the_form_again(restd, browser, test_user):
    open_page(browser, restd, test_user.pw_name, "not.a.token")
    wait_for(lambda: js(browser, "document.getElementById('login').hidden") is False,
             timeout=30, what="the sign-in form")
    assert js(browser, "window.dashboard.refreshes") == 0


def test_a_job_name_is_shown_as_text_never_run(restd, browser, test_user, workdir):
    evil = "<img src=x onerror=window.pwned=1>"
    j = submit(restd, "-p", "cpu", "-H", "-J", evil, "-D", workdir, "-o", "/dev/null",
               "--wrap", "true", user=test_user.pw_name)
    try:
        tok = token(restd, test_user.pw_name)
        open_page(browser, restd, test_user.pw_name, tok)
        wait_for(lambda: evil in browser.find_element("id", "queue").text,
                 timeout=30, what="the job's name in the queue, as text")
        assert js(browser, "window.pwned") is None
        assert js(browser, "document.querySelectorAll('#queue img').length") == 0
    finally:
        restd.run("scancel", str(j))


def test_clicking_a_job_shows_its_scontrol_fields(restd, browser, test_user, workdir):
    j = submit(restd, "-p", "cpu", "-H", "-J", "clickme", "-D", workdir, "-o", "/dev/null",
               "--wrap", "true", user=test_user.pw_name)
    try:
        tok = token(restd, test_user.pw_name)
        open_page(browser, restd, test_user.pw_name, tok)
        wait_for(lambda: "clickme" in browser.find_element("id", "queue").text,
                 timeout=30, what="the job in the queue")
        def click_row():
            # the queue is drawn again on each refresh: a row found a moment
            # ago may be gone (stale) by the click, so look and click again
            rows = [r for r in browser.find_elements("css selector", "#queue tr")
                    if "clickme" in r.text]
            if rows:
                rows[0].click()
            return bool(rows)
        wait_for(click_row, timeout=30, what="a click on the job's row")
        wait_for(lambda: "JobName=clickme" in browser.find_element("id", "job-fields").text,
                 timeout=30, what="the job's fields")
        fields = browser.find_element("id", "job-fields").text
        assert f"JobId={j}" in fields
        assert "JobState=PENDING" in fields
        assert "Partition=cpu" in fields
    finally:
        restd.run("scancel", str(j))
