#!/usr/bin/env python3
"""precompile.py: every source the GPU suite grades, compiled before the suite runs (GPU suite).

  precompile.py CUDALAB SOURCES

SOURCES lists one build a line, "lab<TAB>file<TAB>arch" (arch empty: this GPU's own), written
by CMake from the same lists that make the GPU tests. Each is built with `cudalab compile`,
which fills the build cache the tests share (XDG_CACHE_HOME), as many at once as there are
CPUs: nvcc is CPU work, and the GPU tests run one at a time, so compiling in their turn left
every CPU but one idle. A source that fails to build here is only reported: its own test
compiles it again and gives the verdict; when not one builds, cudalab compile itself is
broken and this fails (the GPU tests behind it then do not run). Exits 77 (ctest: SKIPPED) when no GPU is visible:
the compiles are for that GPU's architecture.
"""
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_verdict import gpu_present  # noqa: E402


def build(cudalab, lab, path, arch):
    cmd = [cudalab, "compile", lab, path, "--json", "--no-color"] + (["--arch", arch] if arch else [])
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return lab, path, arch, p.returncode, time.monotonic() - t0


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    cudalab, listing = sys.argv[1], sys.argv[2]
    if not gpu_present():
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return 77
    jobs = []
    with open(listing, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3 and parts[1] and (parts[0], parts[1], parts[2]) not in jobs:
                jobs.append((parts[0], parts[1], parts[2]))
    t0 = time.monotonic()
    width = os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=width) as pool:
        results = list(pool.map(lambda j: build(cudalab, *j), jobs))
    failed = [r for r in results if r[3] != 0]
    for lab, path, arch, rc, secs in sorted(results, key=lambda r: -r[4])[:5]:
        print(f"  slowest: {lab} {os.path.relpath(path)} {arch or ''} {secs:.1f} s")
    for lab, path, arch, rc, _ in failed:
        print(f"  not built (its test will say why): {lab} {os.path.relpath(path)} {arch or ''} exit {rc}")
    print(f"precompiled {len(results) - len(failed)} of {len(results)} builds in "
          f"{time.monotonic() - t0:.1f} s, {width} at a time")
    if results and len(failed) == len(results):
        print("FAIL: not one build succeeded: cudalab compile itself is broken here")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
