#!/usr/bin/env python3
"""fair_grades_test.py: no honest student gets a wrong grade from intake, dates or names.

Class runs of `cudalab grade` / `cudalab gradescope` / `cudalab exam` on the CPU (the
host-backend runner and prebuilt self-test solutions, as classroom_test.py), one test per
way an ordinary class went wrong (issue 20), each asserting the grade a fair instructor
expects, and `realistic`: a whole class (roster with a BOM, CRLF and non-ASCII names,
archives from Python's zipfile, Info-ZIP and tar, late and on-time hand-ins, Gradescope
metadata) graded end to end and compared row by row with fixtures/realistic-grades.csv.

usage: fair_grades_test.py --cudalab BIN --runner BIN --solutions DIR --source DIR TEST
"""
import csv
import hashlib
import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
import unicodedata
import xml.etree.ElementTree as ET
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classroom_test as ct  # noqa: E402  (the shared helpers: grade, rows, put, ...)
from classroom_test import Skip, check, put, tmpdir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def sol(name):
    return ct.sol(name)


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def csv_rows(out):
    with open(os.path.join(out, "grades.csv"), newline="", encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def ts(text):
    """Unix time of an RFC 3339 time."""
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def touch(path, when):
    os.utime(path, (when, when))


def nvcc():
    n = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not n:
        raise Skip("no nvcc here: .cu submissions cannot be compiled")
    return n


def have_gpu():
    try:
        p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return p.returncode == 0 and "GPU " in p.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def gradescope(sub, results, meta, course, runner=True, check_rc=None):
    cmd = [ct.A.cudalab, "gradescope", "--submission", sub, "--results", results, "--metadata", meta,
           "--course", course]
    if runner:
        cmd += ["--runner", ct.A.runner]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ct.env())
    if check_rc is not None:
        check(p.returncode == check_rc, f"cudalab gradescope exited {p.returncode}: {p.stderr}")
    return p


HOST_CU = ct.HOST_CU % ""


def slow_class(tag, n, prefix, extra=()):
    """A folder of n slow (correct) submissions, and `cudalab grade` of it, one worker,
    started in the background: (folder, subs, out, the process)."""
    d = tmpdir(tag)
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for i in range(n):
        shutil.copy(sol("slow"), os.path.join(subs, f"{prefix}{i}.so"))
    for name, so in extra:
        shutil.copy(sol(so), os.path.join(subs, name))
    out = os.path.join(d, "out")
    cmd = [ct.A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--runner", ct.A.runner,
           "--jobs", "1", "--json"]
    return d, subs, out, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ct.env())


def recorded(out):
    """How many results the gradebook of out holds (0 before it exists)."""
    try:
        db = sqlite3.connect(os.path.join(out, "gradebook.sqlite"), timeout=5)
        n = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
        db.close()
        return n
    except sqlite3.Error:
        return 0


def wait_until(cond, seconds=60):
    t0 = time.time()
    while time.time() - t0 < seconds and not cond():
        time.sleep(0.05)


# ---------------------------------------------------------------- 1. names

def test_names():
    """Non-ASCII names keep their ids (NFC: a macOS NFD name is the same student), two
    names never share one id, and the roster matches ids case-insensitively."""
    d = tmpdir("names")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "张伟.so"))
    shutil.copy(sol("wrong"), os.path.join(subs, "李娜.so"))
    shutil.copy(sol("good"), os.path.join(subs, unicodedata.normalize("NFD", "José") + ".so"))  # as macOS writes it
    shutil.copy(sol("good"), os.path.join(subs, "alice.so"))
    shutil.copy(sol("good"), os.path.join(subs, "a b.so"))  # a space: replaced ...
    shutil.copy(sol("wrong"), os.path.join(subs, "a_b.so"))  # ... and still not a_b's
    roster = put(os.path.join(d, "roster.csv"),
                 "\ufeffid,name\r\n张伟,Zhang Wei\r\n李娜,Li Na\r\nJosé,José García\r\nALICE,Alice\r\n"
                 .encode("utf-8"))
    p, s = ct.grade(subs, os.path.join(d, "out"), roster=roster)
    rs = ct.rows(os.path.join(d, "out"))
    ct.expect_verdicts(rs, {"张伟": ("correct", None), "李娜": ("wrong", None), "José": ("correct", None),
                            "ALICE": ("correct", None), "a_b": ("wrong", None)})
    check(rs["张伟"]["name"] == "Zhang Wei" and rs["李娜"]["name"] == "Li Na", f"roster names: {rs}")
    check(rs["José"]["name"] == "José García", "José (NFD file, NFC roster) is one student")
    spaced = [k for k in rs if k.startswith("a_b~")]
    check(len(spaced) == 1 and rs[spaced[0]]["verdict"] == "correct", f"'a b' has its own id: {sorted(rs)}")
    check(s["missing"] == 0 and s["graded"] == 6, f"summary: {s}")
    for st in rs:  # every page exists under its id
        check(os.path.exists(os.path.join(d, "out", "report", "students", st + ".html")), f"page of {st}")
    grades = csv_rows(os.path.join(d, "out"))
    check(grades["张伟"]["score"] != grades["李娜"]["score"], f"one student's grade for another: {grades}")


