#!/usr/bin/env python3
"""check_ladder.py: a lab's ladder cannot rot (GPU suite).

  check_ladder.py CUDALAB LAB

Runs `cudalab ladder LAB --json` once and checks that every step is correct and that
each step is faster than the one before it (speed-up > 1: the geometric mean over the
bench cases of the previous step's median time over this one's, from the same run).
Exits 77 (ctest: SKIPPED) when no GPU is visible, 0 when both hold, 1 otherwise.
With CUDALAB_LADDER_OUT=DIR in the environment, the JSON is also kept as DIR/ladder_LAB.json
(bench/ladder_table.py turns those files into PERFORMANCE.md's table).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_verdict import gpu_present, run_json  # noqa: E402

SKIP = 77
NO_GPU = 3  # cudalab's exit status without a GPU


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    cudalab, lab = sys.argv[1], sys.argv[2]
    if not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return SKIP
    run, report = run_json([cudalab, "ladder", lab, "--json"])
    if run.returncode == NO_GPU:
        print("SKIPPED: " + run.stderr.strip())
        return SKIP
    if report is None:
        return 1
    keep = os.environ.get("CUDALAB_LADDER_OUT")
    if keep:
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, f"ladder_{lab}.json"), "w", encoding="utf-8") as f:
            f.write(run.stdout)
    problems = []
    for i, step in enumerate(report["steps"]):
        speedup = step.get("speedup")
        line = f"{step['step']:<28} {step['verdict']:<10} fraction={step.get('fraction')} speedup={speedup}"
        print(line)
        if not step["correct"]:
            problems.append(f"{step['step']}: {step['verdict']}: {step.get('message')}")
        elif i > 0 and (speedup is None or speedup <= 1.0):
            problems.append(f"{step['step']}: not faster than {report['steps'][i - 1]['step']} (speed-up {speedup})")
    if run.returncode not in (0, 1):
        problems.append(f"cudalab ladder exited {run.returncode}: {run.stderr.strip()}")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
