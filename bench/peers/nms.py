#!/usr/bin/env python3
"""nms.py: times the nms lab's peer, torchvision.ops.nms, on the lab's bench shapes.

Boxes follow the lab's bench distribution (`clusters` in grader/labs/nms.c): n / 16
objects with integer sides in [8, 96] on a 2048 canvas, each seen by about 16 boxes whose
edges jitter by up to 15% of the object's size; scores uniform in [0, 1); threshold 0.5.
Four input sets are rotated; CUDA events around each call, 3 warm-up calls, median of 30.
Prints one JSON object per shape (with the number of kept boxes, to compare with the lab's
reference on the same distribution)."""
import argparse
import json
import statistics

import torch
import torchvision


def clustered(n, gen, canvas=2048, size=96, cluster=16):
    dev = "cuda"
    objects = max(1, n // cluster)
    w = torch.randint(8, size + 1, (objects,), generator=gen, device=dev)
    h = torch.randint(8, size + 1, (objects,), generator=gen, device=dev)
    cx = (w // 2 + torch.rand(objects, generator=gen, device=dev) * (canvas - w)).floor()
    cy = (h // 2 + torch.rand(objects, generator=gen, device=dev) * (canvas - h)).floor()
    k = torch.randint(0, objects, (n,), generator=gen, device=dev)
    jx, jy = (w[k] * 15 // 100 + 1), (h[k] * 15 // 100 + 1)

    def jit(j):
        return (torch.rand(n, generator=gen, device=dev) * (2 * j + 1)).floor() - j

    x1 = (cx[k] - w[k] // 2 + jit(jx)).clamp(0, canvas - 2)
    y1 = (cy[k] - h[k] // 2 + jit(jy)).clamp(0, canvas - 2)
    x2 = torch.maximum(cx[k] + w[k] // 2 + jit(jx), x1 + 1).clamp(max=canvas - 1)
    y2 = torch.maximum(cy[k] + h[k] // 2 + jit(jy), y1 + 1).clamp(max=canvas - 1)
    boxes = torch.stack([x1, y1, x2, y2], dim=1).float().contiguous()
    scores = torch.rand(n, generator=gen, device=dev)
    return boxes, scores


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--threshold", type=float, default=0.5)
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    gen = torch.Generator(device="cuda").manual_seed(1)
    for n in (int(v) for v in args.sizes.split(",")):
        sets = [clustered(n, gen) for _ in range(4)]
        for k in range(3):
            torchvision.ops.nms(*sets[k % 4], args.threshold)
        torch.cuda.synchronize()
        times, kept = [], []
        for r in range(args.runs):
            b, s = sets[r % 4]
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            keep = torchvision.ops.nms(b, s, args.threshold)
            e1.record()
            e1.synchronize()
            times.append(e0.elapsed_time(e1))
            kept.append(keep.numel())
        ms = statistics.median(times)
        print(json.dumps({"lab": "nms", "shape": f"{n} boxes", "peer": "torchvision.ops.nms",
                          "median_ms": round(ms, 4), "bytes": n * 20,
                          "gbps": round(n * 20 / (ms * 1e-3) / 1e9, 3),
                          "items_per_s": round(n / (ms * 1e-3)), "kept_median": statistics.median(kept),
                          "gpu": torch.cuda.get_device_name(), "torchvision": torchvision.__version__}),
              flush=True)


if __name__ == "__main__":
    main()
