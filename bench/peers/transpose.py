#!/usr/bin/env python3
"""transpose.py: the PyTorch peer of the transpose lab, x.t().contiguous(), timed on the
lab's bench shapes. One JSON object per shape on stdout:
{"lab", "shape", "peer", "median_ms", "bytes", "gbps"}; bytes = what must move (the input
read once, the output written once).
Timed as every peer is (_timing.py: CUDA events, warm-up, L2 evicted and launch latency
hidden before each run, median of `--runs` runs); each tensor is 1 GiB, far larger than L2."""
import argparse

import torch

from _timing import emit, time_ms

SHAPES = [(16384, 16384), (8192, 32768)]


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
        timing = time_ms(lambda: x.t().contiguous(), runs=args.runs)
        nbytes = 2 * x.numel() * x.element_size()
        emit("transpose", f"{rows} x {cols}", "torch x.t().contiguous()", timing, bytes_moved=nbytes)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
