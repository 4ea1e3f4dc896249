#!/usr/bin/env python3
"""fake_ncu.py: a stand-in for Nsight Compute on machines without a GPU (tests/learner).

Checks the command cudalab gives ncu and runs the application as ncu does (stdin passed on,
its output shown). Where the application ran its bench case, writes the recorded-format
report tests/fixtures/ncu/transpose_naive_h100.csv (its kernel renamed to the one asked for)
to --log-file; where it did not, writes what ncu writes then: no kernel was profiled. FAKE_NCU_PERM=1: answers as ncu does without permission to read
the performance counters. FAKE_NCU_ARGS=FILE: keeps the arguments there."""
import json
import os
import re
import subprocess
import sys

args = sys.argv[1:]
if os.environ.get("FAKE_NCU_ARGS"):
    with open(os.environ["FAKE_NCU_ARGS"], "w") as f:
        json.dump(args, f)
if os.environ.get("FAKE_NCU_PERM"):
    print("==PROF== Connected to process 1 (cudalab-run)")
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
          "Counters on the target device 0. For instructions on enabling permissions and to get more information "
          "see https://developer.nvidia.com/ERR_NVGPUCTRPERM")
    sys.exit(1)


def opt(name):
    return args[args.index(name) + 1]


for need in ("--csv", "--target-processes", "--metrics", "--log-file", "--kernel-name"):
    if need not in args:
        print(f"fake ncu: missing {need}", file=sys.stderr)
        sys.exit(2)
m = re.fullmatch(r"regex:\^\(\.\*::\)\?\((.*)\)\(<\.\*>\)\?\$", opt("--kernel-name"))
if not m:
    print("fake ncu: --kernel-name is not regex:^(.*::)?(...)(<.*>)?$", file=sys.stderr)
    sys.exit(2)
app = args[args.index(opt("--log-file")) + 1:]
if not app or "--mode" not in app or app[app.index("--mode") + 1] != "bench" or "--case" not in app:
    print(f"fake ncu: the application is not a runner in bench mode on one case: {app}", file=sys.stderr)
    sys.exit(2)
run = subprocess.run(app, stdin=sys.stdin, capture_output=True, text=True)
sys.stdout.write(run.stdout)
sys.stderr.write(run.stderr)
if not any('"event":"case"' in line and '"kind":"bench"' in line for line in run.stdout.splitlines()):
    with open(opt("--log-file"), "w") as f:
        f.write("==WARNING== No kernels were profiled.\n")
    sys.exit(0)
src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "ncu", "transpose_naive_h100.csv")
with open(src) as f:
    text = f.read().replace("transpose_naive", m.group(1).split("|")[0])
with open(opt("--log-file"), "w") as f:
    f.write(text)
