#!/usr/bin/env python3
"""transpose.py: the PyTorch peer of the transpose lab, x.t().contiguous(), timed on the
lab's bench shapes. One JSON object per shape on stdout:
{"lab", "shape", "peer", "median_ms", "bytes", "gbps"}; bytes = what must move (the input
read once, the output written once). CUDA events, warm-up, median of `--runs` runs; each
tensor is 1 GiB, far larger than L2."""
import argparse
import json

import torch

SHAPES = [(16384, 16384), (8192, 32768)]


def bench(fn, runs, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    for rows, cols in SHAPES:
        x = torch.rand(rows, cols, device="cuda", generator=gen) * 2 - 1
        ref = x.t().contiguous()
        assert torch.equal(ref[1, :5], x[:5, 1])
        del ref
        ms = bench(lambda: x.t().contiguous(), args.runs)
        nbytes = 2 * x.numel() * x.element_size()
        print(json.dumps({"lab": "transpose", "shape": f"{rows} x {cols}", "peer": "torch x.t().contiguous()",
                          "median_ms": round(ms, 5), "bytes": nbytes, "gbps": round(nbytes / (ms * 1e6), 1)}),
              flush=True)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
