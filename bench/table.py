#!/usr/bin/env python3
"""table.py OUT LAB...: the markdown rows of docs/PERFORMANCE.md from side_by_side.sh's JSON."""
import json
import os
import sys


def load_jsonl(path):
    rows = []
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def main():
    out, labs = sys.argv[1], sys.argv[2:]
    dev = json.load(open(os.path.join(out, "device.json")))
    copy = dev["copy_gbps"]
    print(f"GPU: {dev['name']} ({dev['sms']} SMs, driver {dev['driver_version']}); "
          f"copy bandwidth {copy:.0f} GB/s (read + write; the best of the copy kernels and cudaMemcpy); "
          f"cuBLAS fp16 {dev['fp16_tflops']:.0f} TFLOP/s at {dev['fp16_gemm_n']}^3\n")
    print("| lab | case | reference | of ceiling | tier | peer | peer result | peer of ceiling |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for lab in labs:
        path = os.path.join(out, f"{lab}.reference.json")
        if not os.path.exists(path):
            continue
        ref = json.load(open(path))
        peers = load_jsonl(os.path.join(out, f"{lab}.peers.jsonl"))
        bench = [c for c in ref.get("cases", []) if c.get("kind") == "bench"]
        for i, c in enumerate(bench):
            b = c.get("bench") or {}
            ms = b.get("median_ms", 0)
            kind = ref.get("metric", "bandwidth")
            if kind == "tflops":
                metric = f"{b['flops'] / (ms * 1e-3) / 1e12:.0f} TFLOP/s"
            elif kind == "throughput":
                metric = f"{b['items'] / (ms * 1e-3):.3g} {b.get('items_unit', 'items')}/s"
            else:
                metric = f"{b.get('metric', 0):.0f} GB/s"
            frac = f"{100 * b['fraction']:.1f}%" if b.get("fraction") else "-"
            p = peers[i] if i < len(peers) else None
            if p and "gbps" in p:
                peer_metric, peer_frac = f"{p['gbps']:.0f} GB/s", f"{100 * p['gbps'] / copy:.1f}%"
            elif p and "tflops" in p:
                ceiling = b.get("ceiling") or 0
                peer_metric = f"{p['tflops']:.0f} TFLOP/s"
                peer_frac = f"{100 * p['tflops'] / ceiling:.1f}%" if ceiling else "-"
            elif p:
                peer_metric, peer_frac = f"{p['median_ms']:.3f} ms", "-"
            else:
                peer_metric, peer_frac = "-", "-"
            print(f"| {lab} | {c['name']} | {metric} ({ms:.3f} ms) | {frac} | {b.get('tier', '-')} | "
                  f"{p['peer'] if p else '-'} | {peer_metric} | {peer_frac} |")


if __name__ == "__main__":
    main()
