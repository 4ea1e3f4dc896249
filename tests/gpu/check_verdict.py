#!/usr/bin/env python3
"""check_verdict.py: grade one solution with cudalab and check the verdict (GPU suite).

  check_verdict.py CUDALAB LAB SOLUTION EXPECTED [--message SUBSTR] [--mode test|submit]
                   [--timeout S] [--min-fraction F]
  check_verdict.py CUDALAB LAB SOLUTION --from-file     (EXPECTED from '// expect:' lines;
                   '// expect-message: S' and '// expect-no-message: S' check the message;
                   '// expect-env: K=V' sets K in cudalab's environment, unless it is set)

EXPECTED may list alternatives, "off_stream|wrong": any of them matches (the hostile suite's
cheats, where more than one verdict is fair and none is a grade).

Exits 77 (ctest: SKIPPED) when no GPU is visible, 0 when the verdict matches, 1 otherwise.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def gpu_present() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


def expectations(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    verdict = re.search(r"^//\s*expect:\s*(\S+)", text, re.M)
    message = re.search(r"^//\s*expect-message:\s*(.+?)\s*$", text, re.M)
    absent = re.search(r"^//\s*expect-no-message:\s*(.+?)\s*$", text, re.M)
    return (verdict.group(1) if verdict else None, message.group(1) if message else None,
            absent.group(1) if absent else None)


def expected_env(path):
    """The '// expect-env: K=V' lines of a planted solution, as a dict."""
    text = open(path, encoding="utf-8", errors="replace").read()
    return dict(m.split("=", 1) for m in re.findall(r"^//\s*expect-env:\s*(\S+=\S*)\s*$", text, re.M))


def run_json(cmd, env=None):
    """Runs a cudalab command that prints one JSON document: (the finished process, the
    document), or (the process, None) after saying what it printed instead."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    try:
        return proc, json.loads(proc.stdout)
    except json.JSONDecodeError:
        print(f"{' '.join(cmd[1:3])}: exit {proc.returncode}, no JSON report")
        print(proc.stdout[-3000:], proc.stderr[-3000:])
        return proc, None


def run_report(cmd, extra_env=None):
    """Runs a cudalab command that prints a --json report, with a progress database and data
    folder of its own; the report, or None (and what it printed) when there is none."""
    env = dict(os.environ)
    for k, v in (extra_env or {}).items():
        env.setdefault(k, v)  # a value the caller set wins (the suite on another GPU)
    state = tempfile.mkdtemp(prefix="cudalab-gpu-test-")
    env.setdefault("XDG_DATA_HOME", os.path.join(state, "data"))
    env["CUDALAB_DB"] = os.path.join(state, "progress.db")
    _, report = run_json(cmd, env)
    shutil.rmtree(state, ignore_errors=True)
    return report


def print_cases(report):
    """Each bench case's median and fraction of its ceiling, and each case that did not pass."""
    for case in report.get("cases", []):
        bench = case.get("bench")
        if bench:
            print(f"  bench {case['name']}: {bench.get('median_ms', 0):.4f} ms, "
                  f"{100 * (bench.get('fraction') or 0):.1f}% of ceiling, tier {bench.get('tier')}")
        elif case.get("status") != "pass":
            print(f"  case {case['name']}: {case.get('status')}: {case.get('message')}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cudalab")
    ap.add_argument("lab")
    ap.add_argument("solution")
    ap.add_argument("expected", nargs="?")
    ap.add_argument("--from-file", action="store_true")
    ap.add_argument("--message")
    ap.add_argument("--mode", default="submit")
    ap.add_argument("--timeout", type=float)
    ap.add_argument("--extra", action="append", default=[],
                    help="an extra cudalab option, e.g. --extra=--arch=sm_90")
    args = ap.parse_args()

    expected, message, absent = args.expected, args.message, None
    if args.from_file:
        expected, message, absent = expectations(args.solution)
        if not expected:
            print(f"{args.solution}: no '// expect: <verdict>' line")
            return 1
    if args.mode == "compile" and not shutil.which(os.environ.get("CUDALAB_NVCC", "nvcc")) \
            and not os.access("/usr/local/cuda/bin/nvcc", os.X_OK):
        print("SKIPPED: no nvcc on this machine")
        return SKIP
    if args.mode != "compile" and not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return SKIP

    # Verdicts about speed, the stream, and timed or warm-up runs need the bench; the rest need only
    # the correctness cases (much faster).
    mode = args.mode
    wanted = expected.split("|")
    if mode == "submit" and not set(wanted) & {"slow", "pass", "good", "excellent", "off_stream"} \
            and not re.search(r"timed run|warm-up run", message or ""):
        mode = "test"
    cmd = [args.cudalab, mode, args.lab, args.solution, "--json", "--no-color"] + args.extra
    if args.timeout:
        cmd += ["--timeout", str(args.timeout)]
    report = run_report(cmd, expected_env(args.solution) if args.from_file else None)
    if report is None:
        return 1
    got = report.get("verdict")
    ok = got in wanted
    if ok and message and message not in (report.get("message") or ""):
        ok = False
    if ok and absent and absent in (report.get("message") or ""):
        ok = False
    summary = f"{args.lab} {os.path.basename(args.solution)}: verdict {got} (expected {expected})"
    print(summary)
    print(f"  message: {report.get('message')}")
    print_cases(report)
    print(f"  seed {report.get('seed')}, {report.get('seconds', 0):.1f} s")
    if not ok:
        if message:
            print(f"  wanted a message containing: {message}")
        if absent:
            print(f"  wanted a message without: {absent}")
        print("  output:", (report.get("output") or "")[-1500:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
