#!/usr/bin/env python3
"""paged_attention.py: the PyTorch peer of the paged_attention lab.

torch.nn.functional.scaled_dot_product_attention on the lab's bench shape, with the same
K/V laid out contiguously per sequence ([seqs, kv_heads, ctx, dim], fp16) and q of length
1 ([seqs, heads, 1, dim]); GQA through enable_gqa=True, so K/V are not expanded and every
backend reads the unique bytes the lab counts. Every SDPA backend that accepts the inputs
is timed (bench/peers/_timing.py: CUDA events, warm-up, L2 evicted, median of 30); the
fastest is the peer. Bytes as the lab counts them: K and V of every token once, q, out,
context lengths and block-table entries.

stdout: one JSON object per shape (the fastest backend), in the order of the lab's bench
cases (bench/table.py pairs them). Every backend's row goes to stderr.
  python3 bench/peers/paged_attention.py [--all-shapes]   (--all-shapes: the extra shapes
  below after the bench shape)
  python3 bench/peers/paged_attention.py --list-shapes    (every shape as "seqs heads kv_heads
  head_dim block ctx", one a line: bench/round2.sh times the reference at each)"""
import json
import math
import sys

import torch
import torch.nn.functional as F

from _timing import emit, time_ms

try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:  # older torch: only the default dispatch
    SDPBackend = sdpa_kernel = None

BENCH = [dict(seqs=64, heads=32, kv_heads=8, head_dim=128, ctx=4096, block=16)]
EXTRA = [dict(seqs=64, heads=32, kv_heads=32, head_dim=128, ctx=4096, block=16),
         dict(seqs=64, heads=32, kv_heads=8, head_dim=64, ctx=4096, block=32),
         dict(seqs=1, heads=32, kv_heads=8, head_dim=128, ctx=32768, block=16),
         dict(seqs=256, heads=32, kv_heads=8, head_dim=128, ctx=1024, block=16),
         dict(seqs=32, heads=64, kv_heads=8, head_dim=128, ctx=4096, block=16)]


def main():
    if "--list-shapes" in sys.argv:
        for sh in BENCH + EXTRA:
            print(sh["seqs"], sh["heads"], sh["kv_heads"], sh["head_dim"], sh["block"], sh["ctx"])
        return
    shapes = BENCH + (EXTRA if "--all-shapes" in sys.argv else [])
    torch.manual_seed(0)
    for sh in shapes:
        S, H, KVH, D, T = sh["seqs"], sh["heads"], sh["kv_heads"], sh["head_dim"], sh["ctx"]
        name = f"{S} seqs x {T}, {H} / {KVH} heads, dim {D}"
        q = torch.randn(S, H, 1, D, device="cuda", dtype=torch.float16)
        k = torch.randn(S, KVH, T, D, device="cuda", dtype=torch.float16)
        v = torch.randn(S, KVH, T, D, device="cuda", dtype=torch.float16)
        nbytes = 2 * S * KVH * T * D * 2 + 2 * S * H * D * 2 + S * 4 + S * math.ceil(T / sh["block"]) * 4
        gqa = KVH != H
        backends = [("default", None)]
        if sdpa_kernel is not None:
            backends += [(b.name.lower(), b) for b in (SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION,
                                                       SDPBackend.CUDNN_ATTENTION, SDPBackend.MATH)]
        best = None

        def call():
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=gqa)

        for label, backend in backends:
            try:
                if backend is None:
                    timing = time_ms(call)
                else:
                    with sdpa_kernel([backend]):
                        timing = time_ms(call)
            except Exception as e:  # this backend refuses these inputs
                print(json.dumps({"shape": name, "peer": f"sdpa/{label}", "error": str(e).splitlines()[0][:160]}),
                      file=sys.stderr)
                continue
            print(json.dumps({"shape": name, "peer": f"sdpa/{label}", "median_ms": timing[0]}), file=sys.stderr)
            if best is None or timing[0] < best[1][0]:
                best = (label, timing)
        if best:
            emit("paged_attention", name, f"torch.sdpa ({best[0]})", best[1], bytes_moved=nbytes)
        del q, k, v
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
