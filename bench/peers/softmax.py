#!/usr/bin/env python3
"""softmax.py: the PyTorch peer of the softmax lab, torch.softmax(x, -1), timed on the
lab's bench shapes (256 MiB each). One JSON object per shape on stdout:
{"lab", "shape", "peer", "median_ms", "bytes", "gbps"}; bytes = what must move (the input
read once, the output written once). CUDA events, warm-up, median of `--runs` runs."""
import argparse
import json

import torch

SHAPES = [(65536, 1024), (16384, 4096), (2048, 32768)]


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
        x = torch.rand(rows, cols, device="cuda", generator=gen) * 8 - 4
        out = torch.softmax(x, -1)
        ref = torch.softmax(x[:4].double(), -1)
        assert torch.allclose(out[:4].double(), ref, rtol=1e-4, atol=1e-30)
        ms = bench(lambda: torch.softmax(x, -1), args.runs)
        nbytes = 2 * x.numel() * x.element_size()
        print(json.dumps({"lab": "softmax", "shape": f"{rows} x {cols}", "peer": "torch.softmax(x, -1)",
                          "median_ms": round(ms, 5), "bytes": nbytes, "gbps": round(nbytes / (ms * 1e6), 1)}),
              flush=True)
        del x, out
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