# ---------------------------------------------------------------- 2. archives

def utf8_zip(path, files):
    with zipfile.ZipFile(path, "w") as z:  # Python flags non-ASCII names as UTF-8
        for name, data in files.items():
            z.writestr(name, data)


def test_archives():
    """A zip whose names are flagged UTF-8 (Python, Java, 7-Zip) with non-ASCII member
    names grades like the same files from Info-ZIP or tar."""
    d = tmpdir("utf8zip")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    good = open(sol("good"), "rb").read()
    files = {"lab/selftest.so": good, "lab/说明.txt": "说明".encode(), "lab/notas-día.txt": b"x"}
    utf8_zip(os.path.join(subs, "pyzip.zip"), files)
    with zipfile.ZipFile(os.path.join(subs, "pyzip.zip")) as z:
        check(any(i.flag_bits & 0x800 for i in z.infolist()), "the fixture zip must flag its names as UTF-8")
    src = os.path.join(d, "src")
    for name, data in files.items():
        put(os.path.join(src, name), data)
    if shutil.which("zip"):
        subprocess.run(["zip", "-qr", os.path.join(subs, "infozip.zip"), "lab"], cwd=src, check=True)
    with tarfile.open(os.path.join(subs, "tarball.tar.gz"), "w:gz") as t:
        t.add(os.path.join(src, "lab"), arcname="lab")
    ct.grade(subs, os.path.join(d, "out"))
    rs = ct.rows(os.path.join(d, "out"))
    want = {"pyzip": ("correct", None), "tarball": ("correct", None)}
    if shutil.which("zip"):
        want["infozip"] = ("correct", None)
    ct.expect_verdicts(rs, want)


# ---------------------------------------------------------------- 3. Gradescope dates

def gs_setup(d, created, deadline, tz=None):
    ag = os.path.join(d, "autograder")
    sub = os.path.join(ag, "submission")
    os.makedirs(sub)
    shutil.copy(sol("good"), os.path.join(sub, "selftest.so"))
    src = os.path.join(ag, "source")
    os.makedirs(src)
    course = ct.course_file(src, "course: gs\nsecret_file: secret.txt\nlate: {penalty_per_day: 0.25}\n"
                                 + (f"timezone: {tz}\n" if tz else "")
                                 + f"labs:\n  selftest:\n    deadline: {deadline}\n")
    meta = {"users": [{"id": 4242, "name": "Student", "email": "s@example.edu"}]}
    if created is not None:
        meta["created_at"] = created
    metap = put(os.path.join(ag, "submission_metadata.json"), json.dumps(meta))
    return sub, os.path.join(ag, "results", "results.json"), metap, course


def test_gradescope_dates():
    """Gradescope's own created_at (fractional seconds, an offset) is read completely: a
    hand-in 9 hours early is on time. One that cannot be read is refused (no score), never
    replaced by the grading time."""
    d = tmpdir("gsdate")
    # 2026-11-20T14:22:32-08:00 is 22:22:32Z; the deadline is 9 hours later
    sub, results, meta, course = gs_setup(d, "2026-11-20T14:22:32.365935-08:00", "2026-11-21T07:30:00Z")
    gradescope(sub, results, meta, course, check_rc=0)
    r = json.load(open(results))
    check(not [t for t in r["tests"] if t["name"] == "late penalty"], f"an early hand-in is late: {r['tests']}")
    check(abs(r["score"] - 60) < 1e-6, f"score {r['score']}, wanted 60 (correct, no penalty)")
    # the same hand-in, an hour after a deadline in the course's time zone: one day late
    d = tmpdir("gsdate2")
    sub, results, meta, course = gs_setup(d, "2026-11-20T14:22:32.365935-08:00", "2026-11-20T13:22",
                                          tz="America/Los_Angeles")
    gradescope(sub, results, meta, course, check_rc=0)
    r = json.load(open(results))
    late = [t for t in r["tests"] if t["name"] == "late penalty"]
    check(late and "1 day late" in late[0]["output"] and abs(r["score"] - 45) < 1e-6, f"{r['score']}: {late}")
    # unreadable: refused, no score
    d = tmpdir("gsdate3")
    sub, results, meta, course = gs_setup(d, "Fri Nov 20 14:22:32 PST 2026", "2026-11-21T07:30:00Z")
    p = gradescope(sub, results, meta, course)
    check(p.returncode != 0 and "created_at" in p.stderr, f"an unreadable date was accepted: {p.returncode} {p.stderr}")
    check(not os.path.exists(results) or "score" not in json.load(open(results)), "a score for an unread date")


