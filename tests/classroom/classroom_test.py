#!/usr/bin/env python3
"""classroom_test.py: end-to-end tests of `cudalab grade` and `cudalab gradescope` on the CPU.

Submissions are plain-C solutions of the self-test lab (tests/fixtures/solutions/*.c, built
as .so files) graded through the host-backend runner, so every integrity and fault point of
the classroom runs without a GPU: the sandbox against a hostile submission, malformed
submissions and archives, resource limits, per-student seeds, bans, resume after SIGKILL,
one worker per GPU, Gradescope's results.json, the HTML report in headless Chromium, and a
real one-node Slurm cluster.

usage: classroom_test.py --cudalab BIN --runner BIN --solutions DIR --source DIR TEST
Exit 0 pass, 1 fail, 77 skipped (a tool is missing: the reason is printed).
"""
import argparse
import hashlib
import hmac
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/
from procs import descendants  # noqa: E402

SKIP = 77
A = None  # parsed arguments


class Skip(Exception):
    pass


def check(cond, what):
    if not cond:
        raise AssertionError(what)


# ---------------------------------------------------------------- helpers

def tmpdir(tag):
    d = tempfile.mkdtemp(prefix=f"cudalab-class-{tag}-", dir="/tmp")
    os.chmod(d, 0o755)
    return d


def sol(name):
    return os.path.join(A.solutions, name + ".so")


def put(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.chmod(path, mode)
    return path


def env(extra=None):
    e = dict(os.environ)
    e["CUDALAB_HOME"] = os.path.join(A.source, "tests", "fixtures", "home")
    e["NO_COLOR"] = "1"
    e.setdefault("XDG_CACHE_HOME", "/tmp/cudalab-class-cache")
    e.update(extra or {})
    return e


def grade(subs, out, *extra, course=None, roster=None, check_rc=True, timeout=240, env_extra=None, runner=True):
    cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--json"]
    if runner:
        cmd += ["--runner", A.runner]
    if course:
        cmd += ["--course", course]
    if roster:
        cmd += ["--roster", roster]
    cmd += list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env(env_extra))
    if check_rc and p.returncode not in (0,):
        raise AssertionError(f"cudalab grade exited {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
    try:
        summary = json.loads(p.stdout) if p.stdout.strip() else {}
    except json.JSONDecodeError:
        summary = {}
    return p, summary


def rows(out):
    db = sqlite3.connect(os.path.join(out, "gradebook.sqlite"))
    db.row_factory = sqlite3.Row
    r = {x["student"]: dict(x) for x in db.execute("SELECT * FROM results")}
    for v in r.values():
        v["report"] = json.loads(v["report"])
    db.close()
    return r


def expect_verdicts(rs, want):
    for student, (verdict, needle) in want.items():
        check(student in rs, f"{student} has no row in the gradebook (rows: {sorted(rs)})")
        got = rs[student]
        check(got["verdict"] == verdict,
              f"{student}: verdict {got['verdict']} (wanted {verdict}): {got['message']}")
        if needle:
            check(needle in (got["message"] or ""), f"{student}: wanted {needle!r} in: {got['message']}")


def course_file(d, text, secret="a-course-secret-that-is-long-enough"):
    if secret is not None:
        put(os.path.join(d, "secret.txt"), secret + "\n", 0o600)
    return put(os.path.join(d, "course.yaml"), text, 0o600)


def no_leftovers(marker=None):
    """Processes a grading left alive: anything running as a sandbox uid (64000 and up),
    or whose command line names marker (this test's folder). There must be none (zombies
    waiting for the system to reap them run nothing and are not counted)."""
    left = []
    for _ in range(30):
        p = subprocess.run(["ps", "-eo", "pid=,uid=,stat=,args="], capture_output=True, text=True)
        left = []
        for line in p.stdout.splitlines():
            parts = line.split(None, 3)
            if len(parts) < 4 or int(parts[0]) == os.getpid() or "classroom_test.py" in parts[3]:
                continue
            if parts[2].startswith("Z"):
                continue
            if 64000 <= int(parts[1]) < 65534 or (marker and marker in parts[3]):
                left.append(line.strip())
        if not left:
            break
        time.sleep(0.1)
    return left


# ---------------------------------------------------------------- tests

def test_basic():
    """A class with good, wrong, crashing, hanging, misnamed, junk, huge, empty and
    unsupported submissions and a roster: each gets its verdict, the gradebook, CSV,
    JUnit and HTML are written."""
    d = tmpdir("basic")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "alice.so"))
    shutil.copy(sol("wrong"), os.path.join(subs, "bob.so"))
    shutil.copy(sol("crash"), os.path.join(subs, "carol.so"))
    shutil.copy(sol("hang"), os.path.join(subs, "dan.so"))
    shutil.copy(sol("misnamed"), os.path.join(subs, "erin.so"))
    put(os.path.join(subs, "frank.cu"), b"\x7fELF\x00\x01binary junk\x00" * 100)  # binary junk
    put(os.path.join(subs, "grace.cu"), "// huge\n" + "x" * (5 << 20))  # a huge file
    os.makedirs(os.path.join(subs, "heidi"))  # an empty folder: missing file
    os.makedirs(os.path.join(subs, "ivan"))
    put(os.path.join(subs, "ivan", "a.cu"), "// one\n")
    put(os.path.join(subs, "ivan", "b.cu"), "// two\n")  # two .cu, none named selftest.cu
    put(os.path.join(subs, "judy.docx"), "not code")
    os.makedirs(os.path.join(subs, "mallet"))
    shutil.copy(sol("good"), os.path.join(subs, "mallet", "selftest.so"))  # a folder per student
    roster = put(os.path.join(d, "roster.csv"),
                 'id,name,email\nalice,"Alice, A.",alice@example.edu\nbob,=HYPERLINK("http://x"),bob@x\n'
                 "zoe,Zoe Missing,zoe@example.edu\n")
    p, s = grade(subs, os.path.join(d, "out"), "--timeout", "6", roster=roster)
    out = os.path.join(d, "out")
    rs = rows(out)
    expect_verdicts(rs, {
        "alice": ("correct", None),
        "bob": ("wrong", "y[7]"),
        "carol": ("crash", "signal 11"),
        "dan": ("timeout", "timed out"),
        "erin": ("missing_symbol", "selftest_scale"),
        "frank": ("compile_error", "not a text file"),
        "grace": ("compile_error", "limit"),
        "heidi": ("compile_error", "no .cu file"),
        "ivan": ("compile_error", "several .cu files"),
        "judy": ("compile_error", "not a .cu file"),
        "mallet": ("correct", None),
    })
    check("zoe" not in rs, "a student without a submission must not be graded")
    check(s["missing"] == 1 and s["graded"] == 11, f"summary: {s}")
    check(rs["alice"]["name"] == "Alice, A." and rs["alice"]["email"] == "alice@example.edu", "roster name")
    # CSV: RFC 4180 quoting and no formula a spreadsheet would run
    csv = open(os.path.join(out, "grades.csv")).read()
    check('"Alice, A."' in csv, "CSV quotes a comma")
    check('"\'=HYPERLINK(""http://x"")"' in csv, f"CSV defuses a formula: {csv}")
    check("zoe,Zoe Missing" in csv and ",missing," in csv, "CSV lists the missing student")
    # JUnit: well-formed, one suite per student
    junit = ET.parse(os.path.join(out, "junit.xml")).getroot()
    suites = {s.get("name") for s in junit.iter("testsuite")}
    check({"alice", "bob", "zoe"} <= suites, f"JUnit suites: {suites}")
    check(int(junit.get("failures")) > 0, "JUnit counts failures")
    # HTML: index and one page per student
    for st in list(rs) + ["zoe"]:
        check(os.path.exists(os.path.join(out, "report", "students", st + ".html")), f"page of {st}")
    # the output folder is the instructor's only
    check(stat.S_IMODE(os.stat(out).st_mode) == 0o700, "output folder mode 0700")
    check(not no_leftovers(d), f"runner processes left behind: {no_leftovers(d)}")


