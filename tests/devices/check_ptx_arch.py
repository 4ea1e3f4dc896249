#!/usr/bin/env python3
"""check_ptx_arch.py CUDALAB LAB: `cudalab compile LAB --reference --arch compute_75` builds
PTX only (the driver JIT-compiles it for the GPU it runs on) and says so; `--arch sm_75`
builds machine code for sm_75; a malformed --arch is refused with a clear error. No GPU
needed; SKIPPED (77) without nvcc."""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def compile_report(cudalab, lab, arch, env):
    p = subprocess.run([cudalab, "compile", lab, "--reference", "--arch", arch, "--json"], capture_output=True,
                       text=True, env=env, timeout=600)
    try:
        return p, json.loads(p.stdout)
    except json.JSONDecodeError:
        return p, None


def main() -> int:
    cudalab, lab = sys.argv[1], sys.argv[2]
    if not (shutil.which(os.environ.get("CUDALAB_NVCC", "nvcc")) or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)):
        print("SKIPPED: no nvcc on this machine")
        return 77
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="cudalab-ptx-test-")
    ok = True
    for arch in ("compute_75", "sm_75"):
        p, r = compile_report(cudalab, lab, arch, env)
        built = (r or {}).get("compile", {}).get("arch")
        print(f"--arch {arch}: exit {p.returncode}, verdict {(r or {}).get('verdict')}, built as {built}")
        ok = ok and r is not None and r.get("verdict") == "compiled" and built == arch
    p, r = compile_report(cudalab, lab, "compute_x", env)
    print(f"--arch compute_x: exit {p.returncode}: {(r or {}).get('message') or p.stderr.strip()}")
    ok = ok and p.returncode != 0 and "is not an architecture" in (p.stdout + p.stderr)
    shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