# ---------------------------------------------------------------- 4. what was graded

def test_replaced():
    """A file replaced during the run is graded, keyed and seeded as the copy that was
    graded: its row has the new file's hash, and a rerun keeps it."""
    d, subs, out, proc = slow_class("replaced", 3, "a", extra=[("bob.so", "wrong")])
    bob = os.path.join(subs, "bob.so")
    wait_until(lambda: recorded(out) >= 1)  # the first is recorded: bob was listed and waits
    os.remove(bob)  # the student's corrected file replaces the listed one
    shutil.copy(sol("good"), bob)
    proc.communicate(timeout=240)
    check(proc.returncode == 0, "the run failed")
    rs = ct.rows(out)
    check(rs["bob"]["verdict"] == "correct", f"bob: {rs['bob']['verdict']}")
    check(rs["bob"]["sha256"] == sha(bob), "bob's verdict is recorded under a hash of another file")
    p, s = ct.grade(subs, out)
    check(s["graded"] == 0 and s["skipped"] == 4, f"rerun: {s}")
    check(ct.rows(out)["bob"]["verdict"] == "correct", "rerun changed bob's grade")


# ---------------------------------------------------------------- 5. late days

def test_late_days():
    """Late days: a folder is as late as its newest file (not the folder); a date-only
    deadline is the end of that day in the course's time zone; correcting the dates or
    the deadline updates the penalty without regrading, also with --report-only."""
    d = tmpdir("late")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    deadline_end = ts("2026-11-21T07:59:59Z")  # 2026-11-20 23:59:59 in Los Angeles
    # a folder copied after the deadline (its own time is late), its files on time
    put(os.path.join(subs, "folder", "selftest.so"), open(sol("good"), "rb").read())
    touch(os.path.join(subs, "folder", "selftest.so"), deadline_end - 3 * 3600)
    touch(os.path.join(subs, "folder"), deadline_end + 5 * 86400)
    # noon on the due day, Los Angeles: on time
    shutil.copy(sol("good"), os.path.join(subs, "noon.so"))
    touch(os.path.join(subs, "noon.so"), ts("2026-11-20T12:00:00-08:00"))
    # 9 am the day after: one day late
    shutil.copy(sol("good"), os.path.join(subs, "nextday.so"))
    touch(os.path.join(subs, "nextday.so"), ts("2026-11-21T09:00:00-08:00"))
    # three days late, until the date is corrected
    shutil.copy(sol("good"), os.path.join(subs, "fixed.so"))
    touch(os.path.join(subs, "fixed.so"), deadline_end + 2.5 * 86400)
    course = ct.course_file(d, "course: late\nsecret_file: secret.txt\ntimezone: America/Los_Angeles\n"
                               "late: {penalty_per_day: 0.1, max_days: 5}\ndefaults:\n  deadline: 2026-11-20\n")
    out = os.path.join(d, "out")
    ct.grade(subs, out, course=course)
    g = csv_rows(out)
    check(g["folder"]["late_days"] == "0" and g["folder"]["score"] == "60.00", f"folder: {g['folder']}")
    check(g["noon"]["late_days"] == "0" and g["noon"]["score"] == "60.00", f"noon on the due day: {g['noon']}")
    check(g["nextday"]["late_days"] == "1" and g["nextday"]["score"] == "54.00", f"next day: {g['nextday']}")
    check(g["fixed"]["late_days"] == "3" and g["fixed"]["score"] == "42.00", f"before the fix: {g['fixed']}")
    # the instructor corrects fixed's date: a rerun grades nothing and drops the penalty
    touch(os.path.join(subs, "fixed.so"), deadline_end - 60)
    p, s = ct.grade(subs, out, course=course)
    check(s["graded"] == 0, f"a date change regraded code: {s}")
    g = csv_rows(out)
    check(g["fixed"]["late_days"] == "0" and g["fixed"]["score"] == "60.00", f"after the fix: {g['fixed']}")
    check(ct.rows(out)["fixed"]["late_days"] == 0, "the gradebook keeps the old penalty")
    # an extension for everyone, read by --report-only: nextday is on time
    course = ct.course_file(d, "course: late\nsecret_file: secret.txt\ntimezone: America/Los_Angeles\n"
                               "late: {penalty_per_day: 0.1, max_days: 5}\ndefaults:\n  deadline: 2026-11-21\n")
    p, s = ct.grade(subs, out, "--report-only", course=course)
    g = csv_rows(out)
    check(g["nextday"]["late_days"] == "0" and g["nextday"]["score"] == "60.00", f"extension: {g['nextday']}")
    # the extension withdrawn and the late policy made stricter: penalties follow, nothing is regraded
    course = ct.course_file(d, "course: late\nsecret_file: secret.txt\ntimezone: America/Los_Angeles\n"
                               "late: {penalty_per_day: 0.25, max_days: 5}\ndefaults:\n  deadline: 2026-11-20\n")
    p, s = ct.grade(subs, out, course=course)
    check(s["graded"] == 0, f"a late-policy change regraded code: {s}")
    g = csv_rows(out)
    check(g["nextday"]["late_days"] == "1" and g["nextday"]["score"] == "45.00", f"stricter policy: {g['nextday']}")
    check(ct.rows(out)["nextday"]["score"] == 45.0, "the gradebook keeps the old penalty")


