#!/usr/bin/env python3
"""bench/peers/gemm.py: the gemm lab's peer, PyTorch fp16 matmul (cuBLAS underneath).

Times torch.matmul(A, B) with A (M x K) and B (K x N) fp16 row-major on the bench shapes:
CUDA events around the call alone, warm-up first, L2 flushed (256 MB written) before every
timed run, median of --runs (>= 20). Inputs are uniform in [-1, 1), as the checker's.
Prints one JSON object per shape:
  {"lab", "shape", "peer", "median_ms", "flops", "tflops"}
"""
import argparse
import json
import statistics

import torch

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 2048)]


def time_shape(m, n, k, runs, flush):
    gen = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)
    a = (torch.rand(m, k, device="cuda", generator=gen) * 2 - 1).half()
    b = (torch.rand(k, n, device="cuda", generator=gen) * 2 - 1).half()
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    for _ in range(3):  # warm-up: handle creation, heuristics, clocks
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    times = []
    for r in range(runs):
        flush.fill_(r & 0xFF)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    ref = (a[:64].double() @ b.double()).half()  # sanity: the first rows are right
    if not torch.allclose(c[:64].float(), ref.float(), rtol=2e-3, atol=2e-3):
        raise SystemExit(f"peer result wrong at {m}x{n}x{k}")
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    if args.runs < 20:
        ap.error("--runs must be >= 20")
    if not torch.cuda.is_available():
        raise SystemExit("no CUDA device")
    # fp32 accumulation, as the lab asks: no fp16 partial sums inside cuBLAS
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    for m, n, k in SHAPES:
        ms = time_shape(m, n, k, args.runs, flush)
        flops = 2.0 * m * n * k
        print(json.dumps({"lab": "gemm", "shape": f"{m}x{n}x{k}", "peer": "torch.matmul fp16 (cuBLAS)",
                          "median_ms": round(ms, 4), "flops": flops,
                          "tflops": round(flops / (ms * 1e-3) / 1e12, 1)}), flush=True)


if __name__ == "__main__":
    main()
