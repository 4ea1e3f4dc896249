#!/usr/bin/env python3
"""check_device.py CUDALAB cpu|gpu: `cudalab device` as a user runs it.

  cpu   without a GPU: exit 3, "no usable GPU" on stderr, and with --json an error object on
        stdout (SKIPPED, 77, when a GPU is visible)
  gpu   with a GPU: the three bandwidth ceilings and cuBLAS measured, in the text and the
        JSON, read-only and write-only within sane bounds of the copy bandwidth; a second
        call reads the cache (SKIPPED without a GPU)"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gpu"))
from check_verdict import gpu_present  # noqa: E402


def run(cudalab, *args, env):
    return subprocess.run([cudalab, "device", *args], capture_output=True, text=True, env=env, timeout=900)


def main() -> int:
    cudalab, mode = sys.argv[1], sys.argv[2]
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="cudalab-device-test-")
    env["NO_COLOR"] = "1"
    have_gpu = gpu_present()
    if mode == "cpu":
        if have_gpu:
            print("SKIPPED: a GPU is visible (the gpu mode tests it)")
            return 77
        p = run(cudalab, env=env)
        ok = p.returncode == 3 and "no usable GPU" in p.stderr and not p.stdout.strip()
        j = run(cudalab, "--json", env=env)
        try:
            err = json.loads(j.stdout).get("error")
        except json.JSONDecodeError:
            err = None
        ok = ok and j.returncode == 3 and err == "no usable GPU"
        print(f"device: exit {p.returncode}, stderr {p.stderr.strip()!r}; --json: exit {j.returncode}, {j.stdout.strip()!r}")
        return 0 if ok else 1
    if not have_gpu:
        print("SKIPPED: no GPU visible (nvidia-smi -L found none)")
        return 77
    j = run(cudalab, "--json", "--refresh", env=env)
    if j.returncode != 0:
        print(f"cudalab device --json exited {j.returncode}: {j.stderr}")
        return 1
    d = json.loads(j.stdout)
    copy, read, write = d.get("copy_gbps", 0), d.get("read_gbps", 0), d.get("write_gbps", 0)
    print(f"{d.get('name')}: copy {copy:.0f} GB/s, read-only {read:.0f}, write-only {write:.0f} "
          f"(kernels {d.get('write_kernel_gbps', 0):.0f}, cudaMemset {d.get('memset_gbps', 0):.0f}), "
          f"cuBLAS {d.get('fp16_tflops', 0):.0f} TFLOP/s")
    ok = copy > 0 and d.get("fp16_tflops", 0) > 0
    # a read-only or write-only stream moves at least half and at most twice what a copy does
    ok = ok and 0.5 * copy < read < 2 * copy and 0.5 * copy < write < 2 * copy
    t = run(cudalab, env=env)
    text_ok = t.returncode == 0 and all(k in t.stdout for k in ("copy bandwidth", "read-only", "write-only",
                                                               "fp16 Tensor Cores", "cached in"))
    if not text_ok:
        print("text output:", t.stdout, t.stderr)
    return 0 if ok and text_ok else 1


if __name__ == "__main__":
    sys.exit(main())