# ---------------------------------------------------------------- 6. course.yaml

def test_course_errors():
    """A typo in a lab name, an unknown key, an impossible date or a deadline without a
    time zone: an error at file:line with a did-you-mean, never a silently dropped rule."""
    d = tmpdir("courseerr")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "alice.so"))
    cases = [
        ("course: x\nlabs:\n  selftset:\n    deadline: 2026-11-20T23:59:00Z\n", ":3:", "did you mean 'selftest'"),
        ("course: x\ndefaults:\n  deadlin: 2026-11-20T23:59:00Z\n", ":3:", "did you mean 'deadline'"),
        ("course: x\ntimezone: UTC\ndefaults:\n  deadline: 2026-02-30\n", ":4:", "2026-02-30"),
        ("course: x\ndefaults:\n  deadline: 2026-11-20\n", ":3:", "timezone"),
        ("course: x\ntimezone: Mars/Olympus\n", ":2:", "time zone"),
    ]
    for text, where, needle in cases:
        bad = tmpdir("courseerr1")
        c = put(os.path.join(bad, "course.yaml"), text, 0o600)
        p, _ = ct.grade(subs, os.path.join(bad, "out"), course=c, check_rc=False)
        check(p.returncode == 2 and "course.yaml" + where in p.stderr and needle in p.stderr,
              f"{text!r}: exit {p.returncode}: {p.stderr}")


# ---------------------------------------------------------------- 7. file names

def test_file_names():
    """A name never changes a grade: quotes (nvcc's intermediate files carry the name), a
    240-character name, an upper-case .CU extension."""
    nvcc()
    d = tmpdir("fnames")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    put(os.path.join(subs, '=HYPERLINK("x","a").cu'), HOST_CU)
    put(os.path.join(subs, "l" * 240 + ".cu"), HOST_CU)
    put(os.path.join(subs, "carol.CU"), HOST_CU)
    ct.grade(subs, os.path.join(d, "out"), "--arch", "sm_90", timeout=900)
    rs = ct.rows(os.path.join(d, "out"))
    check(len(rs) == 3, f"rows: {sorted(rs)}")
    for st, r in rs.items():
        check(r["verdict"] == "correct", f"{st[:40]}: {r['verdict']}: {r['message']}")
    check("carol" in rs, "carol.CU")


# ---------------------------------------------------------------- 8. no GPU

# the results table as cudalab wrote it before scores could be NULL
OLD_RESULTS = """(student TEXT NOT NULL, lab TEXT NOT NULL, sha256 TEXT NOT NULL, config_hash TEXT NOT NULL,
  run_id INTEGER REFERENCES runs(id), name TEXT, email TEXT, submission TEXT, submitted_at INTEGER,
  verdict TEXT NOT NULL, raw_score REAL NOT NULL, score REAL NOT NULL, max_score REAL NOT NULL,
  late_days INTEGER NOT NULL DEFAULT 0, penalty REAL NOT NULL DEFAULT 0, tier TEXT, seed INTEGER, gpu TEXT,
  graded_at INTEGER NOT NULL, seconds REAL, metric REAL, fraction REAL, metric_unit TEXT, message TEXT,
  report TEXT NOT NULL, PRIMARY KEY (student, lab, sha256, config_hash))"""


def not_graded_everywhere(out, summary):
    """nina (compiled, no GPU to run it) is not graded in every report: no score in the
    gradebook (NULL, not 0), grades.csv, the HTML report; skipped in JUnit; counted as not
    graded in the summary."""
    r = ct.rows(out)["nina"]
    check(r["verdict"] == "no_device" and r["score"] is None and r["raw_score"] is None,
          f"the gradebook holds a score: {r['verdict']} {r['score']} {r['raw_score']}")
    g = csv_rows(out)["nina"]
    check(g["verdict"] == "no_device" and g["score"] == "" and g["raw_score"] == "", f"a score without a GPU: {g}")
    check("not graded" in g["message"] and "no GPU" in g["message"], g["message"])
    check(summary.get("not_graded") == 1, f"summary: {summary}")
    page = open(os.path.join(out, "report", "students", "nina.html"), encoding="utf-8").read()
    index = open(os.path.join(out, "report", "index.html"), encoding="utf-8").read()
    check("not graded" in page and "0.0 / 100" not in page, "nina's page shows a score")
    check("0.0 / 100" not in index, "the class table shows a score for nina")
    junit = ET.parse(os.path.join(out, "junit.xml")).getroot()
    suite = [x for x in junit.iter("testsuite") if x.get("name") == "nina"][0]
    cases = list(suite.iter("testcase"))
    check(cases and all(c.find("skipped") is not None for c in cases), "JUnit: nina's tests must be skipped")
    check(suite.get("failures") == "0" and suite.get("skipped") == str(len(cases)), ET.tostring(suite).decode())
    check(int(junit.get("skipped", "0")) >= 1, "JUnit's total counts nina as skipped")
    props = {x.get("name"): x.get("value") for x in suite.iter("property")}
    check("score" not in props, f"JUnit gives nina a score: {props}")


