#!/usr/bin/env python3
"""layernorm.py: the PyTorch peer of the layernorm lab, torch.nn.functional.layer_norm
with weight and bias, timed on the lab's bench shapes (256 MiB each). One JSON object per
shape on stdout: {"lab", "shape", "peer", "median_ms", "bytes", "gbps"}; bytes = what must
move, counted as the lab counts it (x read, y written, gamma and beta read, mean and rstd
written: PyTorch's native_layer_norm writes mean and rstd too). CUDA events, warm-up,
median of `--runs` runs."""
import argparse

import torch
import torch.nn.functional as F

from _timing import emit, time_ms

SHAPES = [(65536, 1024), (16384, 4096), (2048, 32768)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(0)
    for rows, cols in SHAPES:
        x = torch.randn(rows, cols, device="cuda", generator=gen)
        w = torch.rand(cols, device="cuda", generator=gen) + 0.5
        b = torch.rand(cols, device="cuda", generator=gen) - 0.5
        with torch.no_grad():
            y = F.layer_norm(x, (cols,), w, b, 1e-5)
            ref = F.layer_norm(x[:4].double(), (cols,), w.double(), b.double(), 1e-5)
            assert torch.allclose(y[:4].double(), ref, rtol=1e-4, atol=1e-4)
            del y
            timing = time_ms(lambda: F.layer_norm(x, (cols,), w, b, 1e-5), runs=args.runs)
        nbytes = (2 * rows * cols + 2 * cols + 2 * rows) * 4
        emit("layernorm", f"{rows} x {cols}", "torch.nn.functional.layer_norm", timing, bytes_moved=nbytes)
        del x
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
