#!/usr/bin/env python3
"""jit_bench.py CUDALAB LAB SOLUTION ARCH: the code path an older GPU runs, run on this one.

Builds SOLUTION for ARCH as PTX only (`cudalab bench --arch compute_XX`), so the driver
JIT-compiles it for the GPU here: on an H100, `compute_75` runs the sm_75 paths (no cp.async,
mma.sync m16n8k8) and `compute_80` the sm_80 ones, which no other test executes. Passes when
every correctness case passes and the bench runs (any tier: an older path on a newer GPU is
not expected to reach the top one); prints each bench case's fraction of the lab's ceiling.
Exits 77 (ctest: SKIPPED) when no GPU is visible."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from check_verdict import gpu_present, run_report  # noqa: E402

WORKS = ("correct", "slow", "pass", "good", "excellent")


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    cudalab, lab, solution, arch = sys.argv[1:]
    if not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return 77
    # nms and topo_sort are graded against the reference, which would be this same build:
    # their fraction is left out (the bench still runs, verified)
    report = run_report([cudalab, "bench", lab, solution, "--arch", arch, "--no-reference", "--json", "--no-color"])
    if report is None:
        return 1
    verdict = report.get("verdict")
    built = (report.get("compile") or {}).get("arch")
    print(f"{lab} {os.path.basename(solution)} built as {built}: verdict {verdict}, "
          f"{report.get('passed')}/{report.get('total')} correctness cases")
    ok = verdict in WORKS and built == arch and report.get("passed") == report.get("total")
    for case in report.get("cases", []):
        bench = case.get("bench")
        if bench:
            frac = bench.get("fraction")
            print(f"  bench {case['name']}: {bench.get('median_ms', 0):.4f} ms, "
                  + (f"{100 * frac:.1f}% of the ceiling, tier {bench.get('tier')}" if frac else "no ceiling"))
        elif case.get("status") != "pass":
            print(f"  case {case['name']}: {case.get('status')}: {case.get('message')}")
    perf = report.get("performance") or {}
    if perf:
        print(f"  aggregate {100 * perf.get('fraction', 0):.1f}% of {perf.get('ceiling')}, "
              f"held down by {perf.get('limited_by', '-')}")
    if not ok:
        print("  message:", report.get("message"))
        print("  output:", (report.get("output") or "")[-1500:])
        if not any(c.get("bench") for c in report.get("cases", [])):
            print("  (no bench ran)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