def test_no_gpu():
    """No GPU on the grading machine: an error result for the instructor, no score; the
    student pays nothing for the machine (cudalab grade and cudalab gradescope)."""
    nvcc()
    if have_gpu():
        raise Skip("this machine has a GPU: the no-GPU case cannot be made here")
    d = tmpdir("nogpu")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    put(os.path.join(subs, "nina.cu"), HOST_CU)
    out = os.path.join(d, "out")
    p, s = ct.grade(subs, out, "--arch", "sm_90", runner=False, timeout=900, check_rc=False)
    check(p.returncode == 3, f"exit {p.returncode}: the machine, not the class, is the problem: {p.stderr}")
    not_graded_everywhere(out, s)
    # a rerun grades it again (a row without a score is not final)
    p, s = ct.grade(subs, out, "--arch", "sm_90", runner=False, timeout=900, check_rc=False)
    check(s["graded"] == 1 and s["skipped"] == 0, f"rerun: {s}")
    # a gradebook an older cudalab wrote (scores NOT NULL, 0 for it) is migrated on open
    gb = os.path.join(out, "gradebook.sqlite")
    db = sqlite3.connect(gb)
    cols = [c[1] for c in db.execute("PRAGMA table_info(results)")]
    old = ", ".join(f"COALESCE({c}, 0)" if c in ("raw_score", "score") else c for c in cols)
    db.executescript(f"BEGIN; CREATE TABLE old_results {OLD_RESULTS}; INSERT INTO old_results ({', '.join(cols)}) "
                     f"SELECT {old} FROM results; DROP TABLE results; ALTER TABLE old_results RENAME TO results; "
                     "COMMIT;")
    check(db.execute("SELECT score FROM results").fetchall() == [(0.0,)], "the old gradebook holds 0")
    db.close()
    p, s = ct.grade(subs, out, "--arch", "sm_90", "--report-only", runner=False, timeout=300)
    check(s["graded"] == 0, f"--report-only graded: {s}")
    not_graded_everywhere(out, s)
    # the text summary line says it too
    p = subprocess.run([ct.A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--arch",
                        "sm_90", "--report-only"], capture_output=True, text=True, timeout=300, env=ct.env())
    check(p.returncode == 0 and "1 not graded (no score recorded" in p.stdout, p.stdout + p.stderr)
    # a damaged gradebook is reported and never replaced
    bad = os.path.join(d, "bad")
    os.makedirs(bad)
    junk = b"this is not a gradebook " * 200
    put(os.path.join(bad, "gradebook.sqlite"), junk)
    p, _ = ct.grade(subs, bad, "--arch", "sm_90", timeout=300, check_rc=False)
    check(p.returncode == 2 and "damaged" in p.stderr and "left untouched" in p.stderr, f"{p.returncode} {p.stderr}")
    check(open(os.path.join(bad, "gradebook.sqlite"), "rb").read() == junk, "the damaged gradebook was changed")
    # Gradescope
    ag = os.path.join(d, "autograder")
    sub = os.path.join(ag, "submission")
    put(os.path.join(sub, "selftest.cu"), HOST_CU)
    course = ct.course_file(ag, "course: gs\nsecret_file: secret.txt\nlabs:\n  selftest: {}\n")
    meta = put(os.path.join(ag, "meta.json"), json.dumps({"created_at": "2026-11-20T14:22:32.365935-08:00",
                                                         "users": [{"id": 1}]}))
    results = os.path.join(ag, "results", "results.json")
    cmd = [ct.A.cudalab, "gradescope", "--submission", sub, "--results", results, "--metadata", meta,
           "--course", course, "--arch", "sm_90"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=ct.env())
    r = json.load(open(results))
    check(p.returncode != 0 and "score" not in r and "tests" not in r, f"gradescope without a GPU: {r} {p.stderr}")
    check("no GPU" in r["output"], r["output"])


# ---------------------------------------------------------------- confusing today