HOST_CU = """// a host-only solution of the self-test lab: nvcc compiles it like any .cu
#include <cuda_runtime.h>
extern "C" void selftest_scale(const float *x, float *y, int n, float a, void *stream)
{
    (void)stream;
    for (int i = 0; i < n; i++)
        y[i] = a * x[i]%s;
}
"""


def test_compile():
    """.cu submissions are compiled by nvcc inside the sandbox (its private /tmp and cache);
    compiler messages name the student's file, not the stage's path."""
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        raise Skip("no nvcc here: .cu submissions cannot be compiled")
    d = tmpdir("compile")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    put(os.path.join(subs, "nina.cu"), HOST_CU % "")
    put(os.path.join(subs, "oscar.cu"), HOST_CU % " + 1")
    put(os.path.join(subs, "pat.cu"), "#include <cuda_runtime.h>\nint main( { }\n")
    os.makedirs(os.path.join(subs, "quinn"))
    put(os.path.join(subs, "quinn", "selftest.cu"), '#include "helper.h"\n' + HOST_CU % " * ONE")
    put(os.path.join(subs, "quinn", "helper.h"), "#define ONE 1.0f\n")
    p, s = grade(subs, os.path.join(d, "out"), "--arch", "sm_90", timeout=900)
    rs = rows(os.path.join(d, "out"))
    expect_verdicts(rs, {"nina": ("correct", None), "oscar": ("wrong", "y[0]"), "pat": ("compile_error", "nvcc failed"),
                         "quinn": ("correct", None)})
    log = rs["pat"]["report"]["compile"]["log"]
    check("pat.cu(2): error" in log and "cudalab-stage" not in log, f"compiler log: {log}")


def make_tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as t:
        for m in members:
            info, data = m
            t.addfile(info, io.BytesIO(data) if data is not None else None)


def reg(name, data):
    i = tarfile.TarInfo(name)
    i.size = len(data)
    i.mode = 0o644
    return (i, data)


