#!/usr/bin/env python3
"""check_tour.py: `cudalab tour` as a student runs it, and every reference at its lab's top tier
(GPU suite).

  check_tour.py CUDALAB

Runs `cudalab tour --json` once. The tour grades every lab's reference exactly as a
submission is graded (test, then bench), so this one run is also the suite's check that each
reference is correct and reaches `excellent` on this GPU: the labs' own reference tests would
grade the same nine solutions again. (`gpu_reduce_reference` still submits one reference
through `cudalab submit`.) Checks the report's fields (docs/cli.md), that every lab with a
lab.yaml is in it, and each lab's verdict; prints each bench case's fraction of its ceiling.
Exits 77 (ctest: SKIPPED) when no GPU is visible, 0 when all hold, 1 otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_verdict import gpu_present, print_cases, run_json  # noqa: E402

SKIP = 77
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not gpu_present():  # without one the tour only compiles (a minute and more): not this test
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return SKIP
    run, report = run_json([sys.argv[1], "tour", "--json", "--no-color"])
    if report is None:
        return 1
    if report.get("gpu") is None:
        print("SKIPPED: cudalab tour found no GPU")
        return SKIP
    problems = []
    gpu = report["gpu"]
    for key in ("name", "copy_gbps", "read_gbps", "write_gbps", "fp16_tflops"):
        if key not in gpu:
            problems.append(f"gpu.{key} missing")
    for key in ("compile_seconds", "seconds", "failures"):
        if key not in report:
            problems.append(f"{key} missing")
    print(f"{gpu.get('name')}: tour {report.get('seconds', 0):.1f} s (compile {report.get('compile_seconds', 0):.1f} s)")
    labs = {lab["lab"]: lab for lab in report.get("labs", [])}
    wanted = sorted(d for d in os.listdir(os.path.join(SRC, "labs"))
                    if os.path.exists(os.path.join(SRC, "labs", d, "lab.yaml")))
    for name in wanted:
        lab = labs.get(name)
        if lab is None:
            problems.append(f"{name}: not in the tour")
            continue
        for key in ("test_seconds", "bench_seconds"):
            if key not in lab:
                problems.append(f"{name}: {key} missing")
        verdict = lab.get("verdict")
        print(f"{name:<16} {verdict!s:<10} {lab.get('seconds') or 0:.1f} s")
        print_cases(lab)
        if verdict != "excellent":
            problems.append(f"{name}: verdict {verdict} (expected excellent): {lab.get('message')}")
    if run.returncode != (1 if report.get("failures") else 0):
        problems.append(f"cudalab tour exited {run.returncode} with {report.get('failures')} failures")
    for p in problems:
        print("FAIL " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