def test_lock():
    """Two runs on one output folder: the second is refused while the first holds it."""
    d, subs, out, first = slow_class("lock", 4, "s")
    wait_until(lambda: os.path.exists(os.path.join(out, "gradebook.sqlite")), 30)
    p, s = ct.grade(subs, out, check_rc=False)
    first.communicate(timeout=240)
    check(p.returncode == 2 and "another cudalab grade" in p.stderr, f"second run: {p.returncode} {p.stderr}")
    check(first.returncode == 0, "the first run failed")
    per = dict(sqlite3.connect(os.path.join(out, "gradebook.sqlite")).execute(
        "SELECT student, COUNT(*) FROM results GROUP BY student").fetchall())
    check(per == {f"s{i}": 1 for i in range(4)}, f"each graded once: {per}")


def test_gpus():
    """--gpus names GPUs: 1 is GPU 1, 0 is GPU 0 (not "unset"); a malformed list is refused."""
    d = tmpdir("gpus")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("gpu_env"), os.path.join(subs, "p.so"))
    for spec, want in (("1", "1"), ("0", "0"), ("2,3", None)):
        out = os.path.join(d, "out" + spec.replace(",", "_"))
        ct.grade(subs, out, "--gpus", spec)
        outp = ct.rows(out)["p"]["report"]["output"]
        m = __import__("re").search(r"GPUENV cvd=(\S+)", outp)
        check(m and (want is None and m.group(1) in ("2", "3") or m.group(1) == want), f"--gpus {spec}: {outp}")
    p, _ = ct.grade(subs, os.path.join(d, "outx"), "--gpus", "two", check_rc=False)
    check(p.returncode == 2 and "not a GPU" in p.stderr, p.stderr)


def test_cache_key():
    """What changes a grade is the key: a comment, the course's name or its deadline do not
    regrade; a weight does."""
    d = tmpdir("cachekey")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "alice.so"))
    base = "course: one\nsecret_file: secret.txt\ndefaults:\n  deadline: 2030-01-01T00:00:00Z\n"
    course = ct.course_file(d, base)
    out = os.path.join(d, "out")
    ct.grade(subs, out, course=course)
    for text in ("# a comment\n" + base, base.replace("course: one", "course: One, spring"),
                 base.replace("2030-01-01", "2030-02-01")):
        course = ct.course_file(d, text)
        p, s = ct.grade(subs, out, course=course)
        check(s["graded"] == 0 and s["skipped"] == 1, f"{text!r} regraded: {s}")
    course = ct.course_file(d, base + "  weights: {correctness: 50, pass: 10, good: 20, excellent: 50}\n")
    p, s = ct.grade(subs, out, course=course)
    check(s["graded"] == 1, f"a weight change must regrade: {s}")


def test_notes_and_out():
    """README.md and roster.csv in the submissions folder are notes, not students; an --out
    inside the submissions folder is refused; an instructor's symlink is followed."""
    d = tmpdir("notes")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "alice.so"))
    put(os.path.join(subs, "README.md"), "# hand-ins of week 3\n")
    put(os.path.join(subs, "roster.csv"), "id\nalice\n")
    downloads = os.path.join(d, "downloads")
    os.makedirs(downloads)
    shutil.copy(sol("good"), os.path.join(downloads, "bob-final.so"))
    os.symlink(os.path.join(downloads, "bob-final.so"), os.path.join(subs, "bob.so"))
    out = os.path.join(d, "out")
    p, s = ct.grade(subs, out)
    rs = ct.rows(out)
    check(sorted(rs) == ["alice", "bob"], f"students: {sorted(rs)}")
    ct.expect_verdicts(rs, {"alice": ("correct", None), "bob": ("correct", None)})
    p, s = ct.grade(subs, os.path.join(subs, "grades"), check_rc=False)
    check(p.returncode == 2 and "inside" in p.stderr, f"--out inside the submissions: {p.stderr}")
    check(not os.path.exists(os.path.join(subs, "grades")), "the refused --out was left behind")