def test_archives():
    """Good archives are graded; hostile ones (.., absolute paths, links, devices, FIFOs,
    bombs, too many members, duplicates, junk) get a clear verdict and write nothing
    outside their stage."""
    d = tmpdir("archives")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    good = open(sol("good"), "rb").read()
    # good: a zip with a top folder, a tar.gz with the solution at the root
    with zipfile.ZipFile(os.path.join(subs, "zara.zip"), "w") as z:
        z.writestr("zara-lab/selftest.so", good)
        z.writestr("__MACOSX/zara-lab/._selftest.so", b"mac noise")
    make_tar(os.path.join(subs, "tom.tar.gz"), [reg("./selftest.so", good), reg("notes.txt", b"hi")])
    make_tar(os.path.join(subs, "tina.tar"), [reg("selftest.so", good)], mode="w")
    # hostile
    victim = os.path.join(d, "victim.txt")
    make_tar(os.path.join(subs, "dotdot.tar.gz"), [reg("selftest.so", good), reg("../../victim.txt", b"pwned")])
    make_tar(os.path.join(subs, "absolute.tar.gz"), [reg(victim, b"pwned")])
    ln = tarfile.TarInfo("selftest.so")
    ln.type = tarfile.SYMTYPE
    ln.linkname = "/etc/passwd"
    make_tar(os.path.join(subs, "symlink.tar.gz"), [(ln, None)])
    hl = tarfile.TarInfo("selftest.so")
    hl.type = tarfile.LNKTYPE
    hl.linkname = "/etc/passwd"
    make_tar(os.path.join(subs, "hardlink.tar.gz"), [reg("a.txt", b"x"), (hl, None)])
    dev = tarfile.TarInfo("disk")
    dev.type = tarfile.CHRTYPE
    dev.devmajor, dev.devminor = 1, 3
    make_tar(os.path.join(subs, "device.tar.gz"), [reg("selftest.so", good), (dev, None)])
    fifo = tarfile.TarInfo("pipe")
    fifo.type = tarfile.FIFOTYPE
    make_tar(os.path.join(subs, "fifo.tar.gz"), [reg("selftest.so", good), (fifo, None)])
    make_tar(os.path.join(subs, "many.tar.gz"), [reg(f"f{i}.txt", b"x") for i in range(300)])
    make_tar(os.path.join(subs, "bigmember.tar.gz"), [reg("selftest.so", b"\0" * (5 << 20))])
    with zipfile.ZipFile(os.path.join(subs, "bomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for i in range(12):  # 12 x 3.9 MB of zeros: each under the member limit, the total over it
            z.writestr(f"zeros{i}.bin", b"\0" * (3900 << 10))
    make_tar(os.path.join(subs, "twice.tar"), [reg("selftest.so", good), reg("selftest.so", good)], mode="w")
    put(os.path.join(subs, "junk.zip"), os.urandom(5000))
    with zipfile.ZipFile(os.path.join(subs, "zipslip.zip"), "w") as z:
        z.writestr("selftest.so", good)
        z.writestr("../../../victim.txt", b"pwned")
    p, s = grade(subs, os.path.join(d, "out"))
    rs = rows(os.path.join(d, "out"))
    rej = "submission rejected: "
    expect_verdicts(rs, {
        "zara": ("correct", None),
        "tom": ("correct", None),
        "tina": ("correct", None),
        "dotdot": ("compile_error", rej),
        "absolute": ("compile_error", "absolute path"),
        "symlink": ("compile_error", "symbolic link"),
        "hardlink": ("compile_error", "hard link"),
        "device": ("compile_error", "device"),
        "fifo": ("compile_error", "FIFO"),
        "many": ("compile_error", "more than 256 members"),
        "bigmember": ("compile_error", "larger than"),
        "bomb": ("compile_error", "bytes once decompressed"),
        "twice": ("compile_error", "appears twice"),
        "junk": ("compile_error", "not a readable"),
        "zipslip": ("compile_error", ".."),
    })
    check("'..'" in rs["dotdot"]["message"], rs["dotdot"]["message"])
    check(not os.path.exists(victim), "an archive wrote outside its folder")
    for name in ("dotdot", "zipslip"):
        check(not os.path.exists(os.path.join(d, "out", "victim.txt")), "victim in out")


def hostile_class(d, extra_targets=()):
    subs = os.path.join(d, "subs")
    os.makedirs(os.path.join(subs, "mallory"))
    canary_alice = "ALICE-CANARY-" + os.urandom(6).hex()
    put(os.path.join(subs, "alice", "selftest.so"), open(sol("good"), "rb").read())
    put(os.path.join(subs, "alice", "notes.txt"), canary_alice)
    shutil.copy(sol("hostile"), os.path.join(subs, "mallory", "selftest.so"))
    secret = "SECRET-CANARY-" + os.urandom(8).hex()
    course = course_file(d, "course: isolation test\nsecret_file: secret.txt\n", secret=secret)
    out = os.path.join(d, "out")
    targets = [os.path.join(subs, "alice", "notes.txt"), os.path.join(subs, "alice", "selftest.so"),
               os.path.join(d, "secret.txt"), course, os.path.join(out, "gradebook.sqlite"),
               os.path.join(d, "roster.csv"), "write:" + out, "write:" + subs] + list(extra_targets)
    put(os.path.join(subs, "mallory", "targets.txt"), "\n".join(targets) + "\n")
    roster = put(os.path.join(d, "roster.csv"), "id,name\nalice,ROSTER-CANARY\nmallory,M\n", 0o600)
    # the gradebook exists before the hostile submission runs (as after an earlier run)
    os.makedirs(out)
    sqlite3.connect(os.path.join(out, "gradebook.sqlite")).close()
    return subs, out, course, roster, [canary_alice, secret, "ROSTER-CANARY", "ENV-CANARY"]


def leaked(out_dir, canaries):
    """Canaries in what the hostile submission left: its report, and every report file
    (roster names belong in the instructor's reports, so only its own report is searched
    for that one)."""
    found = []
    mine = json.dumps(rows(out_dir)["mallory"]["report"])
    found += [("mallory's report", c) for c in canaries if c in mine]
    for root, _, files in os.walk(out_dir):
        for f in files:
            if f.startswith("gradebook.sqlite") or f == "course-secret":
                continue
            data = open(os.path.join(root, f), "rb").read()
            found += [(os.path.join(root, f), c) for c in canaries if c != "ROSTER-CANARY" and c.encode() in data]
    return found


def hostile_output(out):
    return rows(out)["mallory"]["report"].get("output", "")


def test_isolation():
    """A hostile submission cannot read another student's files, the gradebook, the course
    config or secret, the roster, or the instructor's environment, nor write into the
    submissions or output folder, nor ptrace the grader. Checked as root (sandbox uid) and
    as an unprivileged user (user namespace); the same attack succeeds without the sandbox,
    so the test would notice a broken one."""
    if os.geteuid() != 0:
        raise Skip("needs root (to also run the unprivileged case and the uid sandbox)")
    # control: no sandbox, the attack works
    d = tmpdir("iso-control")
    subs, out, course, roster, canaries = hostile_class(d)
    grade(subs, out, "--no-sandbox", course=course, roster=roster, env_extra={"CUDALAB_CANARY": "ENV-CANARY"})
    outp = hostile_output(out)
    check(canaries[0] in outp and canaries[1] in outp,
          "control: without the sandbox the hostile submission should read the canaries:\n" + outp[:3000])
    check("ENV-CANARY" not in outp and "HOSTILE env PATH=" in outp, "the environment is reduced even then")
    # root: namespaces + a uid of its own
    d = tmpdir("iso-root")
    subs, out, course, roster, canaries = hostile_class(d)
    p, s = grade(subs, out, course=course, roster=roster, env_extra={"CUDALAB_CANARY": "ENV-CANARY"})
    check("namespaces" in s["sandbox"], f"sandbox: {s['sandbox']}")
    outp = hostile_output(out)
    check("HOSTILE uid=" in outp and "HOSTILE denied" in outp, "the hostile submission ran:\n" + outp[:2000])
    check("HOSTILE read /tmp" not in outp and "HOSTILE WROTE" not in outp, "hostile read or wrote:\n" + outp)
    check("ATTACHED" not in outp, "hostile ptraced the grader")
    check(not leaked(out, canaries), f"leaked: {leaked(out, canaries)}")
    check(not os.path.exists(os.path.join(out, "hostile-was-here")), "wrote into the output folder")
    check(not os.path.exists(os.path.join(subs, "hostile-was-here")), "wrote into the submissions folder")
    expect_verdicts(rows(out), {"alice": ("correct", None), "mallory": ("correct", None)})
    check(not no_leftovers(d), f"runner processes left behind: {no_leftovers(d)}")
    # root without namespaces (a container): a uid of its own, and file modes
    d = tmpdir("iso-usermode")
    subs, out, course, roster, canaries = hostile_class(d)
    put(course, open(course).read() + "sandbox: {mode: user}\n", 0o600)
    p, s = grade(subs, out, course=course, roster=roster, check_rc=False)
    check(p.returncode == 2 and "could read " + subs in p.stderr, f"a readable submissions folder: {p.stderr}")
    os.chmod(subs, 0o700)
    p, s = grade(subs, out, course=course, roster=roster, env_extra={"CUDALAB_CANARY": "ENV-CANARY"})
    check(s["sandbox"].startswith("uid 64000"), f"sandbox: {s['sandbox']}")
    outp = hostile_output(out)
    check("HOSTILE denied" in outp and "HOSTILE read /tmp" not in outp and "HOSTILE WROTE" not in outp,
          "hostile read or wrote (user mode):\n" + outp[:3000])
    check("ATTACHED" not in outp, "hostile ptraced the grader (user mode)")
    check(not leaked(out, canaries), f"leaked (user mode): {leaked(out, canaries)}")
    check(not no_leftovers(d), f"runner processes left behind: {no_leftovers(d)}")
    # an unprivileged instructor: a user namespace
    d = tmpdir("iso-user")
    subs, out, course, roster, canaries = hostile_class(d)
    shutil.chown(d, 65534, 65534)
    for root, dirs, files in os.walk(d):
        for x in dirs + files:
            os.chown(os.path.join(root, x), 65534, 65534)
    cache = tmpdir("iso-user-cache")
    shutil.chown(cache, 65534, 65534)
    cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", A.cudalab, "grade", "--lab", "selftest",
           "--submissions", subs, "--out", out, "--course", course, "--roster", roster, "--runner", A.runner, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       env=env({"CUDALAB_CANARY": "ENV-CANARY", "XDG_CACHE_HOME": cache, "HOME": d}))
    if p.returncode != 0 and "user namespaces" in p.stderr:
        print("note: unprivileged user namespaces are off here; the unprivileged case is not run")
        return
    check(p.returncode == 0, f"unprivileged grade failed: {p.stderr}")
    s = json.loads(p.stdout)
    check("user" in s["sandbox"], f"sandbox: {s['sandbox']}")
    outp = hostile_output(out)
    check("HOSTILE read /tmp" not in outp and "HOSTILE WROTE" not in outp, "hostile read or wrote:\n" + outp)
    check(not leaked(out, canaries), f"leaked: {leaked(out, canaries)}")


def test_limits():
    """Wall time, output size, file size and number of processes are limited per the course
    config; nothing the submissions started survives."""
    d = tmpdir("limits")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for n in ("hang", "chatty", "big_file", "forkbomb", "forks", "good"):
        shutil.copy(sol(n), os.path.join(subs, n.replace("_", "") + ".so"))
    course = course_file(d, "course: limits\nsecret_file: secret.txt\n"
                            "defaults:\n  limits: {timeout_scale: 0.5, max_file_mb: 1, max_procs: 8}\n")
    p, s = grade(subs, os.path.join(d, "out"), course=course)
    rs = rows(os.path.join(d, "out"))
    expect_verdicts(rs, {
        "hang": ("timeout", "timed out after 5 s"),  # lab timeout 10 s x 0.5
        "bigfile": ("crash", "signal 25"),
        "good": ("correct", None),
        "forks": ("correct", None),
    })
    chatty = rs["chatty"]
    check(chatty["verdict"] == "correct", chatty["message"])
    check("more bytes of output not kept" in chatty["report"]["output"], "output capped")
    check(len(chatty["report"]["output"]) < 140000, "output size")
    fb = rs["forkbomb"]["report"]["output"]
    m = re.search(r"FORKBOMB started (\d+) children", fb)
    check(m and int(m.group(1)) < 8, f"process limit: {fb[:500]}")
    check(not no_leftovers(d), f"processes left behind: {no_leftovers(d)}")


def student_seed(secret, lab, student, sha):
    mac = hmac.new(secret.encode(), digestmod=hashlib.sha256)
    for part in (b"cudalab student seed v1", lab.encode(), student.encode(), sha.encode()):
        mac.update(part + b"\0")
    s = int.from_bytes(mac.digest()[:6], "big")
    return s or 1


def test_seeds():
    """Per-student seeds from the course secret: HMAC-SHA256(secret, lab, student,
    submission hash), reproducible, different per student and per secret; the secret never
    reaches the submission (checked by test_isolation) and is not in any report."""
    d = tmpdir("seeds")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for st in ("ann", "ben", "cat"):
        shutil.copy(sol("good"), os.path.join(subs, st + ".so"))
    secret = "seed-secret-" + os.urandom(8).hex()
    course = course_file(d, "course: seeds\nsecret_file: secret.txt\n", secret=secret)
    grade(subs, os.path.join(d, "out"), course=course)
    rs = rows(os.path.join(d, "out"))
    seeds = {st: r["seed"] for st, r in rs.items()}
    check(len(set(seeds.values())) == 3, f"same seed for different students: {seeds}")
    for st, r in rs.items():
        want = student_seed(secret, "selftest", st, r["sha256"])
        check(r["seed"] == want and r["report"]["seed"] == want, f"{st}: seed {r['seed']} != HMAC {want}")
    # same secret, a fresh gradebook: the same seeds
    grade(subs, os.path.join(d, "out2"), course=course)
    check({s: r["seed"] for s, r in rows(os.path.join(d, "out2")).items()} == seeds, "seeds not reproducible")
    # another secret: other seeds
    d2 = tmpdir("seeds2")
    course2 = course_file(d2, "course: seeds\nsecret_file: secret.txt\n", secret="another-secret-0123456789")
    grade(subs, os.path.join(d2, "out"), course=course2)
    other = {s: r["seed"] for s, r in rows(os.path.join(d2, "out")).items()}
    check(all(other[s] != seeds[s] for s in seeds), "the secret does not change the seeds")
    for root, _, files in os.walk(os.path.join(d, "out")):
        for f in files:
            check(secret.encode() not in open(os.path.join(root, f), "rb").read(), f"secret in {f}")
    # no secret configured: one is made, private, and reused
    d3 = tmpdir("seeds3")
    grade(subs, os.path.join(d3, "out"))
    sec = os.path.join(d3, "out", "course-secret")
    check(stat.S_IMODE(os.stat(sec).st_mode) == 0o600, "made secret is private")
    first = {s: r["seed"] for s, r in rows(os.path.join(d3, "out")).items()}
    os.remove(os.path.join(d3, "out", "gradebook.sqlite"))
    grade(subs, os.path.join(d3, "out"))
    check({s: r["seed"] for s, r in rows(os.path.join(d3, "out")).items()} == first, "made secret not reused")
    # a world-readable secret is refused, with file:line
    bad = tmpdir("seeds4")
    course4 = course_file(bad, "course: x\nsecret_file: secret.txt\n")
    os.chmod(os.path.join(bad, "secret.txt"), 0o644)
    p, _ = grade(subs, os.path.join(bad, "out"), course=course4, check_rc=False)
    check(p.returncode == 2 and "course.yaml:2:" in p.stderr and "chmod 600" in p.stderr, p.stderr)


def test_bans():
    """Course bans: a header (static, file:line), a header outside the allow-list, a library
    loaded at run time (banned, or not allowed)."""
    d = tmpdir("bans")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    put(os.path.join(subs, "hdr.cu"), '#include <cuda_runtime.h>\n\n#include "thrust/sort.h"\nint x;\n')
    put(os.path.join(subs, "allow.cu"), "#include <cuda_runtime.h>\n#include <stdio.h>\nint x;\n")
    shutil.copy(sol("loads_lib"), os.path.join(subs, "lib.so"))
    shutil.copy(sol("good"), os.path.join(subs, "ok.so"))
    course = course_file(d, "course: bans\nsecret_file: secret.txt\n"
                            "defaults:\n  headers: {banned: [thrust/sort.h]}\n"
                            "labs:\n  selftest:\n"
                            "    headers: {allowed: [cuda_runtime.h, thrust/sort.h]}\n"
                            "    libraries: {banned: [resolv]}\n")
    grade(subs, os.path.join(d, "out"), course=course)
    expect_verdicts(rows(os.path.join(d, "out")), {
        "hdr": ("banned", "hdr.cu:3: includes thrust/sort.h"),
        "allow": ("banned", "allow.cu:2: includes stdio.h, which is not on this course's list"),
        "lib": ("banned", "loaded libresolv.so.2 while it ran"),
        "ok": ("correct", None),
    })
    # an allow-list of libraries that leaves libm out
    d2 = tmpdir("bans2")
    course2 = course_file(d2, "course: bans\nsecret_file: secret.txt\n"
                              "defaults:\n  libraries: {allowed: [cudart]}\n")
    grade(subs, os.path.join(d2, "out"), course=course2)
    expect_verdicts(rows(os.path.join(d2, "out")), {"lib": ("banned", "does not allow"), "ok": ("correct", None)})


def test_course_config():
    """Course config errors name file:line:col; weights, tiers and the late penalty apply."""
    d = tmpdir("course")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    shutil.copy(sol("good"), os.path.join(subs, "early.so"))
    shutil.copy(sol("good"), os.path.join(subs, "late.so"))
    shutil.copy(sol("good"), os.path.join(subs, "verylate.so"))
    deadline = time.time() - 3600
    os.utime(os.path.join(subs, "early.so"), (deadline - 100, deadline - 100))
    os.utime(os.path.join(subs, "late.so"), (deadline + 1.5 * 86400, deadline + 1.5 * 86400))
    os.utime(os.path.join(subs, "verylate.so"), (deadline + 9 * 86400, deadline + 9 * 86400))
    dl = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(deadline))
    course = course_file(d, "course: weights\nsecret_file: secret.txt\nlate: {penalty_per_day: 0.1, max_days: 3}\n"
                            f"defaults:\n  deadline: {dl}\n"
                            "  weights: {correctness: 50, pass: 10, good: 20, excellent: 50}\n")
    grade(subs, os.path.join(d, "out"), course=course)
    rs = rows(os.path.join(d, "out"))
    check(rs["early"]["score"] == 50 and rs["early"]["max_score"] == 100, f"weights: {rs['early']}")
    check(rs["late"]["late_days"] == 2 and abs(rs["late"]["score"] - 40) < 1e-9, f"late: {rs['late']}")
    check(rs["verylate"]["score"] == 0 and rs["verylate"]["penalty"] == 1, f"very late: {rs['verylate']}")
    for text, where in [("course: x\nlabs:\n  selftest:\n    tiers: {pass: 0.9, good: 0.5, excellent: 1}\n", ":4:"),
                        ("course: x\ndefaults:\n  deadline: next friday\n", ":3:"),
                        ("course: x\ndefaults:\n  limts: {}\n", ":3:"),
                        ("course: x\nsandbox: {mode: maybe}\n", ":2:")]:
            bad = tmpdir("badcourse")
            c = put(os.path.join(bad, "course.yaml"), text, 0o600)
            p, _ = grade(subs, os.path.join(bad, "out"), course=c, check_rc=False)
            check(p.returncode == 2 and ("course.yaml" + where) in p.stderr, f"{text!r}: {p.stderr}")


