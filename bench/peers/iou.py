#!/usr/bin/env python3
"""iou.py: times the iou lab's peer, torchvision.ops.box_iou, on the lab's bench shapes.

Boxes follow the lab's `mixed` distribution (centres uniform in [-256, 256), sides in
[1, 128)); four input sets are rotated, and the 819 MB output is far larger than L2.
CUDA events around each call, 3 warm-up calls, median of 30. Bytes counted as the lab
does: output m*n*4 + inputs (m+n)*16. Prints one JSON object per shape."""
import argparse
import json
import statistics

import torch
import torchvision


def boxes(k, gen):
    c = (torch.rand(k, 2, generator=gen, device="cuda") * 2 - 1) * 256
    wh = 1 + 127 * torch.rand(k, 2, generator=gen, device="cuda")
    return torch.cat([c - wh / 2, c + wh / 2], dim=1).contiguous()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="4096x50000")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(1)
    for shape in args.shapes.split(","):
        m, n = (int(v) for v in shape.split("x"))
        sets = [(boxes(m, gen), boxes(n, gen)) for _ in range(4)]
        for k in range(3):
            torchvision.ops.box_iou(*sets[k % 4])
        torch.cuda.synchronize()
        times = []
        for r in range(args.runs):
            a, b = sets[r % 4]
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            out = torchvision.ops.box_iou(a, b)
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1))
            del out
        ms = statistics.median(times)
        nbytes = m * n * 4 + (m + n) * 16
        print(json.dumps({"lab": "iou", "shape": f"{m} x {n}", "peer": "torchvision.ops.box_iou",
                          "median_ms": round(ms, 4), "bytes": nbytes,
                          "gbps": round(nbytes / (ms * 1e-3) / 1e9, 1),
                          "gpu": torch.cuda.get_device_name(), "torchvision": torchvision.__version__}),
              flush=True)


if __name__ == "__main__":
    main()
