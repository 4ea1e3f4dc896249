#!/usr/bin/env python3
"""softmax.py: the PyTorch peer of the softmax lab, torch.softmax(x, -1), timed on the
lab's bench shapes (256 MiB each). One JSON object per shape on stdout:
{"lab", "shape", "peer", "median_ms", "bytes", "gbps"}; bytes = what must move (the input
read once, the output written once).
Timed as every peer is (_timing.py: CUDA events, warm-up, L2 evicted and launch latency
hidden before each run, median of `--runs` runs)."""
import argparse

import torch

from _timing import emit, time_ms

SHAPES = [(65536, 1024), (16384, 4096), (2048, 32768)]


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
        timing = time_ms(lambda: torch.softmax(x, -1), runs=args.runs)
        nbytes = 2 * x.numel() * x.element_size()
        emit("softmax", f"{rows} x {cols}", "torch.softmax(x, -1)", timing, bytes_moved=nbytes)
        del x, out
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