def test_resume_kill():
    """A run killed with SIGKILL halfway and started again grades every submission exactly
    once, skips what was finished, keeps the gradebook consistent, and leaves no process
    behind; a changed submission or config is graded again."""
    d = tmpdir("resume")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    names = [f"s{i:02d}" for i in range(10)]
    for n in names:
        shutil.copy(sol("slow"), os.path.join(subs, n + ".so"))
    out = os.path.join(d, "out")
    cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--runner", A.runner,
           "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    gb = os.path.join(out, "gradebook.sqlite")
    t0 = time.time()
    done = 0
    while time.time() - t0 < 60:
        if os.path.exists(gb):
            try:
                db = sqlite3.connect(gb, timeout=5)
                done = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
                db.close()
            except sqlite3.Error:
                done = 0
        if done >= 3:
            break
        time.sleep(0.05)
    check(done >= 3, "the first run did not record 3 results in time")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    check(not no_leftovers(d), f"workers or runners survived the kill: {no_leftovers(d)}")
    db = sqlite3.connect(gb)
    check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "gradebook integrity")
    first = {r[0]: r[1] for r in db.execute("SELECT student, run_id FROM results")}
    db.close()
    check(0 < len(first) < len(names), f"the kill was not halfway: {len(first)} of {len(names)}")
    p, s = grade(subs, out)
    check(s["skipped"] == len(first) and s["graded"] == len(names) - len(first), f"resume summary: {s}")
    db = sqlite3.connect(gb)
    per = dict(db.execute("SELECT student, COUNT(*) FROM results GROUP BY student").fetchall())
    check(sorted(per) == names and set(per.values()) == {1}, f"each submission exactly once: {per}")
    for st, run in first.items():  # the first run's results were kept, not regraded
        check(db.execute("SELECT run_id FROM results WHERE student=?", (st,)).fetchone()[0] == run, st)
    db.close()
    # nothing changed: nothing graded
    p, s = grade(subs, out)
    check(s["graded"] == 0 and s["skipped"] == len(names), f"rerun: {s}")
    # one submission changed: only that one
    shutil.copy(sol("good"), os.path.join(subs, "s03.so"))
    p, s = grade(subs, out)
    check(s["graded"] == 1, f"changed submission: {s}")
    # the course config changed: everything again
    course = course_file(d, "course: v2\nsecret_file: secret.txt\n")
    p, s = grade(subs, out, course=course)
    check(s["graded"] == len(names), f"changed config: {s}")


