#!/usr/bin/env python3
"""hold_driver.py: the CUDA driver kept initialised for the rest of the GPU suite (a fixture).

  hold_driver.py CUDALAB_PROBE

Starts `cudalab-probe --hold --while-pid <ctest>` in a session of its own, its output to
/dev/null so ctest does not wait for it: it initialises the driver (no context, no kernels)
and waits, so each judge run the suite starts after it (the judge's and the
solution's processes) starts about 0.2 s sooner on an H100 (docs/PERFORMANCE.md). It
ends when ctest does. cudalab keeps one beside its own gradings the same way
(grader/src/driver_keep.c); this one also covers the first process of every test.
Exits 77 (ctest: SKIPPED) when no GPU is visible.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_verdict import gpu_present  # noqa: E402


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    if not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return 77
    probe, ctest = sys.argv[1], os.getppid()
    p = subprocess.Popen([probe, "--hold", "--while-pid", str(ctest)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        rc = p.wait(timeout=1.5)  # it only returns when it could not initialise CUDA (well within 1.5 s)
        print(f"cudalab-probe --hold exited with {rc}: the driver is not held")
        return 1
    except subprocess.TimeoutExpired:
        print(f"the CUDA driver is held by process {p.pid} while ctest (process {ctest}) runs")
        return 0


if __name__ == "__main__":
    sys.exit(main())
