#!/usr/bin/env python3
"""table.py OUT LAB... [--round2 EXTRA]: the markdown rows of docs/PERFORMANCE.md from
side_by_side.sh's JSON (and, with --round2, the extra shapes and peers of bench/round2.sh).

Each bench case of a reference is shown as a fraction of the ceiling its lab.yaml names
(copy, read-only or write-only bandwidth; cuBLAS on the shape; the reference itself for nms
and topo_sort), with the tier, next to its peers: the peer's figure, its fraction of the same
ceiling, and how much faster the reference is (peer time / reference time)."""
import json
import os
import re
import sys

# What the round-2 issue asks of each reference (docs: issue 17), by lab and case order.
TARGETS = {
    "reduce": ">= 97% of read-only; >= 1.0x CUB",
    "transpose": ">= 97% of copy",
    "softmax": ">= 97% of copy; >= 1.0x torch",
    "layernorm": ">= 97% of copy",
    "gemm": ">= 1.05x cuBLAS",
    "iou": ">= 95% of write-only",
    "nms": "exact; >= 5x torchvision",
    "topo_sort": ">= 2x 13.7 G edges/s",
    "paged_attention": ">= 95% of read-only; >= 1.0x SDPA",
}
GEMM_TARGETS = {"1024x1024x1024": 1.10, "4096x4096x4096": 1.05, "8192x8192x8192": 1.05,
                "127x4099x520": 1.0, "4096x14336x4096": 1.0}


def load_jsonl(path):
    rows = []
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
    return rows


def ceiling_name(ref):
    perf = ref.get("performance") or {}
    return perf.get("ceiling") or {"tflops": "cuBLAS", "throughput": "reference"}.get(ref.get("metric"), "copy bandwidth")


def metric_text(kind, b, ms):
    if kind == "tflops":
        return f"{b['flops'] / (ms * 1e-3) / 1e12:.0f} TFLOP/s"
    if kind == "throughput":
        return f"{b['items'] / (ms * 1e-3):.3g} {b.get('items_unit', 'items')}/s"
    return f"{b.get('metric', 0):.0f} GB/s"