def test_kill_usermode():
    """Root without namespaces (sandbox mode user): a run killed with SIGKILL while its
    submissions hang leaves no process behind, the gradings its workers started included
    (each runs in a session of its own, which the PID namespace of the default mode would
    take down with the worker)."""
    if os.geteuid() != 0:
        raise Skip("needs root (the uid sandbox)")
    d = tmpdir("kill-user")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for n in ("a", "b", "c", "e"):
        shutil.copy(sol("hang"), os.path.join(subs, n + ".so"))
    os.chmod(subs, 0o700)
    course = course_file(d, "course: kill test\nsecret_file: secret.txt\nsandbox: {mode: user}\n")
    out = os.path.join(d, "out")
    cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--runner", A.runner,
           "--course", course, "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
    t0, running = time.time(), False
    while not running and time.time() - t0 < 60 and proc.poll() is None:
        time.sleep(0.1)
        ps = subprocess.run(["ps", "-eo", "uid=,args="], capture_output=True, text=True).stdout
        # a solution process as a sandbox uid: a hanging case is being graded
        running = any(64000 <= int(l.split(None, 1)[0]) < 65534 and "cudalab-exec-host" in l
                      for l in ps.splitlines() if l.strip())
    check(running, f"no grading started (grade: {proc.poll()}, {proc.stderr.read() if proc.poll() is not None else ''})")
    time.sleep(0.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = no_leftovers(d)
    check(not left, f"processes outlived the killed run: {left}")


def test_kill_at_start():
    """A run killed the moment its stage folder exists (while the sandbox is still being
    probed) has named it in the output folder already, and the next run removes it."""
    for k in range(3):
        d = tmpdir(f"kill-start-{k}")
        stage, subs = os.path.join(d, "stage"), os.path.join(d, "subs")
        os.makedirs(stage)
        os.makedirs(subs)
        for i in range(2):
            shutil.copy(sol("slow"), os.path.join(subs, f"k{i}.so"))
        cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", os.path.join(d, "out"),
               "--runner", A.runner, "--jobs", "1"]
        e = env({"CUDALAB_STAGE_DIR": stage})
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=e)
        t0 = time.time()
        while time.time() - t0 < 30 and not any(os.scandir(stage)):
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        check(any(os.scandir(stage)), "the killed run made no stage (it was not killed mid-start)")
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=e)
        check(r.returncode == 0, f"round {k}: the second run exited {r.returncode}: {r.stderr[-500:]}")
        check(not list(os.scandir(stage)), f"round {k}: stage left behind: {[x.name for x in os.scandir(stage)]}")