def test_exam_csv():
    """cudalab exam: a --student that looks like a formula is defused in the CSV, a sheet
    saved with a BOM is read, and two sheets of one student are graded with a warning."""
    d = tmpdir("exam")
    e = ct.env()
    e["XDG_DATA_HOME"] = d
    e["CUDALAB_HOME"] = ct.A.source  # the real question bank
    run = lambda *a: subprocess.run([ct.A.cudalab, "exam", *a], capture_output=True, text=True, timeout=120,
                                    env=e, cwd=d)
    a = os.path.join(d, "a.txt")
    p = run("--seed", "7", "--n", "3", "--student", "=cmd|' -C calc'!A0", "--blank", a)
    check(p.returncode == 0, p.stderr)
    b = os.path.join(d, "b.txt")
    p = run("--seed", "7", "--n", "3", "--student", "bo", "--blank", b)
    check(p.returncode == 0, p.stderr)
    c = os.path.join(d, "c.txt")
    shutil.copy(b, c)
    data = open(b, "rb").read()
    open(b, "wb").write(b"\xef\xbb\xbf" + data)  # saved by Notepad
    out = os.path.join(d, "grades.csv")
    p = run("--grade", a, b, c, "--csv", out)
    check(p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    text = open(out, encoding="utf-8").read()
    check("\"'=cmd" in text and "\n=cmd" not in text and ",=cmd" not in text, f"formula in the CSV: {text}")
    check("two sheets from student 'bo'" in p.stderr, f"no warning for two sheets: {p.stderr}")


def test_cosmetic():
    """The progress line shows the score after the late penalty; no "GB/s0.0%"; a missing
    student has no passing JUnit test; pages of students who left go; two labs cannot share
    one --out; a run killed with SIGKILL leaves no student's source in the stage."""
    d = tmpdir("cosmetic")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "late.so"))
    touch(os.path.join(subs, "late.so"), ts("2026-11-22T12:00:00Z"))
    shutil.copy(sol("good"), os.path.join(subs, "gone.so"))
    course = ct.course_file(d, "course: c\nsecret_file: secret.txt\nlate: {penalty_per_day: 0.5}\n"
                               "defaults:\n  deadline: 2026-11-21T12:00:00Z\n")
    roster = put(os.path.join(d, "roster.csv"), "id\nlate\ngone\nzoe\n")
    out = os.path.join(d, "out")
    cmd = [ct.A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--runner", ct.A.runner,
           "--course", course, "--roster", roster]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=ct.env())
    check(p.returncode == 0, p.stderr)
    line = [x for x in p.stderr.splitlines() if " late " in x and "correct" in x]
    check(line and line[0].split()[-1] == "30.0", f"progress line: {line}")
    junit = ET.parse(os.path.join(out, "junit.xml")).getroot()
    for suite in junit.iter("testsuite"):
        if suite.get("name") == "zoe":
            passed = [c for c in suite.iter("testcase") if not list(c)]
            check(not passed, f"a missing student passes {[c.get('name') for c in passed]}")
    os.remove(os.path.join(subs, "gone.so"))
    put(roster, "id\nlate\nzoe\n")
    subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=ct.env())
    check(not os.path.exists(os.path.join(out, "report", "students", "gone.html")), "a page of a student who left")
    p = subprocess.run([ct.A.cudalab, "grade", "--lab", "reduce", "--submissions", subs, "--out", out, "--runner",
                        ct.A.runner], capture_output=True, text=True, timeout=240, env=ct.env())
    check(p.returncode == 2 and "holds the grades of lab 'selftest'" in p.stderr, f"two labs, one --out: {p.stderr}")
    # Gradescope's performance line without a ceiling
    ag = os.path.join(d, "ag")
    sub = os.path.join(ag, "submission")
    os.makedirs(sub)
    shutil.copy(sol("good"), os.path.join(sub, "selftest.so"))
    gcourse = ct.course_file(ag, "course: gs\nsecret_file: secret.txt\nlabs:\n  selftest: {}\n")
    meta = put(os.path.join(ag, "meta.json"), json.dumps({"users": [{"id": 1}]}))
    results = os.path.join(ag, "results", "results.json")
    gradescope(sub, results, meta, gcourse, check_rc=0)
    perf = [t for t in json.load(open(results))["tests"] if t["name"] == "performance"][0]["output"]
    check("s0.0%" not in perf and "0.0% of" not in perf, f"performance line: {perf}")
    check("GB/s, no ceiling measured" in perf and "not timed" not in perf, f"a timed solution, no ceiling: {perf}")
    # SIGKILL mid-run: the next run removes the stage the killed one left
    stage = os.path.join(d, "stage")
    os.makedirs(stage)
    subs2 = os.path.join(d, "subs2")
    os.makedirs(subs2)
    for i in range(6):
        shutil.copy(sol("slow"), os.path.join(subs2, f"k{i}.so"))
    out2 = os.path.join(d, "out2")
    cmd2 = [ct.A.cudalab, "grade", "--lab", "selftest", "--submissions", subs2, "--out", out2, "--runner",
            ct.A.runner, "--jobs", "1"]
    proc = subprocess.Popen(cmd2, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=ct.env({"CUDALAB_STAGE_DIR": stage}))
    t0 = time.time()
    while time.time() - t0 < 60 and not any(os.scandir(stage)):
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check(any(os.scandir(stage)), "the killed run left no stage (the test did not kill it mid-run)")
    subprocess.run(cmd2, capture_output=True, text=True, timeout=240, env=ct.env({"CUDALAB_STAGE_DIR": stage}))
    check(not list(os.scandir(stage)), f"stage left behind: {[e.name for e in os.scandir(stage)]}")


# ---------------------------------------------------------------- the realistic class

