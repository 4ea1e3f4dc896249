#!/usr/bin/env python3
"""check_driver_keep.py: cudalab's driver keeper lives exactly as long as the grading (GPU suite).

  check_driver_keep.py CUDALAB

Runs `cudalab test reduce --reference --json` as a user would and watches /proc meanwhile:
while it grades, a `cudalab-probe --hold` child of that cudalab must exist (it holds the
CUDA driver open so each judge and solution process starts sooner; grader/src/driver_keep.c),
and within two seconds of cudalab's exit it must be gone (its pipe closed), with the
grading itself still correct. With CUDALAB_DRIVER_KEEP=0 no keeper may start at all.
The suite's own holder (`--hold --while-pid`, the fixture
gpu_driver_hold) is not a child of cudalab and is told apart by that flag.
Exits 77 (ctest: SKIPPED) when no GPU is visible.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_verdict import SKIP, gpu_present  # noqa: E402


def keepers(parent=None):
    """pids of `cudalab-probe --hold` processes (not the suite's --while-pid holder),
    children of parent when given."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            argv = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")
            stat = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        if len(argv) < 2 or not argv[0].endswith(b"cudalab-probe") or argv[1] != b"--hold" or b"--while-pid" in argv:
            continue
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            continue  # a zombie is gone, whoever reaps it
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if parent is None or ppid == parent:
            found.append(int(d))
    return found


def grade(cudalab, extra_env):
    """Runs cudalab test reduce --reference --json; (exit code, verdict, stderr, keepers seen)."""
    env = dict(os.environ)
    env.update(extra_env)
    state = tempfile.mkdtemp(prefix="cudalab-keeper-")
    env["CUDALAB_DB"] = os.path.join(state, "progress.db")
    env.setdefault("XDG_DATA_HOME", os.path.join(state, "data"))
    p = subprocess.Popen([cudalab, "test", "reduce", "--reference", "--json"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    seen = set()
    while p.poll() is None:
        seen.update(keepers(p.pid))
        time.sleep(0.02)
    out, err = p.communicate()
    try:
        verdict = json.loads(out).get("verdict")
    except ValueError:
        verdict = None
    return p.returncode, verdict, err, seen


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return SKIP
    cudalab = sys.argv[1]
    before = set(keepers())
    failures = []
    rc, verdict, err, seen = grade(cudalab, {})
    if rc != 0 or verdict != "correct":
        failures.append(f"cudalab test reduce --reference: exit {rc}, verdict {verdict!r}\n{err[-2000:]}")
    if not seen:
        failures.append("no cudalab-probe --hold child was seen while cudalab graded")
    deadline = time.monotonic() + 2.0
    left = seen
    while left and time.monotonic() < deadline:
        left = {k for k in seen if k in set(keepers())}
        time.sleep(0.05)
    if left:
        failures.append(f"the keeper outlived cudalab: process(es) {sorted(left)} still run 2 s after it exited")
    stray = set(keepers()) - before - seen
    if stray:
        failures.append(f"other cudalab-probe --hold processes appeared: {sorted(stray)}")
    rc, verdict, err, off_seen = grade(cudalab, {"CUDALAB_DRIVER_KEEP": "0"})
    if rc != 0 or verdict != "correct":
        failures.append(f"with CUDALAB_DRIVER_KEEP=0: exit {rc}, verdict {verdict!r}\n{err[-2000:]}")
    if off_seen:
        failures.append(f"with CUDALAB_DRIVER_KEEP=0 a keeper still started: {sorted(off_seen)}")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print(f"ok: keeper {sorted(seen)} held the driver during the grading and ended with cudalab")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
