#!/usr/bin/env python3
"""signals_test.py: a signal that ends cudalab ends the grading it started.

The judge runs in a session of its own (so that a timeout can kill all of it), which also
means a Ctrl-C at the terminal, a SIGTERM from `timeout` or a closed terminal reaches
cudalab and not the judge. This runs `cudalab test` on a solution that hangs (the CPU
runner, no GPU needed), waits until the judge is running, sends SIGINT, SIGTERM or SIGHUP
to cudalab alone, and checks that cudalab ends by that signal and that nothing of the
judge's process group is left a few seconds later.

usage: signals_test.py CUDALAB   (cudalab-run-host and test-solutions/ beside it)"""
import os
import signal
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(SRC, "tests"))
from procs import group_leaders_under, in_group  # noqa: E402


def one(cudalab, sig, tmp):
    build = os.path.dirname(os.path.abspath(cudalab))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CUDALAB_"))}
    env.update(HOME=os.path.join(tmp, "home"), XDG_CACHE_HOME=os.path.join(tmp, "cache"), NO_COLOR="1",
               CUDALAB_HOME=os.path.join(SRC, "tests", "fixtures", "home"), CUDA_VISIBLE_DEVICES="-1")
    args = [cudalab, "test", "selftest", os.path.join(build, "test-solutions", "hang.so"),
            "--runner", os.path.join(build, "cudalab-run-host"), "--timeout", "60"]
    # the signals' default actions, as in a terminal (nohup or a test runner may ignore some)
    def defaults():
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
    p = subprocess.Popen(args, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=defaults)
    try:
        judges, t0 = [], time.time()
        while not judges and time.time() - t0 < 20 and p.poll() is None:
            time.sleep(0.1)
            judges = group_leaders_under(p.pid)
        if not judges:
            return "no judge (a child in a group of its own) appeared"
        time.sleep(1.0)  # the judge is inside the hanging case by now
        os.kill(p.pid, sig)
        try:
            rc = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return "cudalab still running 10 s after the signal"
        if rc != -sig:
            return f"cudalab ended with {rc}, not by the signal"
        t1 = time.time()
        left = [q for j in judges for q in in_group(j)]
        while left and time.time() - t1 < 5:
            time.sleep(0.1)
            left = [q for j in judges for q in in_group(j)]
        if left:
            return f"the judge's group outlived cudalab: pids {left}"
        return None
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    cudalab = os.path.abspath(sys.argv[1])
    failures = []
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        with tempfile.TemporaryDirectory() as tmp:
            why = one(cudalab, sig, tmp)
        print(f"{'FAIL' if why else 'ok  '} {signal.Signals(sig).name}{': ' + why if why else ''}")
        if why:
            failures.append(why)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