def test_kill_lock():
    """A run killed while its workers still live (frozen here with SIGSTOP: after a SIGKILL
    they take a second or two to end) does not keep the next run out of the output folder:
    the lock is the killed process's alone. With a lock the workers inherited (flock), the
    next run said another grade was using the folder, and the stage stayed behind."""
    d = tmpdir("kill-lock")
    stage, subs, out = os.path.join(d, "stage"), os.path.join(d, "subs"), os.path.join(d, "out")
    os.makedirs(stage)
    os.makedirs(subs)
    for i in range(3):
        shutil.copy(sol("slow"), os.path.join(subs, f"k{i}.so"))
    cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--runner", A.runner,
           "--jobs", "1"]
    e = env({"CUDALAB_STAGE_DIR": stage})
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=e)
    t0, below = time.time(), []
    while time.time() - t0 < 60 and not below and proc.poll() is None:
        time.sleep(0.05)
        below = descendants(proc.pid) if any(os.scandir(stage)) else []
    check(below, f"no worker started (grade: {proc.poll()})")
    time.sleep(0.3)
    below = descendants(proc.pid)
    for p in below:
        os.kill(p, signal.SIGSTOP)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=e)
    finally:
        for p in below:
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
    check(r.returncode == 0, f"the next run exited {r.returncode}: {r.stderr[-500:]}")
    check(not list(os.scandir(stage)), f"stage left behind: {[x.name for x in os.scandir(stage)]}")


def test_parallel():
    """One worker per GPU, each with CUDA_VISIBLE_DEVICES set to its GPU, running at the same
    time; progress lines on a terminal."""
    d = tmpdir("parallel")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for i in range(4):
        shutil.copy(sol("gpu_env"), os.path.join(subs, f"p{i}.so"))
    out = os.path.join(d, "out")
    t0 = time.time()
    grade(subs, out, "--gpus", "0,1")
    rs = rows(out)
    seen, spans = {}, []
    for st, r in rs.items():
        m = re.search(r"GPUENV cvd=(\S+) start=([\d.]+) end=([\d.]+)", r["report"]["output"])
        check(m, f"{st}: no GPUENV line")
        seen.setdefault(m.group(1), []).append(st)
        spans.append((float(m.group(2)), float(m.group(3))))
    check(set(seen) == {"0", "1"}, f"CUDA_VISIBLE_DEVICES seen: {seen}")
    spans.sort()
    check(any(b[0] < a[1] for a, b in zip(spans, spans[1:])), f"workers did not overlap: {spans}")
    # progress on a terminal (script gives the run a pseudo-terminal)
    if shutil.which("script"):
        out2 = os.path.join(d, "out2")
        cmd = " ".join([A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out2,
                        "--runner", A.runner, "--gpus", "0,1"])
        p = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, text=True, timeout=120,
                           env=env())
        check(re.search(r"\[\d+/4 done\] grading p\d \(GPU [01]\)", p.stdout), f"no progress line:\n{p.stdout}")
        check(re.search(r"4/4\s+p\d", p.stdout), f"no per-student line:\n{p.stdout}")


def test_gradescope():
    """`cudalab gradescope` writes results.json in Gradescope's format (score, tests with
    score/max_score/output/visibility, leaderboard), applies the late penalty from the
    metadata, hides the seed, and a hostile submission cannot write results.json."""
    d = tmpdir("gs")
    ag = os.path.join(d, "autograder")
    sub = os.path.join(ag, "submission")
    os.makedirs(sub)
    shutil.copy(sol("wrong"), os.path.join(sub, "selftest.so"))
    deadline = time.time() - 86400 * 1.2
    dl = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(deadline))
    src = os.path.join(ag, "source")
    os.makedirs(src)
    course = course_file(src, "course: gs\nsecret_file: secret.txt\nlate: {penalty_per_day: 0.25}\n"
                              f"gradescope: {{leaderboard: true}}\nlabs:\n  selftest:\n    deadline: {dl}\n"
                              "    visibility: after_published\n")
    meta = put(os.path.join(ag, "submission_metadata.json"), json.dumps({
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
        "users": [{"id": 4242, "name": "Student Four", "email": "s4@example.edu"}],
        "assignment": {"due_date": dl}}))
    results = os.path.join(ag, "results", "results.json")
    cmd = [A.cudalab, "gradescope", "--submission", sub, "--results", results, "--metadata", meta, "--course",
           course, "--runner", A.runner]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env())
    check(p.returncode == 0, p.stderr)
    r = json.load(open(results))
    tests = r["tests"]
    names = [t["name"] for t in tests]
    check(any(n.startswith("correctness: ") for n in names) and "performance" in names, names)
    check(all(k in t for t in tests for k in ("name", "score", "max_score", "status", "visibility")), tests)
    check(all(t["visibility"] == "after_published" for t in tests), "visibility")
    maxsum = sum(t["max_score"] for t in tests)
    check(abs(maxsum - 100) < 1e-6, f"max scores sum to {maxsum}")
    late = [t for t in tests if t["name"] == "late penalty"]
    check(late and "2 days late" in late[0]["output"], f"late penalty: {late}")
    check(abs(sum(t["score"] for t in tests) - r["score"]) < 1e-6, "tests add up to the score")
    # wrong.c passes 1 of 3 cases: 60 x 1/3 = 20, two days late at 25% a day: 10
    check(abs(r["score"] - 10) < 1e-6, f"score {r['score']}, wanted 10")
    failing = [t for t in tests if t["status"] == "failed" and t["name"].startswith("correctness")]
    check(failing and "expected" in failing[0]["output"], f"a failing case says where: {failing}")
    check(any(e["name"] == "score" for e in r["leaderboard"]), r["leaderboard"])
    check("seed" not in json.dumps(r).lower(), "the seed must not reach the student")
    # a hostile submission: cannot read the secret nor forge results.json
    os.remove(os.path.join(sub, "selftest.so"))
    shutil.copy(sol("hostile"), os.path.join(sub, "selftest.so"))
    put(os.path.join(sub, "targets.txt"), "\n".join([os.path.join(src, "secret.txt"), course, meta,
                                                    "write:" + os.path.dirname(results)]) + "\n")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env())
    check(p.returncode == 0, p.stderr)
    text = open(results).read()
    r = json.loads(text)
    secret = open(os.path.join(src, "secret.txt")).read().strip()
    check(secret not in text, "the secret reached the student's results")
    check("HOSTILE WROTE" not in r["output"], "the hostile submission wrote into the results folder")
    check(not os.path.exists(os.path.join(ag, "results", "hostile-was-here")), "wrote into results")


