#!/usr/bin/env python3
"""compile_arches.py FILE [--ptx] [--ptxas 75] [--arches 75,80,...]: FILE (a reference or
skeleton) must compile for every GPU architecture a student may have.

For each architecture, nvcc builds FILE as cudalab builds a solution (-O3 -std=c++17, the
lab ABI header), to a cubin: the front end and ptxas, so an instruction an architecture
lacks (cp.async before sm_80, wgmma outside sm_90a) fails here. --ptx is the quick mode of
the default test run: it stops after the front end (-ptx) and runs ptxas only for the
architectures in --ptxas (default sm_75, where cp.async, createpolicy and mma m16n8k16 go
missing, and sm_120, which lacks Hopper's wgmma and setmaxnreg), and it compiles an
architecture only when a `__CUDA_ARCH__` comparison in FILE tells it apart from the ones
before it (the front end sees the same source otherwise: with guards at 800 and 900 it
compiles sm_75, sm_80 and sm_90, not sm_86 and sm_89) or when ptxas checks it.
Exits 77 (ctest: SKIPPED) without nvcc."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ARCHES = ["75", "80", "86", "89", "90", "120"]


def nvcc_path():
    env = os.environ.get("CUDALAB_NVCC")
    if env and os.access(env, os.X_OK):
        return env
    found = shutil.which("nvcc")
    if found:
        return found
    return "/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK) else None


def distinct_paths(source, arches, keep):
    """The architectures whose __CUDA_ARCH__ comparisons in source differ from every earlier
    one's, plus those in keep (the front end compiles the same code for the others)."""
    ops = {">=": lambda a, t: a >= t, ">": lambda a, t: a > t, "<=": lambda a, t: a <= t,
           "<": lambda a, t: a < t, "==": lambda a, t: a == t, "!=": lambda a, t: a != t}
    tests = set(re.findall(r"__CUDA_ARCH__\s*(>=|<=|==|!=|>|<)\s*(\d+)", source))
    seen, out = set(), []
    for arch in arches:
        value = int(re.match(r"\d+", arch).group()) * 10
        key = (tuple(sorted((op, t, ops[op](value, int(t))) for op, t in tests)), arch.endswith("a"))
        if key not in seen or arch in keep:
            out.append(arch)
        seen.add(key)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ptx", action="store_true", help="front end only, ptxas only for --ptxas")
    ap.add_argument("--ptxas", default="75,120", help="with --ptx: architectures whose PTX ptxas checks")
    ap.add_argument("--arches", default=",".join(ARCHES))
    ap.add_argument("--include", default=os.path.join(os.path.dirname(__file__), "..", "..", "labs", "include"))
    args = ap.parse_args()
    nvcc = nvcc_path()
    if not nvcc:
        print("SKIPPED: no nvcc on this machine")
        return 77
    arches = args.arches.split(",")
    if args.ptx:
        arches = distinct_paths(open(args.file, encoding="utf-8", errors="replace").read(), arches,
                                args.ptxas.split(","))
    failed = []
    with tempfile.TemporaryDirectory(prefix="cudalab-arches-") as tmp:
        for arch in arches:
            out = os.path.join(tmp, f"sm_{arch}." + ("ptx" if args.ptx else "cubin"))
            kind = ["-arch=compute_" + arch, "-ptx"] if args.ptx else ["-arch=sm_" + arch, "-cubin"]
            cmd = [nvcc, "-O3", "-std=c++17", "-I" + os.path.abspath(args.include),
                   "-I" + os.path.dirname(os.path.abspath(args.file))] + kind + ["-o", out, args.file]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            dt = time.time() - t0
            errors = [line for line in (p.stdout + p.stderr).splitlines() if "error" in line.lower()]
            if p.returncode == 0 and args.ptx and arch in args.ptxas.split(",") and os.path.exists(out):
                ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
                q = subprocess.run([ptxas, "-arch=sm_" + arch, out, "-o", out + ".cubin"], capture_output=True,
                                   text=True)
                errors = [line for line in (q.stdout + q.stderr).splitlines() if "error" in line.lower()]
                if q.returncode != 0:
                    p = q
                dt = time.time() - t0
            if p.returncode != 0 or not os.path.exists(out):
                failed.append(arch)
                print(f"FAIL sm_{arch} ({dt:.1f} s): " + ("\n    ".join(errors[:8]) or f"nvcc exit {p.returncode}"))
            else:
                print(f"ok   sm_{arch} ({dt:.1f} s)")
    if failed:
        print(f"{args.file}: does not compile for " + ", ".join("sm_" + a for a in failed))
        return 1
    skipped = [a for a in args.arches.split(",") if a not in arches]
    print(f"{args.file}: compiles for " + ", ".join("sm_" + a for a in arches)
          + (f" (the same source as an earlier one for " + ", ".join("sm_" + a for a in skipped) + ")" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
