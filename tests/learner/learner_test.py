#!/usr/bin/env python3
"""learner_test.py: end-to-end tests of the learner's loop, running `cudalab` as a process:
the history (log, compare, progress; migration, a damaged database, concurrent writers),
watch, the installed tree, remote grading over ssh and Slurm, and the profile summary.

Solutions are plain-C solutions of the self-test lab (tests/fixtures/solutions/*.c, built
as .so files) graded through the host-backend runner, so everything runs without a GPU.

usage: learner_test.py --cudalab BIN --runner BIN --solutions DIR --source DIR --build DIR TEST
Exit 0 pass, 1 fail, 77 skipped (a tool is missing: the reason is printed).
"""
import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
from procs import group_leaders_under, in_group  # noqa: E402

SKIP = 77
A = None


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def tmpdir(tag):
    return tempfile.mkdtemp(prefix=f"cudalab-learner-{tag}-", dir="/tmp")


def sol(name):
    return os.path.join(A.solutions, name + ".so")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Env:
    """A private progress database and cache, the fixture labs as home."""

    def __init__(self, tag):
        self.dir = tmpdir(tag)
        self.db = os.path.join(self.dir, "progress.db")
        self.env = dict(os.environ)
        self.env.update({
            "CUDALAB_HOME": os.path.join(A.source, "tests", "fixtures", "home"),
            "CUDALAB_DB": self.db,
            "XDG_CACHE_HOME": os.path.join(self.dir, "cache"),
            "XDG_DATA_HOME": os.path.join(self.dir, "data"),
            "NO_COLOR": "1",
        })

    def workspace(self, solution="wrong", lab="selftest"):
        """A workspace whose solution is a prebuilt .so (the host runner loads it)."""
        ws = os.path.join(self.dir, "ws")
        os.makedirs(os.path.join(ws, ".cudalab"), exist_ok=True)
        with open(os.path.join(ws, ".cudalab", "lab.json"), "w") as f:
            json.dump({"lab": lab, "solution": "sol.so", "hints_shown": 0}, f)
        self.put_solution(ws, solution)
        return ws

    def put_solution(self, ws, solution):
        """Replaces the solution the way an editor saves: write a new file, rename it over."""
        tmp = os.path.join(ws, ".sol.so.tmp")
        shutil.copyfile(sol(solution), tmp)
        os.replace(tmp, os.path.join(ws, "sol.so"))

    def run(self, *args, cwd=None, timeout=120, env=None, input=None):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.run([A.cudalab, *args], cwd=cwd or self.dir, env=e, capture_output=True, text=True,
                           timeout=timeout, input=input)
        return p

    def grade(self, cmd, ws, *extra):
        return self.run(cmd, "--runner", A.runner, *extra, cwd=ws)

    def cleanup(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def expect(p, rc, what):
    check(p.returncode == rc, f"{what}: exit {p.returncode}, wanted {rc}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")


# ---------------------------------------------------------------- the judge's phase profile


def test_phases():
    """CUDALAB_PHASES=FILE: the judge appends one line per case (lab, kind, case name, total
    and each phase in ms), one for its plan, its loading of the solution and its own steps
    (judge); the parent one per judge run (runner) and one for the grading; unset, no file."""
    e = Env("phases")
    try:
        ws = e.workspace("good")
        path = os.path.join(e.dir, "phases.txt")
        expect(e.run("bench", "--runner", A.runner, cwd=ws, env={"CUDALAB_PHASES": path}), 0, "bench with CUDALAB_PHASES")
        lines = [ln.split("\t") for ln in open(path, encoding="utf-8").read().splitlines()]
        check(lines and all(len(f) == 4 and f[0] == "selftest" for f in lines), f"lines: {lines}")
        kinds = [f[1] for f in lines]
        check(all(k in kinds for k in ("test", "bench", "plan", "load", "judge", "runner", "grading")), f"kinds: {kinds}")
        phases = ["total", "setup", "generate", "hash", "poison", "flush", "call", "snapshot", "guards", "verify"]
        for f in lines:
            if f[1] in ("test", "bench"):
                got = dict(kv.split("=") for kv in f[3].split())
                check(list(got) == phases and all(float(v) >= 0 for v in got.values()), f"phases of {f[2]}: {got}")
                check(float(got["call"]) <= float(got["total"]) + 0.5, f"call within total: {got}")
            if f[1] == "judge":  # the judge's own steps, per run: its device, the solution's process, ...
                got = dict(kv.split("=") for kv in f[3].split())
                check(f[2] in ("test", "bench") and list(got) == ["total", "device", "exec", "cases", "stop"],
                      f"judge line: {f}")
            if f[1] == "grading":
                got = dict(kv.split("=") for kv in f[3].split())
                check(list(got) == ["total", "compile", "test", "bench"] and float(got["bench"]) > 0, f"grading line: {f}")
        runners = [float(f[3].split("=")[1]) for f in lines if f[1] == "runner"]
        judges = [float(f[3].split()[0].split("=")[1]) for f in lines if f[1] == "judge"]
        check(len(runners) == 2 and len(judges) == 2 and all(r >= j for r, j in zip(runners, judges)),
              f"the parent's wall time of each judge run covers the judge's own: {runners} {judges}")
        os.unlink(path)
        expect(e.run("test", "--runner", A.runner, cwd=ws), 0, "test without CUDALAB_PHASES")
        check(not os.path.exists(path), "no phase file unless asked")
    finally:
        e.cleanup()


# ---------------------------------------------------------------- history

def test_history():
    """test, bench and submit are each recorded with verdict, cases, seed and source hash;
    log, compare and progress show them, in text and JSON."""
    e = Env("history")
    try:
        ws = e.workspace("wrong")
        p = e.grade("test", ws)
        expect(p, 1, "test of a wrong solution")
        check("attempt 1 recorded" in p.stderr, f"test did not say it recorded the attempt: {p.stderr}")
        e.put_solution(ws, "good")
        expect(e.grade("bench", ws), 0, "bench of a good solution")
        p = e.grade("submit", ws, "--seed", "1234", "--json")
        expect(p, 0, "submit --json")
        submitted = json.loads(p.stdout)

        p = e.run("log", "--json", cwd=ws)
        expect(p, 0, "log --json")
        rows = json.loads(p.stdout)
        check([r["mode"] for r in rows] == ["submit", "bench", "test"], f"modes, newest first: {rows}")
        check([r["id"] for r in rows] == [3, 2, 1], f"ids: {rows}")
        check(rows[2]["verdict"] == "wrong" and rows[2]["passed"] == 1 and rows[2]["total"] == 3, f"test row: {rows[2]}")
        check(rows[0]["seed"] == 1234 and submitted["seed"] == 1234, f"seed kept: {rows[0]}")
        check(rows[2]["source_sha256"] == sha256(sol("wrong")), "the test's source hash is the wrong solution's")
        check(rows[0]["source_sha256"] == sha256(sol("good")), "the submit's source hash is the good solution's")
        # per-case figures are kept: the report of the bench has its bench case's median
        with sqlite3.connect(e.db) as c:
            rep = json.loads(c.execute("SELECT report FROM lab_attempts WHERE id = 2").fetchone()[0])
            srcs = c.execute("SELECT COUNT(*) FROM lab_sources").fetchone()[0]
        bench = [x for x in rep["cases"] if x["kind"] == "bench"]
        check(bench and bench[0]["bench"]["median_ms"] > 0, f"bench figures in the report: {rep['cases']}")
        check(srcs == 2, f"two distinct sources stored once each, got {srcs}")

        p = e.run("log", cwd=ws)
        expect(p, 0, "log")
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        check(len(lines) == 4 and "submit" in lines[1] and "wrong" in lines[3] and "1/3" in lines[3],
              f"log text: {p.stdout}")
        check(sha256(sol("wrong"))[:12] in lines[3], "log shows the source hash")
        p = e.run("log", "--limit", "1", "--json", cwd=ws)
        check(len(json.loads(p.stdout)) == 1, "--limit 1")
        expect(e.run("log", "--limit", "zero"), 2, "log --limit junk")
        p = e.run("log", "reduce")
        expect(p, 0, "log of a lab never tried")
        check("no attempts at reduce" in p.stdout, p.stdout)

        p = e.run("compare", "1", "2", "--json")
        expect(p, 0, "compare --json")
        cmp = json.loads(p.stdout)
        changes = {c["name"]: c["change"] for c in cmp["cases"]}
        check(changes == {"n=1": "same", "n=100": "fixed", "n=5000": "fixed", "n=2^20": "only in b"},
              f"per-case changes: {changes}")
        check(cmp["source_changed"] is True, "the source changed between 1 and 2")
        p = e.run("compare", "2", "3")
        expect(p, 0, "compare text")
        check("n=2^20" in p.stdout and " ms" in p.stdout and "source: the same in both" in p.stdout, p.stdout)
        p = e.run("compare", cwd=ws)  # the last two of the workspace's lab
        expect(p, 0, "compare without arguments in a workspace")
        check("a attempt 2" in p.stdout and "b attempt 3" in p.stdout, p.stdout)
        p = e.run("compare", "1", "99")
        expect(p, 2, "compare with an unknown attempt")
        check("no attempt 99" in p.stderr, p.stderr)
        expect(e.run("compare", "1"), 2, "compare with one attempt")
        expect(e.run("compare", "x", "2"), 2, "compare with junk")

        p = e.run("progress", "--json")
        expect(p, 0, "progress --json")
        prog = json.loads(p.stdout)
        st = [l for l in prog["labs"] if l["lab"] == "selftest"][0]
        check((st["tests"], st["benches"], st["submits"]) == (1, 1, 1), f"selftest counts: {st}")
        check(st["best_score"] == 60 and st["max_score"] == 100, f"best submit score: {st}")
        check(prog["review"] == {"cards": 0, "due": 0, "next_due": None}, f"review queue: {prog['review']}")
        other = [l for l in prog["labs"] if l["lab"] == "reduce"][0]
        check(other["last_verdict"] is None and other["tests"] == 0, f"untried lab: {other}")
        p = e.run("progress")
        expect(p, 0, "progress")
        check("selftest" in p.stdout and "Review queue: empty" in p.stdout and "1 of" in p.stdout, p.stdout)
    finally:
        e.cleanup()


def test_history_diff():
    """compare shows the unified diff of two kept sources."""
    e = Env("diff")
    try:
        ws = e.workspace("wrong")
        expect(e.grade("test", ws), 1, "test")
        with sqlite3.connect(e.db) as c:
            report = c.execute("SELECT report FROM lab_attempts WHERE id = 1").fetchone()[0]
            for text in ("y[i] = a * x[i];\nreturn;\n", "y[i] = a * x[i] + 1;\nreturn;\n"):
                h = hashlib.sha256(text.encode()).hexdigest()
                c.execute("INSERT INTO lab_sources (sha256, bytes, text) VALUES (?,?,?)", (h, len(text), text.encode()))
                c.execute("INSERT INTO lab_attempts (lab, mode, verdict, score, max_score, seed, created_at, report,"
                          " source_sha256) VALUES ('selftest','test','wrong',20,100,1,1,?,?)", (report, h))
        p = e.run("compare", "2", "3")
        expect(p, 0, "compare")
        check("-y[i] = a * x[i];" in p.stdout and "+y[i] = a * x[i] + 1;" in p.stdout and "--- attempt 2" in p.stdout,
              f"unified diff: {p.stdout}")
        p = e.run("compare", "2", "3", "--json")
        check("+y[i] = a * x[i] + 1;" in json.loads(p.stdout)["diff"], "diff in JSON")
    finally:
        e.cleanup()


OLD_SCHEMA = """CREATE TABLE lab_attempts (id INTEGER PRIMARY KEY, lab TEXT NOT NULL, mode TEXT NOT NULL,
verdict TEXT NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL, tier TEXT, seed INTEGER NOT NULL, gpu TEXT,
solution TEXT, created_at INTEGER NOT NULL, report TEXT NOT NULL);
CREATE INDEX lab_attempts_lab ON lab_attempts(lab);"""


def test_history_migrate():
    """A database from before the history (no source column) is brought up to date, and
    keeps its rows."""
    e = Env("migrate")
    try:
        with sqlite3.connect(e.db) as c:
            c.executescript(OLD_SCHEMA)
            c.execute("INSERT INTO lab_attempts (lab, mode, verdict, score, max_score, tier, seed, gpu, solution,"
                      " created_at, report) VALUES ('selftest','submit','good',90,100,'good',77,'gpu','/old.cu',1700000000,"
                      " '{\"passed\": 3, \"total\": 3, \"cases\": []}')")
        p = e.run("log", "--json")
        expect(p, 0, "log of an old database")
        rows = json.loads(p.stdout)
        check(len(rows) == 1 and rows[0]["seed"] == 77 and rows[0]["source_sha256"] is None
              and rows[0]["tier"] == "good" and rows[0]["passed"] == 3, f"old row kept: {rows}")
        ws = e.workspace("wrong")
        expect(e.grade("test", ws), 1, "test into a migrated database")
        rows = json.loads(e.run("log", "--json").stdout)
        check(len(rows) == 2 and rows[0]["source_sha256"] == sha256(sol("wrong")), f"new row: {rows}")
        p = e.run("list", "--json")
        best = [l for l in json.loads(p.stdout) if l["lab"] == "selftest"][0].get("best")
        check(best and best["score"] == 90 and best["attempts"] == 1, f"list's best is the old submit: {best}")
    finally:
        e.cleanup()


def test_history_damaged():
    """A damaged database is reported, named, and never changed; grading still works."""
    e = Env("damaged")
    try:
        junk = b"this is not SQLite\n" * 300
        with open(e.db, "wb") as f:
            f.write(junk)
        for args in (["log"], ["progress"], ["compare", "1", "2"], ["log", "--json"]):
            p = e.run(*args)
            expect(p, 2, " ".join(args) + " on a damaged database")
            check("damaged" in p.stderr and e.db in p.stderr and "left untouched" in p.stderr, p.stderr)
        ws = e.workspace("wrong")
        p = e.grade("test", ws)
        expect(p, 1, "test still grades with a damaged database")
        check("FAIL" in p.stdout and "not recorded" in p.stderr and "damaged" in p.stderr, p.stdout + p.stderr)
        with open(e.db, "rb") as f:
            check(f.read() == junk, "the damaged database was changed")
        check(not os.path.exists(e.db + "-wal"), "a WAL file was made next to a damaged database")
    finally:
        e.cleanup()


def test_history_concurrent():
    """Several graders writing at once: every attempt is kept, the database stays sound."""
    e = Env("concurrent")
    try:
        n = 6
        wss = []
        for i in range(n):
            ws = os.path.join(e.dir, f"ws{i}")
            os.makedirs(os.path.join(ws, ".cudalab"))
            with open(os.path.join(ws, ".cudalab", "lab.json"), "w") as f:
                json.dump({"lab": "selftest", "solution": "sol.so", "hints_shown": 0}, f)
            shutil.copyfile(sol("good" if i % 2 else "wrong"), os.path.join(ws, "sol.so"))
            wss.append(ws)
        procs = [subprocess.Popen([A.cudalab, "test", "--runner", A.runner], cwd=ws, env=e.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for ws in wss]
        for p, ws in zip(procs, wss):
            out, err = p.communicate(timeout=240)
            check(p.returncode in (0, 1) and "could not record" not in err, f"{ws}: {p.returncode} {err}")
        rows = json.loads(e.run("log", "--json").stdout)
        check(len(rows) == n and sorted(r["id"] for r in rows) == list(range(1, n + 1)), f"{len(rows)} rows: {rows}")
        check(sum(r["verdict"] == "correct" for r in rows) == n // 2, "verdicts")
        with sqlite3.connect(e.db) as c:
            check(c.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "integrity")
            check(c.execute("PRAGMA journal_mode").fetchone()[0] == "wal", "WAL mode")
    finally:
        e.cleanup()


# ---------------------------------------------------------------- watch

class Watcher:
    """`cudalab watch --lines` in a workspace, its output read as it comes."""

    def __init__(self, e, ws, *extra):
        import queue
        import threading
        self.out = ""
        self.q = queue.Queue()
        self.p = subprocess.Popen([A.cudalab, "watch", "--runner", A.runner, *extra], cwd=ws, env=e.env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  bufsize=1)

        def pump():
            for line in self.p.stdout:
                self.q.put(line)
            self.q.put(None)
        threading.Thread(target=pump, daemon=True).start()

    def wait_for(self, text, timeout=60):
        """Waits until text appears in the output after what was already consumed."""
        import queue
        deadline = time.time() + timeout
        seen = ""
        while text not in seen:
            left = deadline - time.time()
            try:
                line = self.q.get(timeout=max(left, 0.01))
            except queue.Empty:
                line = ""
            if line is None or left <= 0:
                raise AssertionError(f"watch never printed {text!r}; it printed:\n{self.out + seen}")
            seen += line
        self.out += seen
        return seen

    def key(self, k):
        self.p.stdin.write(k + "\n")
        self.p.stdin.flush()

    def finish(self, timeout=30):
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise AssertionError("watch did not quit")
        rest = "".join(l for l in iter(self.q.get, None))
        self.out += rest
        return rc, rest


def test_watch():
    """watch tests at start, re-tests on every save (the new result shows), and runs
    hint, bench and submit from keys; q quits."""
    e = Env("watch")
    try:
        ws = e.workspace("wrong")
        w = Watcher(e, ws)
        try:
            got = w.wait_for("keys:")
            check("== run 1: sol.so" in got and "WRONG" in got, f"first run: {got}")
            check("first failing case: n=100" in got and "expected" in got and "got" in got, f"first failure: {got}")
            check("progress: 1/3 cases pass" in got, f"progress line: {got}")
            e.put_solution(ws, "good")  # a save (write + rename, like an editor)
            got = w.wait_for("keys:")
            check("== run 2: sol.so" in got and "CORRECT" in got and "3/3 cases pass" in got, f"after save: {got}")
            check("first failing case" not in got, got)
            with open(os.path.join(ws, "notes.txt"), "w") as f:  # another file: no re-test
                f.write("x")
            w.key("h")
            got = w.wait_for("keys:")
            check("hint 1/1" in got and "Multiply every element by a." in got and "== run 3" not in got,
                  f"hint key: {got}")
            w.key("b")
            got = w.wait_for("keys:")
            check("performance" in got and "n=2^20" in got, f"bench key: {got}")
            shutil.copyfile(sol("wrong"), os.path.join(ws, "sol.so"))  # an in-place save (close_write)
            got = w.wait_for("keys:")
            check("== run 3" in got and "WRONG" in got and "(best 3/3)" in got, f"in-place save: {got}")
            w.key("s")
            got = w.wait_for("keys:")
            check("score" in got and "WRONG" in got, f"submit key: {got}")
            w.key("q")
            rc, rest = w.finish()
            check(rc == 0 and "stopped watching" in rest, f"quit: {rc} {rest}")
        finally:
            if w.p.poll() is None:
                w.p.kill()
        rows = json.loads(e.run("log", "--json").stdout)
        check([r["mode"] for r in rows] == ["submit", "test", "bench", "test", "test"], f"recorded: {rows}")
        check(os.listdir(os.path.join(ws, ".cudalab", "reports")), "submit from watch wrote its report")
    finally:
        e.cleanup()


def test_watch_quit():
    """watch quits cleanly on Ctrl-C (SIGINT) and when the workspace disappears."""
    import signal
    e = Env("watchq")
    try:
        ws = e.workspace("good")
        w = Watcher(e, ws)
        w.wait_for("keys:")
        w.p.send_signal(signal.SIGINT)
        rc, rest = w.finish()
        check(rc == 0 and "stopped watching" in rest, f"Ctrl-C: {rc} {rest}")
        w = Watcher(e, ws)
        w.wait_for("keys:")
        shutil.rmtree(ws)
        rc, rest = w.finish()
        check(rc == 0 and "is gone" in rest, f"workspace removed: {rc} {rest}")
        expect(e.run("watch", cwd=e.dir), 2, "watch outside a workspace")
        ws = e.workspace("good")
        p = e.run("watch", "reduce", cwd=ws)
        expect(p, 2, "watch of another lab")
        check("inside a workspace of reduce" in p.stderr, p.stderr)
    finally:
        e.cleanup()


def test_watch_interrupt():
    """Ctrl-C while watch re-tests a solution that hangs: the grading is killed at once
    (nothing of it is left), watch stops, and the killed run is neither shown nor recorded."""
    import signal
    e = Env("watchint")
    try:
        ws = e.workspace("hang")
        w = Watcher(e, ws, "--timeout", "60")
        try:
            judges, t0 = [], time.time()
            while not judges and time.time() - t0 < 20:
                time.sleep(0.1)
                judges = group_leaders_under(w.p.pid)
            check(judges, "no grading started")
            time.sleep(0.5)
            t1 = time.time()
            w.p.send_signal(signal.SIGINT)
            rc, rest = w.finish(timeout=10)
            check(rc == 0 and "stopped watching" in rest, f"Ctrl-C: {rc} {rest}")
            check(time.time() - t1 < 5, f"watch took {time.time() - t1:.1f} s to stop")
            check("TIMEOUT" not in w.out and "CRASH" not in w.out, f"the killed run was shown: {w.out}")
            deadline = time.time() + 5
            while any(in_group(j) for j in judges) and time.time() < deadline:
                time.sleep(0.1)
            check(not any(in_group(j) for j in judges), f"the grading outlived watch: groups {judges}")
        finally:
            if w.p.poll() is None:
                w.p.kill()
        rows = json.loads(e.run("log", "--json").stdout)
        check(rows == [], f"the killed run was recorded: {rows}")
    finally:
        e.cleanup()


def test_watch_tty():
    """On a terminal, keys act without Enter (raw mode) and the terminal is restored."""
    import pty
    import select
    e = Env("watchtty")
    try:
        ws = e.workspace("wrong")
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(ws)
            os.execve(A.cudalab, [A.cudalab, "watch", "--runner", A.runner], e.env)
        out = b""

        def until(text, timeout=60):
            nonlocal out
            deadline = time.time() + timeout
            while text.encode() not in out:
                r, _, _ = select.select([fd], [], [], max(deadline - time.time(), 0))
                if not r:
                    raise AssertionError(f"no {text!r} on the terminal: {out.decode(errors='replace')}")
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    raise AssertionError(f"terminal closed before {text!r}: {out.decode(errors='replace')}")
        until("keys:")
        check(b"(then Enter)" not in out, "raw mode on a terminal")
        os.write(fd, b"h")  # no newline
        until("hint 1/1")
        os.write(fd, b"q")
        until("stopped watching")
        _, status = os.waitpid(pid, 0)
        check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"exit status {status}")
        os.close(fd)
    finally:
        e.cleanup()


def test_watch_mismatch():
    """On a terminal, watch shows the first failing case's mismatch report in short (the
    first five elements, the largest error, the guess), in English and with --lang zh."""
    import pty
    import select
    e = Env("watchmm")
    try:
        ws = e.workspace("softmax_host_nomax", lab="softmax")
        for lang, want, not_want in (
                ("en", ["first failing case: 1000 x 1000, +-1e4", "elements wrong", "where", "out[row 0, col 3]",
                        "... and ", "largest error at out[row 0, col 3]: expected 0, got nan",
                        "pattern: ", "where the answer is finite: an exp() overflow"],
                 ["out[row 0, col 16]"]),  # the sixth wrong element: only five shown
                ("zh", ["个元素错误", "位置", "期望值", "out[row 0, col 3]", "…… 另有 ",
                        "最大误差在 out[row 0, col 3]：期望 0，实际 nan", "推测：",
                        "在答案有限处为 NaN 或 Inf：exp() 溢出"],
                 ["out[row 0, col 16]", "elements wrong", "pattern: ", "largest error at"])):
            pid, fd = pty.fork()
            if pid == 0:
                os.chdir(ws)
                os.execve(A.cudalab, [A.cudalab, "watch", "--runner", A.runner, "--seed", "20260401",
                                      "--lang", lang], e.env)
            out = b""
            run, key = ("== run 1", "keys:") if lang == "en" else ("== 第 1 次运行", "按键：")
            run, key = run.encode(), key.encode()
            deadline = time.time() + 240
            while run not in out or key not in out.split(run, 1)[1]:
                r, _, _ = select.select([fd], [], [], max(deadline - time.time(), 0))
                if not r:
                    raise AssertionError(f"{lang}: no report on the terminal: {out.decode(errors='replace')}")
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    raise AssertionError(f"{lang}: terminal closed: {out.decode(errors='replace')}")
            text = out.decode(errors="replace")
            for w in want:
                check(w in text, f"{lang}: {w!r} not shown:\n{text}")
            for w in not_want:
                check(w not in text, f"{lang}: {w!r} shown:\n{text}")
            os.write(fd, b"q")
            _, status = os.waitpid(pid, 0)
            check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"{lang}: exit status {status}")
            os.close(fd)
    finally:
        e.cleanup()


# ---------------------------------------------------------------- install

def tree_state(root):
    """Every file under root with its size and mtime: to see that nothing wrote there."""
    state = {}
    for d, _, files in os.walk(root):
        for f in files:
            st = os.lstat(os.path.join(d, f))
            state[os.path.join(d, f)] = (st.st_size, st.st_mtime_ns)
    return state


def installed_runs(prefix, work, cache):
    """The installed cudalab, from a folder outside the source tree, with no hint where
    the source is: tour, quiz, list, fetch, compile, and nothing written under share/."""
    exe = os.path.join(prefix, "bin", "cudalab")
    share = os.path.join(prefix, "share", "cudalab")
    check(os.access(exe, os.X_OK), f"{exe} is not installed")
    for f in ("labs/include/cudalab_lab.h", "labs/reduce/lab.yaml", "labs/reduce/reduce.cu", "reference/reduce.cu",
              "questions/memory.yaml"):
        check(os.path.isfile(os.path.join(share, f)), f"{f} is not installed under {share}")
    check(not os.path.exists(os.path.join(share, "questions", "src")), "question sources installed")
    if os.path.isdir(os.path.join(A.build, "man")):
        check(os.listdir(os.path.join(prefix, "share", "man", "man1")), "the generated man page is not installed")
    os.makedirs(work, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUDALAB_", "XDG_"))}
    env.update({"HOME": os.path.join(work, "home"), "NO_COLOR": "1", "XDG_CACHE_HOME": cache, "LANG": "C"})
    before = tree_state(prefix)

    def run(*args, cwd=work, input=None, timeout=900):
        p = subprocess.run([exe, *args], cwd=cwd, env=env, capture_output=True, text=True, input=input,
                           timeout=timeout)
        return p
    p = run("tour")
    expect(p, 0, "installed tour")
    check("questions in" in p.stdout and "reduce" in p.stdout, f"tour: {p.stdout}")
    p = run("quiz", "--n", "2", "--seed", "1", "--answers", "-", input="a\na\n")
    expect(p, 0, "installed quiz")
    check("Score:" in p.stdout, f"quiz: {p.stdout}")
    p = run("list", "--json")
    expect(p, 0, "installed list")
    check(any(l["lab"] == "reduce" for l in json.loads(p.stdout)), "list has the labs")
    expect(run("fetch", "reduce"), 0, "installed fetch")
    ws = os.path.join(work, "reduce")
    check(os.path.isfile(os.path.join(ws, "reduce.cu")) and os.path.isfile(os.path.join(ws, "cudalab_lab.h")),
          "fetch made the workspace")
    p = run("compile", "--arch", "sm_90", cwd=ws)
    expect(p, 0, "installed compile in a workspace")
    p = run("progress", "--json")
    expect(p, 0, "installed progress")
    check(os.path.isfile(os.path.join(work, "home", ".local", "share", "cudalab", "progress.db")),
          "the progress database is under $HOME/.local/share")
    check(tree_state(prefix) == before, "running the installed cudalab wrote into its install prefix")


def test_install():
    """cmake --install into a fresh prefix; the installed cudalab runs from elsewhere."""
    d = tmpdir("install")
    try:
        prefix = os.path.join(d, "prefix")
        p = subprocess.run(["cmake", "--install", A.build, "--prefix", prefix], capture_output=True, text=True)
        expect(p, 0, "cmake --install")
        installed_runs(prefix, os.path.join(d, "work"), os.path.join(A.build, "test-state", "install-cache"))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def test_install_deb():
    """The CPack .deb installs (dpkg into a private root) and its cudalab runs."""
    for tool in ("cpack", "dpkg", "dpkg-deb"):
        if not shutil.which(tool):
            raise Skip(f"{tool} is not installed")
    d = tmpdir("deb")
    try:
        p = subprocess.run(["cpack", "-G", "DEB", "--config", os.path.join(A.build, "CPackConfig.cmake"), "-B",
                            os.path.join(d, "out")], capture_output=True, text=True, timeout=600)
        expect(p, 0, "cpack -G DEB")
        debs = [f for f in os.listdir(os.path.join(d, "out")) if f.endswith(".deb")]
        check(len(debs) == 1, f"one .deb: {debs}")
        deb = os.path.join(d, "out", debs[0])
        info = subprocess.run(["dpkg-deb", "-f", deb, "Package", "Depends"], capture_output=True, text=True).stdout
        check("Package: cudalab" in info and "libc6" in info, f"control: {info}")
        root = os.path.join(d, "root")
        os.makedirs(os.path.join(root, "var", "lib", "dpkg", "info"))
        os.makedirs(os.path.join(root, "var", "lib", "dpkg", "updates"))
        open(os.path.join(root, "var", "lib", "dpkg", "status"), "w").close()
        # the private root's package database knows none of the system's libraries
        p = subprocess.run(["dpkg", "--root", root, "--force-depends", "--force-not-root", "-i", deb],
                           capture_output=True, text=True)
        expect(p, 0, "dpkg -i")
        installed_runs(os.path.join(root, "usr"), os.path.join(d, "work"),
                       os.path.join(A.build, "test-state", "install-cache"))
        p = subprocess.run(["dpkg", "--root", root, "--force-not-root", "-r", "cudalab"], capture_output=True, text=True)
        expect(p, 0, "dpkg -r")
        check(not os.path.exists(os.path.join(root, "usr", "bin", "cudalab")), "removed")
    finally:
        shutil.rmtree(d, ignore_errors=True)


# ---------------------------------------------------------------- remote

def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Sshd:
    """A real sshd on a high localhost port: a temporary host key, one authorized key, and
    an ssh config that names it `cltest` (CUDALAB_SSH="ssh -F <config>")."""

    def __init__(self, d):
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        if not os.path.exists(sshd) or not shutil.which("ssh"):
            raise Skip("sshd or ssh is not installed (scripts/install-deps.sh --test-tools installs openssh-server)")
        if os.geteuid() != 0:
            raise Skip("the test sshd runs as root")
        self.dir = os.path.join(d, "ssh")
        os.makedirs(self.dir, mode=0o700)
        for k in ("host", "client"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", os.path.join(self.dir, k)], check=True)
        shutil.copyfile(os.path.join(self.dir, "client.pub"), os.path.join(self.dir, "authorized_keys"))
        # `clnobody` points at a port held bound (never listening) for the whole test, so a
        # connection there is refused; a port merely free when the config was written could
        # be handed out again, even to this sshd
        import socket
        self.blocker = socket.socket()
        self.blocker.bind(("127.0.0.1", 0))
        refused_port = self.blocker.getsockname()[1]
        self.port = free_port()
        while self.port == refused_port:
            self.port = free_port()
        conf = os.path.join(self.dir, "sshd_config")
        with open(conf, "w") as f:
            f.write(f"""Port {self.port}
ListenAddress 127.0.0.1
HostKey {self.dir}/host
AuthorizedKeysFile {self.dir}/authorized_keys
PidFile {self.dir}/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
""")
        os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory
        with open(os.path.join(self.dir, "host.pub")) as f:
            hostkey = f.read().split()
        with open(os.path.join(self.dir, "known_hosts"), "w") as f:
            f.write(f"[127.0.0.1]:{self.port} {hostkey[0]} {hostkey[1]}\n")
        self.config = os.path.join(self.dir, "ssh_config")
        with open(self.config, "w") as f:
            f.write(f"""Host cltest
  HostName 127.0.0.1
  Port {self.port}
  User root
  IdentityFile {self.dir}/client
  IdentitiesOnly yes
  UserKnownHostsFile {self.dir}/known_hosts
  StrictHostKeyChecking yes
Host clnobody
  HostName 127.0.0.1
  Port {refused_port}
  User root
  IdentityFile {self.dir}/client
  UserKnownHostsFile {self.dir}/known_hosts
""")
        self.proc = subprocess.Popen([sshd, "-D", "-f", conf, "-E", os.path.join(self.dir, "sshd.log")])
        for _ in range(100):
            p = subprocess.run(["ssh", "-F", self.config, "-o", "BatchMode=yes", "cltest", "true"],
                               capture_output=True, text=True)
            if p.returncode == 0:
                return
            time.sleep(0.1)
        self.stop()
        raise AssertionError(f"the test sshd did not come up: {p.stderr}\n{open(os.path.join(self.dir, 'sshd.log')).read()}")

    def stop(self):
        self.blocker.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def remote_cudalab(e, tag):
    """The cudalab command on the 'remote' side: the same binary, its own database."""
    rdb = os.path.join(e.dir, f"remote-{tag}.db")
    return rdb, (f"env CUDALAB_HOME={e.env['CUDALAB_HOME']} CUDALAB_DB={rdb} XDG_CACHE_HOME={e.dir}/remote-cache "
                 f"NO_COLOR=1 {A.cudalab}")


def leftover_remote_dirs():
    return {d for d in os.listdir("/tmp") if d.startswith("cudalab-remote.")}


def test_remote_ssh():
    """test, bench and submit --remote HOST against a real sshd: the workspace's solution
    is sent, graded there, the report comes back, is printed and recorded here."""
    e = Env("remote")
    sshd = Sshd(e.dir)
    try:
        before = leftover_remote_dirs()
        e.env["CUDALAB_SSH"] = f"ssh -F {sshd.config}"
        rdb, rcmd = remote_cudalab(e, "ssh")
        ws = e.workspace("wrong")
        p = e.grade("test", ws, "--remote", "cltest", "--remote-cudalab", rcmd)
        expect(p, 1, "test --remote of a wrong solution")
        check("FAIL n=100" in p.stdout and "expected" in p.stdout and "attempt 1 recorded" in p.stderr,
              f"report back: {p.stdout} {p.stderr}")
        e.put_solution(ws, "good")
        p = e.grade("bench", ws, "--remote", "cltest", "--remote-cudalab", rcmd, "--json", "--seed", "4242")
        expect(p, 0, "bench --remote --json")
        rep = json.loads(p.stdout)
        check(rep["verdict"] == "correct" and rep["seed"] == 4242 and rep["device"]["name"] == "host (test backend)",
              f"remote report: {rep}")
        check(any(c["kind"] == "bench" and c["bench"]["median_ms"] > 0 for c in rep["cases"]), "bench figures came back")
        # the same through CUDALAB_REMOTE_CUDALAB
        p = e.run("submit", "--runner", A.runner, "--remote", "cltest", cwd=ws, env={"CUDALAB_REMOTE_CUDALAB": rcmd})
        expect(p, 0, "submit --remote")
        check("score" in p.stdout, p.stdout)
        rows = json.loads(e.run("log", "--json").stdout)
        check([r["mode"] for r in rows] == ["submit", "bench", "test"], f"recorded here: {rows}")
        check(rows[2]["source_sha256"] == sha256(sol("wrong")) and rows[0]["source_sha256"] == sha256(sol("good")),
              "the sources graded there are the ones recorded here")
        check(rows[1]["seed"] == 4242, "the seed")
        check(os.listdir(os.path.join(ws, ".cudalab", "reports")), "a remote submit writes its report here")
        with sqlite3.connect(rdb) as c:  # it really ran over there
            check(c.execute("SELECT COUNT(*) FROM lab_attempts").fetchone()[0] == 3, "graded by the remote cudalab")
        check(leftover_remote_dirs() == before, "the remote temporary folder was left behind")
        # what goes wrong says so
        p = e.grade("test", ws, "--remote", "clnobody", "--remote-cudalab", rcmd)
        expect(p, 2, "an unreachable host")
        check("no report came back" in p.stderr and "Connection refused" in p.stderr, p.stderr)
        p = e.grade("test", ws, "--remote", "cltest", "--remote-cudalab", "/nonexistent/cudalab")
        expect(p, 2, "no cudalab there")
        check("not found" in p.stderr or "No such file" in p.stderr, p.stderr)
        expect(e.run("compile", "--remote", "cltest", cwd=ws), 2, "compile --remote")
        check(len(json.loads(e.run("log", "--json").stdout)) == 3, "failed remote calls record nothing")
    finally:
        sshd.stop()
        e.cleanup()


def test_remote_slurm():
    """test --slurm through srun on the one-node Slurm cluster the classroom tests start."""
    sys.path.insert(0, os.path.join(A.source, "tests", "classroom"))
    import classroom_test
    e = Env("slurm")
    try:
        try:
            cluster = classroom_test.SlurmCluster()
        except classroom_test.Skip as s:
            raise Skip(str(s))
        try:
            e.env.update(cluster.env)
            rdb, rcmd = remote_cudalab(e, "slurm")
            ws = e.workspace("wrong")
            p = e.grade("test", ws, "--slurm", "--slurm-args", "-N1 -n1 -t 5", "--remote-cudalab", rcmd)
            if p.returncode != 1:
                print(cluster.logs())
            expect(p, 1, "test --slurm of a wrong solution")
            check("FAIL n=100" in p.stdout, p.stdout + p.stderr)
            e.put_solution(ws, "good")
            p = e.grade("submit", ws, "--slurm", "--slurm-args", "-N1 -n1 -t 5", "--remote-cudalab", rcmd, "--json")
            expect(p, 0, "submit --slurm --json")
            check(json.loads(p.stdout)["verdict"] == "correct", p.stdout)
            rows = json.loads(e.run("log", "--json").stdout)
            check([r["mode"] for r in rows] == ["submit", "test"], f"recorded here: {rows}")
            # the default asks for a GPU; this node has none, and srun's refusal is shown
            p = e.grade("test", ws, "--slurm", "--remote-cudalab", rcmd)
            expect(p, 2, "--slurm with --gres=gpu:1 on a node without GPUs")
            check("srun" in p.stderr and "no report came back" in p.stderr, p.stderr)
        finally:
            cluster.stop()
    finally:
        e.cleanup()


# ---------------------------------------------------------------- profile

def test_profile():
    """bench --profile: ncu's report summarised after the bench (a stand-in ncu here: no
    GPU), its absence and a missing counter permission explained, JSON too."""
    e = Env("profile")
    try:
        ws = e.workspace("good_kernel_stub")
        fake = os.path.join(A.source, "tests", "learner", "fake_ncu.py")
        args_file = os.path.join(e.dir, "ncu-args.json")
        # without ncu (CUDALAB_NCU names none), the bench result stands and the reason is given
        p = e.run("bench", "--runner", A.runner, "--profile", cwd=ws, env={"CUDALAB_NCU": "/nonexistent/ncu"})
        expect(p, 0, "bench --profile without ncu")
        check("performance" in p.stdout and "ncu (Nsight Compute) was not found" in p.stderr, p.stdout + p.stderr)
        p = e.run("bench", "--runner", A.runner, "--profile", "--seed", "7", cwd=ws,
                  env={"CUDALAB_NCU": fake, "FAKE_NCU_ARGS": args_file})
        expect(p, 0, "bench --profile")
        out = p.stdout
        check("profile      Nsight Compute on n=2^20" in out and "scale  x3" in out, out)
        check("the bytes selftest must move" in out and "sectors per global store request" in out and "try:" in out,
              out)
        check("top stalls long_scoreboard" in out and "warps mostly stall on long_scoreboard" in out, out)
        with open(args_file) as f:
            ncu_args = json.load(f)
        check(ncu_args[ncu_args.index("--kernel-name") + 1] == "regex:^(.*::)?(scale)(<.*>)?$", f"kernel filter: {ncu_args}")
        app = ncu_args[ncu_args.index("--log-file") + 2:]
        # the judge takes its seed on stdin, never on a command line anyone can read
        check(app[0] == A.runner and "--seed" not in app and app[app.index("--case") + 1] == "n=2^20"
              and "--quick" not in app and "--profiled" in app and "--verdict-fd" in app, f"the runner ncu starts: {app}")
        p = e.run("bench", "--runner", A.runner, "--profile", "--json", cwd=ws, env={"CUDALAB_NCU": fake})
        expect(p, 0, "bench --profile --json")
        prof = json.loads(p.stdout)["profile"]
        check({f["id"] for f in prof["findings"]} >= {"extra_traffic", "uncoalesced_stores", "top_stall"}, prof)
        check(prof["kernels"][0]["name"] == "scale" and prof["kernels"][0]["launches"] == 3, prof)
        p = e.run("bench", "--runner", A.runner, "--profile", cwd=ws, env={"CUDALAB_NCU": fake, "FAKE_NCU_PERM": "1"})
        expect(p, 0, "bench --profile without counter permission")
        check("ERR_NVGPUCTRPERM" in p.stderr and "NVreg_RestrictProfilingToAdminUsers=0" in p.stderr, p.stderr)
        p = e.run("test", "--runner", A.runner, "--profile", cwd=ws)
        expect(p, 2, "test --profile")
        # refused by the command table (test has no --profile) in the one error voice
        check("cudalab test: unknown option '--profile'" in p.stderr, p.stderr)
        e.put_solution(ws, "wrong")
        p = e.run("bench", "--runner", A.runner, "--profile", cwd=ws, env={"CUDALAB_NCU": fake})
        expect(p, 1, "bench --profile of a wrong solution")
        check("not profiled" in p.stderr, p.stderr)
    finally:
        e.cleanup()


def test_profile_gpu():
    """On a GPU (label gpu): bench --profile of the transpose reference with the real ncu."""
    smi = shutil.which("nvidia-smi")
    if not smi or subprocess.run([smi, "-L"], capture_output=True).returncode != 0:
        raise Skip("no GPU")
    e = Env("profgpu")
    try:
        e.env["CUDALAB_HOME"] = A.source
        p = e.run("bench", "transpose", "--reference", "--no-reference", "--profile", "--json", timeout=900)
        expect(p, 0, "bench transpose --reference --profile --json")
        prof = json.loads(p.stdout)["profile"]
        err = prof.get("error", "")
        if "was not found" in err or "ERR_NVGPUCTRPERM" in err:
            raise Skip(err)
        check(not err, f"profile error: {err}")
        k = prof["kernels"][0]
        check(k["launches"] >= 1 and k["dram_gbps"] > 0 and k["time_us"] > 0, f"kernel figures: {k}")
        check(0 < k["dram_fraction_of_ceiling"] < 1.2, f"DRAM vs the measured ceiling: {k}")
        print(json.dumps(prof, indent=2))
    finally:
        e.cleanup()


TESTS = {n[5:]: f for n, f in list(globals().items()) if n.startswith("test_") and callable(f)}


def main():
    global A
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudalab", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--solutions", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("test", choices=sorted(TESTS))
    A = ap.parse_args()
    try:
        TESTS[A.test]()
    except Skip as s:
        print(f"SKIPPED: {s}")
        return SKIP
    except AssertionError as a:
        print(f"FAIL {A.test}: {a}")
        return 1
    print(f"ok {A.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