def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(c):
            return shutil.which(c)
    return None


def run_chromium(exe, url, *args):
    profile = tempfile.mkdtemp(prefix="cudalab-chromium-")
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,1800", *args, url]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_html():
    """The HTML report, opened in headless Chromium: a screenshot, and the DOM has the class
    table with a link per student, the leaderboard, the roofline SVG with points, the
    per-student pages with every case; a submission's HTML output shows as text."""
    exe = chromium()
    if not exe:
        raise Skip("chromium is not installed (scripts/install-deps.sh installs it)")
    d = tmpdir("html")
    subs = os.path.join(d, "subs")
    os.makedirs(subs)
    for n, f in (("alice", "good"), ("bob", "wrong"), ("carol", "crash"), ("xavier", "xss"), ("dora", "good")):
        shutil.copy(sol(f), os.path.join(subs, n + ".so"))
    out = os.path.join(d, "out")
    grade(subs, out)
    index = os.path.join(out, "report", "index.html")
    shot = os.path.join(A.artifacts or d, "classroom-report.png")
    p = run_chromium(exe, "file://" + index, f"--screenshot={shot}")
    check(os.path.exists(shot) and os.path.getsize(shot) > 10000, f"screenshot: {p.stderr[-2000:]}")
    with open(shot, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", "screenshot is a PNG")
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    check(w >= 800 and h >= 600, f"screenshot size {w}x{h}")
    dom = run_chromium(exe, "file://" + index, "--dump-dom").stdout
    check('<table id="class">' in dom, "class table")
    links = set(re.findall(r'href="(students/[^"]+\.html)"', dom))
    check(len(links) == 5, f"student links: {links}")
    for l in links:
        check(os.path.exists(os.path.join(out, "report", l)), l)
    check(dom.count('<tr class="row">') == 5, "one row per student")
    check('<section id="leaderboard">' in dom, "leaderboard")
    lb = dom[dom.index('<section id="leaderboard">'):]
    check(lb.index("alice") < lb.index("bob") < lb.index("carol"), "leaderboard order")
    check('<svg id="roofline"' in dom and dom.count("<circle") >= 2, "roofline with points")
    check("<script" not in dom.lower(), "no script element in the report")
    check("<title>selftest: class report</title>" in dom, "the title was not changed by a script")
    sdom = run_chromium(exe, "file://" + os.path.join(out, "report", "students", "xavier.html"), "--dump-dom").stdout
    check('<table id="cases">' in sdom and sdom.count("<tr>") >= 4, "every case on the student's page")
    check("XSS-MARKER" in sdom and "&lt;script&gt;" in sdom and "<script" not in sdom.lower(),
          "the submission's output is shown as text")
    check("pwned" not in re.search(r"<title>(.*?)</title>", sdom).group(1), "a script ran")
    bdom = run_chromium(exe, "file://" + os.path.join(out, "report", "students", "bob.html"), "--dump-dom").stdout
    check("y[7]" in bdom and "expected" in bdom, "the failing case says where")


# ---------------------------------------------------------------- Slurm

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SlurmCluster:
    """munged + slurmctld + slurmd on this machine, configured in a temporary folder."""

    def __init__(self):
        for tool in ("munged", "slurmctld", "slurmd", "sbatch", "squeue"):
            if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
                raise Skip(f"{tool} is not installed (scripts/install-deps.sh installs Slurm and munge)")
        if os.geteuid() != 0:
            raise Skip("the test cluster runs its daemons as root")
        self.dir = tmpdir("slurm")
        self.procs = []
        host = socket.gethostname().split(".")[0]
        m = os.path.join(self.dir, "munge")
        os.makedirs(m, mode=0o700)
        os.chmod(m, 0o755)
        key = put(os.path.join(m, "munge.key"), os.urandom(1024), 0o400)
        self.sock = os.path.join(m, "munge.socket")
        self.run(["munged", "-f", f"--socket={self.sock}", f"--key-file={key}", f"--log-file={m}/munged.log",
                  f"--pid-file={m}/munged.pid", f"--seed-file={m}/munged.seed"])
        for sub in ("state", "spool"):
            os.makedirs(os.path.join(self.dir, sub))
        cpus = os.cpu_count() or 2
        conf = f"""ClusterName=cudalabtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={self.sock}
CredType=cred/munge
StateSaveLocation={self.dir}/state
SlurmdSpoolDir={self.dir}/spool
SlurmctldPidFile={self.dir}/slurmctld.pid
SlurmdPidFile={self.dir}/slurmd.pid
SlurmctldLogFile={self.dir}/slurmctld.log
SlurmdLogFile={self.dir}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
"""
        self.conf = put(os.path.join(self.dir, "slurm.conf"), conf)
        self.env = {"SLURM_CONF": self.conf}
        self.run(["slurmctld", "-f", self.conf], env=self.env)
        time.sleep(1)
        self.run(["slurmd", "-f", self.conf], env=self.env)
        e = dict(os.environ, **self.env)
        for _ in range(60):
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], capture_output=True, text=True, env=e)
            if p.returncode == 0 and "idle" in p.stdout:
                return
            time.sleep(0.5)
        self.stop()
        raise AssertionError("the test Slurm cluster did not come up:\n" + self.logs())

    def run(self, cmd, env=None):
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
        if p.returncode != 0:
            self.stop()
            raise AssertionError(f"{cmd[0]} failed: {p.stderr}")

    def logs(self):
        text = ""
        for f in ("slurmctld.log", "slurmd.log"):
            p = os.path.join(self.dir, f)
            if os.path.exists(p):
                text += f"--- {f}\n" + open(p).read()[-3000:]
        return text

    def stop(self):
        for pidfile in ("slurmd.pid", "slurmctld.pid", "munge/munged.pid"):
            p = os.path.join(self.dir, pidfile)
            try:
                pid = int(open(p).read().strip())
                os.kill(pid, signal.SIGTERM)
                for _ in range(50):
                    os.kill(pid, 0)
                    time.sleep(0.1)
            except (OSError, ValueError):
                pass