def main_table(out, labs):
    dev = json.load(open(os.path.join(out, "device.json")))
    copy = dev["copy_gbps"]
    read, write = dev.get("read_gbps", 0), dev.get("write_gbps", 0)
    print(f"GPU: {dev['name']} ({dev['sms']} SMs, driver {dev['driver_version']}). Ceilings measured in the same "
          f"run: copy {copy:.0f} GB/s (read + write: the best of the copy kernels, {dev.get('copy_kernel_gbps', 0):.0f}, "
          f"and cudaMemcpy, {dev.get('memcpy_gbps', 0):.0f}); read-only {read:.0f} GB/s "
          f"({100 * read / copy if copy else 0:.1f}% of copy); write-only {write:.0f} GB/s (kernels "
          f"{dev.get('write_kernel_gbps', 0):.0f}, cudaMemset {dev.get('memset_gbps', 0):.0f}); cuBLAS fp16 "
          f"{dev['fp16_tflops']:.0f} TFLOP/s at {dev['fp16_gemm_n']}^3\n")
    print("| lab | case | reference | of ceiling | tier | peer | peer result | peer of ceiling | peer time / reference time | target |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for lab in labs:
        path = os.path.join(out, f"{lab}.reference.json")
        if not os.path.exists(path):
            print(f"| {lab} | (no result: see side.txt) | | | | | | | | |")
            continue
        ref = json.load(open(path))
        peers = load_jsonl(os.path.join(out, f"{lab}.peers.jsonl"))
        extra_peers = load_jsonl(os.path.join(out, "..", "extra", f"{lab}_cub.jsonl")) if lab == "reduce" else []
        bench = [c for c in ref.get("cases", []) if c.get("kind") == "bench"]
        cname = ceiling_name(ref).replace(" bandwidth", "")
        for i, c in enumerate(bench):
            b = c.get("bench") or {}
            ms = b.get("median_ms", 0)
            kind = ref.get("metric", "bandwidth")
            metric = metric_text(kind, b, ms) if ms else "-"
            frac = f"**{100 * b['fraction']:.1f}%** of {cname}" if b.get("fraction") else "-"
            if lab == "topo_sort":
                frac = topo_roofline(c, b, read)
            rows = ([peers[i]] if i < len(peers) else []) + (extra_peers if i == 0 else [])
            if not rows:
                rows = [None]
            for k, p in enumerate(rows):
                ceiling = b.get("ceiling") or 0
                if p and "gbps" in p:
                    peer_metric = f"{p['gbps']:.0f} GB/s, {p['median_ms']:.3f} ms"
                    peer_frac = f"{100 * p['gbps'] / ceiling:.1f}%" if ceiling and kind == "bandwidth" else "-"
                elif p and "tflops" in p:
                    peer_metric = f"{p['tflops']:.0f} TFLOP/s"
                    peer_frac = f"{100 * p['tflops'] / ceiling:.1f}%" if ceiling else "-"
                elif p:
                    peer_metric, peer_frac = f"{p['median_ms']:.3f} ms", "-"
                else:
                    peer_metric, peer_frac = "-", "-"
                vs = f"{p['median_ms'] / ms:.2f}x" if p and ms else "-"
                first = k == 0
                ref_text = "%s (%.3f ms)" % (metric, ms) if first else ""
                print(f"| {lab if first else ''} | {c['name'] if first else ''} | {ref_text} | "
                      f"{frac if first else ''} | {(b.get('tier') or '-') if first else ''} | "
                      f"{p['peer'] if p else '-'} | {peer_metric} | {peer_frac} | {vs} | "
                      f"{TARGETS.get(lab, '') if first else ''} |")
        perf = ref.get("performance")
        if perf and perf.get("limited_by"):
            print(f"| | *score: {100 * perf['fraction']:.1f}% aggregate, held down by {perf['limited_by']}* "
                  f"| | | | | | | | |")


def topo_roofline(c, b, read_gbps):
    """The fraction of a CSR-streaming roofline: the time to read row_ptr and col once and
    write order once at the read-only bandwidth, over the measured time."""
    m = re.search(r"(\d+) nodes, (\d+) edges", c.get("shape") or "")
    ms = b.get("median_ms", 0)
    if not m or not ms or not read_gbps:
        return "-"
    n, e = int(m.group(1)), int(m.group(2))
    floor_ms = (4.0 * (n + 1) + 4.0 * e + 4.0 * n) / (read_gbps * 1e9) * 1e3
    kahn = re.search(r"CPU Kahn \(1 thread\): ([0-9.]+) ms", c.get("shape") or "")
    cpu = f"; {float(kahn.group(1)) / ms:.0f}x one CPU thread" if kahn else ""
    return f"{100 * floor_ms / ms:.1f}% of a CSR-streaming roofline ({floor_ms * 1e3:.0f} us){cpu}"


def gemm_section(extra):
    rows = load_jsonl(os.path.join(extra, "gemm_shapes.jsonl"))
    torch_rows = {r["shape"]: r for r in load_jsonl(os.path.join(extra, "gemm_torch.jsonl"))}
    if not rows:
        print("\n(gemm shapes: no result; see extra/gemm_shapes.err)")
        return
    print("\n**gemm at the issue's shapes** (`bench/shapes/gemm_shapes.cu`: the reference and cuBLAS in one "
          "process, their runs interleaved (each pair's order reversed in turn), L2 evicted before each run, "
          "median of 30; the reference's C checked against cuBLAS's; "
          "`torch.matmul` from `bench/peers/gemm.py --shapes`)\n")
    print("| M x N x K | reference | cuBLAS | reference / cuBLAS | target | torch.matmul | checked |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    by = {}
    for r in rows:  # the floor lines (an empty kernel, a C-only writer) are not in this table
        kind = "ref" if r["peer"] == "reference" else "cublas" if r["peer"].startswith("cuBLAS") else None
        if kind:
            by.setdefault(r["shape"], {})[kind] = r
    for shape, d in by.items():
        ref, cub = d.get("ref"), d.get("cublas")
        if not ref or not cub:
            continue
        ratio = cub["median_ms"] / ref["median_ms"]
        target = GEMM_TARGETS.get(shape)
        met = "" if target is None else (f">= {target:.2f}x: " + ("met" if ratio >= target else "**not met**"))
        t = torch_rows.get(shape)
        torch_text = "%.0f TFLOP/s" % t["tflops"] if t else "-"
        print(f"| {shape} | {ref['tflops']:.0f} TFLOP/s, {ref['median_ms']:.3f} ms | {cub['tflops']:.0f} TFLOP/s, "
              f"{cub['median_ms']:.3f} ms | **{ratio:.3f}x** | {met} | {torch_text} | "
              f"rel. diff {ref.get('rel_diff_vs_cublas', 0):.1e} |")


def pa_section(extra, read_gbps):
    text = open(os.path.join(extra, "pa_shapes.txt")).read() if os.path.exists(os.path.join(extra, "pa_shapes.txt")) else ""
    sdpa = {r["shape"]: r for r in load_jsonl(os.path.join(extra, "pa_sdpa.jsonl"))}
    pat = re.compile(r"(\d+) seqs x (\d+), (\d+) / (\d+) heads, dim (\d+), block (\d+): ref ([0-9.]+) ms, (\d+) GB/s")
    found = pat.findall(text)
    if not found:
        print("\n(paged_attention shapes: no result; see extra/pa_shapes.err)")
        return
    print("\n**paged_attention at every shape** (the reference through `bench/dev/pa_probe.cu shape`, one "
          "process per shape, timed as SDPA is: L2 evicted, ~150 us idle, median of 30; SDPA's fastest "
          "backend on the same data laid out contiguously, `bench/peers/paged_attention.py --all-shapes`)\n")
    print("| shape | reference | of read-only | SDPA | SDPA of read-only | reference vs SDPA | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for s, t, h, kvh, d, bs, ms, gbps in found:
        name = f"{s} seqs x {t}, {h} / {kvh} heads, dim {d}"
        p = sdpa.get(name)
        ms, gbps = float(ms), float(gbps)
        frac = f"{100 * gbps / read_gbps:.1f}%" if read_gbps else "-"
        pf = f"{100 * p['gbps'] / read_gbps:.1f}%" if p and read_gbps else "-"
        vs = p["median_ms"] / ms if p else 0
        met = ("met" if gbps >= 0.95 * read_gbps and vs >= 1.0 else "**not met**") if p and read_gbps else "-"
        sdpa_text = "%.4f ms (%s)" % (p["median_ms"], p["peer"]) if p else "-"
        vs_text = "%.3fx" % vs if p else "-"
        print(f"| {name}, block {bs} | {ms:.4f} ms, {gbps:.0f} GB/s | **{frac}** | {sdpa_text} | {pf} | {vs_text} | "
              f">= 95%, >= 1.0x: {met} |")


def main():
    args = sys.argv[1:]
    extra = None
    if "--round2" in args:
        i = args.index("--round2")
        extra = args[i + 1]
        del args[i:i + 2]
    out, labs = args[0], args[1:]
    main_table(out, labs)
    if extra:
        dev = json.load(open(os.path.join(out, "device.json")))
        gemm_section(extra)
        pa_section(extra, dev.get("read_gbps", 0))


if __name__ == "__main__":
    main()
