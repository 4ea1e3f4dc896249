#!/usr/bin/env python3
"""paged_attention.py: the PyTorch peer of the paged_attention lab.

Times torch.nn.functional.scaled_dot_product_attention on the lab's bench shapes, with
the same K/V laid out contiguously per sequence ([seqs, kv_heads, ctx, dim], fp16) and q
of length 1 ([seqs, heads, 1, dim]), GQA through enable_gqa=True (K/V are not expanded,
so every backend reads the same unique bytes the lab counts). Each SDPA backend that
accepts the inputs is timed separately (CUDA events, 5 warm-ups, median of 30; the K/V
of one call are 1 GiB, far larger than L2) and the fastest is reported as the peer.
Bytes counted as the lab counts them: K and V of every context token once, q and out.
Prints one JSON object per (shape, backend) and one per shape for the best backend.

Usage: python3 bench/peers/paged_attention.py [--runs N] [--all-shapes]"""
import json
import math
import sys

import torch
import torch.nn.functional as F

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:  # older torch: only the default dispatch
    SDPBackend = sdpa_kernel = None

# the lab's bench shape (labs/paged_attention/lab.yaml); --all-shapes adds the extra ones
SHAPES = [dict(seqs=64, heads=32, kv_heads=8, head_dim=128, ctx=4096)]
EXTRA = [dict(seqs=64, heads=32, kv_heads=32, head_dim=128, ctx=4096),
         dict(seqs=64, heads=32, kv_heads=8, head_dim=64, ctx=4096),
         dict(seqs=1, heads=32, kv_heads=8, head_dim=128, ctx=32768),
         dict(seqs=256, heads=32, kv_heads=8, head_dim=128, ctx=1024)]


def time_ms(fn, runs):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        times.append(e0.elapsed_time(e1))
    times.sort()
    return times[len(times) // 2]


def main():
    runs = 30
    if "--runs" in sys.argv:
        runs = int(sys.argv[sys.argv.index("--runs") + 1])
    shapes = SHAPES + (EXTRA if "--all-shapes" in sys.argv else [])
    torch.manual_seed(0)
    dev = torch.device("cuda")
    for sh in shapes:
        S, H, KVH, D, T = sh["seqs"], sh["heads"], sh["kv_heads"], sh["head_dim"], sh["ctx"]
        name = f"{S} seqs x {T}, {H} / {KVH} heads, dim {D}"
        q = torch.randn(S, H, 1, D, device=dev, dtype=torch.float16)
        k = torch.randn(S, KVH, T, D, device=dev, dtype=torch.float16)
        v = torch.randn(S, KVH, T, D, device=dev, dtype=torch.float16)
        nbytes = 2 * S * KVH * T * D * 2 + 2 * S * H * D * 2 + S * 4 + S * math.ceil(T / 16) * 4
        gqa = KVH != H
        backends = [("default", None)]
        if sdpa_kernel is not None:
            backends += [(b.name.lower(), b) for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                                                       SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH)]
        best = None
        for label, backend in backends:
            def call():
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa)
            try:
                if backend is None:
                    ms = time_ms(call, runs)
                else:
                    with sdpa_kernel([backend]):
                        ms = time_ms(call, runs)
            except Exception as e:  # backend refuses these inputs
                print(json.dumps({"lab": "paged_attention", "shape": name, "peer": f"sdpa/{label}",
                                  "error": str(e).splitlines()[0][:160]}), flush=True)
                continue
            row = {"lab": "paged_attention", "shape": name, "peer": f"sdpa/{label}", "median_ms": round(ms, 4),
                   "bytes": nbytes, "gbps": round(nbytes / (ms * 1e6), 1)}
            print(json.dumps(row), flush=True)
            if best is None or ms < best["median_ms"]:
                best = row
        if best:
            print(json.dumps(dict(best, peer=f"torch.sdpa (best: {best['peer']})",
                                  torch=torch.__version__)), flush=True)
        del q, k, v
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