def test_realistic():
    """A class as it arrives: a roster exported with a BOM and CRLF, non-ASCII names, .cu-less
    prebuilt solutions in archives from Python's zipfile (UTF-8 flag), Info-ZIP and tar,
    folders, a README, late and on-time hand-ins against a date-only deadline in the course's
    time zone; grades.csv compared row by row with fixtures/realistic-grades.csv. One
    student also goes through Gradescope with Gradescope's own metadata."""
    if not shutil.which("zip"):
        raise Skip("Info-ZIP's zip is not installed")
    d = tmpdir("realistic")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    good, wrong = open(sol("good"), "rb").read(), open(sol("wrong"), "rb").read()
    on_time = ts("2026-11-20T10:15:00-08:00")
    late1 = ts("2026-11-21T08:30:00-08:00")   # 1 started day after 2026-11-20 23:59:59 PT
    late3 = ts("2026-11-23T22:00:00-08:00")   # 3
    # 张伟: Python zip with a Chinese readme
    utf8_zip(os.path.join(subs, "张伟.zip"), {"作业/selftest.so": good, "作业/说明.txt": "说明".encode()})
    touch(os.path.join(subs, "张伟.zip"), on_time)
    # José García: macOS (NFD) folder name, copied late but its file on time
    jose = os.path.join(subs, unicodedata.normalize("NFD", "josé"))
    put(os.path.join(jose, "selftest.so"), good)
    put(os.path.join(jose, "notas-día.txt"), "hola")
    touch(os.path.join(jose, "selftest.so"), on_time)
    touch(os.path.join(jose, "notas-día.txt"), on_time)
    touch(jose, late3)
    # Ana: Info-ZIP, one day late
    src = os.path.join(d, "src-ana")
    put(os.path.join(src, "ana", "selftest.so"), good)
    subprocess.run(["zip", "-qr", os.path.join(subs, "Ana.zip"), "ana"], cwd=src, check=True)
    touch(os.path.join(subs, "Ana.zip"), late1)
    # Li Na: a tarball, wrong, on time
    with tarfile.open(os.path.join(subs, "李娜.tar.gz"), "w:gz") as t:
        i = tarfile.TarInfo("selftest.so")
        i.size = len(wrong)
        t.addfile(i, io.BytesIO(wrong))
    touch(os.path.join(subs, "李娜.tar.gz"), on_time)
    # O'Brien: a plain file, three days late
    put(os.path.join(subs, "obrien.so"), good)
    touch(os.path.join(subs, "obrien.so"), late3)
    put(os.path.join(subs, "README.md"), "week 3 hand-ins, downloaded from the LMS\n")
    roster = put(os.path.join(d, "roster.csv"), (
        "\ufeffStudent ID,Full Name,Email\r\n"
        "张伟,Zhang Wei,zw@example.edu\r\n"
        "José,\"García, José\",jose@example.edu\r\n"
        "ANA,Ana Lima,ana@example.edu\r\n"
        "李娜,Li Na,ln@example.edu\r\n"
        "OBrien,=HYPERLINK(\"x\"),ob@example.edu\r\n"
        "Ngozi,Ngozi Okafor,no@example.edu\r\n").encode("utf-8"))
    course = ct.course_file(d, "course: GPU 101\nsecret_file: secret.txt\ntimezone: America/Los_Angeles\n"
                               "late: {penalty_per_day: 0.1, max_days: 7}\nlabs:\n  selftest:\n"
                               "    deadline: 2026-11-20\n")
    out = os.path.join(d, "out")
    ct.grade(subs, out, course=course, roster=roster)
    got = csv_rows(out)
    cols = ["student", "name", "email", "verdict", "score", "max_score", "raw_score", "late_days", "penalty"]
    with open(os.path.join(HERE, "fixtures", "realistic-grades.csv"), newline="", encoding="utf-8") as f:
        want = list(csv.DictReader(f))
    check(sorted(got) == sorted(r["student"] for r in want), f"students: {sorted(got)}")
    for w in want:
        g = got[w["student"]]
        diff = {c: (g[c], w[c]) for c in cols if g[c] != w[c]}
        check(not diff, f"{w['student']}: (got, expected) {diff}")
    # Gradescope: 张伟's hand-in with Gradescope's metadata, on time by 9 hours
    ag = os.path.join(d, "autograder")
    sub = os.path.join(ag, "submission")
    put(os.path.join(sub, "selftest.so"), good)
    meta = put(os.path.join(ag, "submission_metadata.json"), json.dumps({
        "created_at": "2026-11-20T14:22:32.365935-08:00",
        "users": [{"id": "张伟", "name": "Zhang Wei", "email": "zw@example.edu"}],
        "assignment": {"due_date": "2026-11-20T23:59:59.000000-08:00"}}, ensure_ascii=False))
    results = os.path.join(ag, "results", "results.json")
    gradescope(sub, results, meta, course, check_rc=0)
    r = json.load(open(results))
    check(abs(r["score"] - float(got["张伟"]["score"])) < 1e-6, f"Gradescope {r['score']} vs grade {got['张伟']}")


TESTS = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}


if __name__ == "__main__":
    sys.exit(ct.main(TESTS))