def test_slurm():
    """`cudalab grade --slurm` against a real one-node Slurm cluster (munge, slurmctld,
    slurmd started here): one array task per submission, results merged into the
    gradebook; a rerun grades nothing; --gres gpu:1 on a node without GPUs is refused with
    sbatch's message."""
    cluster = SlurmCluster()
    try:
        d = tmpdir("slurm-class")
        subs = os.path.join(d, "subs")
        os.makedirs(subs)
        for n, f in (("alice", "good"), ("bob", "wrong"), ("carol", "crash"), ("dave", "good")):
            shutil.copy(sol(f), os.path.join(subs, n + ".so"))
        put(os.path.join(subs, "erin.txt"), "not a solution")
        out = os.path.join(d, "out")
        course = course_file(d, "course: slurm\nsecret_file: secret.txt\n")
        p, s = grade(subs, out, "--slurm", "--gres", "none", "--poll", "1", course=course,
                     env_extra=cluster.env, timeout=300, check_rc=False)
        check(p.returncode == 0, f"grade --slurm: {p.stderr}\n{cluster.logs()}")
        check(s.get("slurm_job") and s["graded"] == 5 and s["failed_tasks"] == 0, f"summary: {s}")
        rs = rows(out)
        expect_verdicts(rs, {"alice": ("correct", None), "bob": ("wrong", "y[7]"), "carol": ("crash", "signal 11"),
                             "dave": ("correct", None), "erin": ("compile_error", "not a .cu file")})
        runs = [x for x in os.listdir(os.path.join(out, "slurm")) if x.startswith("run-")]
        job = open(os.path.join(out, "slurm", runs[0], "job.sh")).read()
        check("#SBATCH --array=0-4" in job and "--gres" not in job and "grade --task" in job, job)
        check(len(os.listdir(os.path.join(out, "slurm", runs[0], "results"))) == 5, "one result file per task")
        # the sandbox ran inside the tasks
        res = json.load(open(os.path.join(out, "slurm", runs[0], "results", "0.json")))
        check("namespaces" in res.get("sandbox", ""), f"task sandbox: {res.get('sandbox')}")
        # seeds are the same as a local run would give (the manifest carries them)
        secret = open(os.path.join(d, "secret.txt")).read().strip()
        for st, r in rs.items():
            check(r["seed"] == student_seed(secret, "selftest", st, r["sha256"]), f"seed of {st}")
        # rerun: nothing left
        p, s = grade(subs, out, "--slurm", "--gres", "none", "--poll", "1", course=course, env_extra=cluster.env)
        check(s["graded"] == 0 and s["skipped"] == 5 and not s.get("slurm_job"), f"rerun: {s}")
        # a changed submission: one task
        shutil.copy(sol("good"), os.path.join(subs, "bob.so"))
        p, s = grade(subs, out, "--slurm", "--gres", "none", "--poll", "1", course=course, env_extra=cluster.env)
        check(s["graded"] == 1 and rows(out)["bob"]["verdict"] == "correct", f"changed: {s}")
        # the submitting cudalab killed while its job runs: the rerun waits for that job,
        # merges its results, and submits nothing new
        for i in range(3):
            shutil.copy(sol("slow"), os.path.join(subs, f"slow{i}.so"))
        cmd = [A.cudalab, "grade", "--lab", "selftest", "--submissions", subs, "--out", out, "--json", "--runner",
               A.runner, "--course", course, "--slurm", "--gres", "none", "--poll", "1"]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env(cluster.env))
        gb = os.path.join(out, "gradebook.sqlite")
        t0, job = time.time(), None
        while time.time() - t0 < 60 and not job:
            time.sleep(0.2)
            db = sqlite3.connect(gb, timeout=5)
            job = db.execute("SELECT slurm_job FROM runs WHERE slurm_job IS NOT NULL AND finished_at IS NULL").fetchone()
            db.close()
        check(job, "the job was not submitted")
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        p, s = grade(subs, out, "--slurm", "--gres", "none", "--poll", "1", course=course, env_extra=cluster.env)
        check(s["graded"] == 3 and not s.get("slurm_job"), f"resume after a kill: {s}")
        db = sqlite3.connect(gb)
        per = dict(db.execute("SELECT student, COUNT(*) FROM results WHERE student LIKE 'slow%' GROUP BY student"))
        db.close()
        check(per == {"slow0": 1, "slow1": 1, "slow2": 1}, f"each once: {per}")
        # the default --gres=gpu:1 on a node without GPUs: refused, clearly
        shutil.copy(sol("good"), os.path.join(subs, "frank.so"))
        p, s = grade(subs, out, "--slurm", "--poll", "1", course=course, env_extra=cluster.env, check_rc=False)
        check(p.returncode == 2 and "sbatch refused the job" in p.stderr, p.stderr)
    finally:
        cluster.stop()


TESTS = {name[5:]: fn for name, fn in globals().items() if name.startswith("test_")}


def main(tests=None):
    """Runs one test of tests (default: this file's) named on the command line."""
    global A
    tests = tests or TESTS
    ap = argparse.ArgumentParser()
    ap.add_argument("--cudalab", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--solutions", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--artifacts", default=None, help="where to keep the screenshot")
    ap.add_argument("test", choices=sorted(tests))
    A = ap.parse_args()
    for k in ("cudalab", "runner", "solutions", "source"):
        setattr(A, k, os.path.abspath(getattr(A, k)))
    if A.artifacts:
        os.makedirs(A.artifacts, exist_ok=True)
    try:
        tests[A.test]()
    except Skip as e:
        print(f"SKIPPED: {e}")
        return SKIP
    except AssertionError as e:
        print(f"FAILED {A.test}: {e}")
        return 1
    print(f"ok {A.test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
