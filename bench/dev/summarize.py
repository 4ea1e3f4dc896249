#!/usr/bin/env python3
"""summarize.py: the tables of a run_device.sh run.

    summarize.py results.jsonl peers.jsonl tests/planted [--markdown]

results.jsonl holds the harness's "RESULT {...}" and "BENCH {...}" lines, peers.jsonl the
PyTorch peers' JSON lines. Prints (1) reference vs PyTorch per bench shape, in GB/s and as
a fraction of the copy bandwidth measured in the same run; (2) every graded solution's
verdict against what it should get (references: excellent, skeletons: wrong, planted:
their `// expect:` line); (3) tuning variants. Exit status 1 if a verdict is not the
expected one."""
import json
import os
import re
import sys


def load(path):
    bench, results = [], []
    if not os.path.exists(path):
        return bench, results
    for line in open(path):
        kind, _, rest = line.strip().partition(" ")
        try:
            obj = json.loads(rest)
        except ValueError:
            continue
        (bench if kind == "BENCH" else results).append(obj)
    return bench, results


def expectations(planted_dir):
    exp = {}
    for lab in sorted(os.listdir(planted_dir)):
        d = os.path.join(planted_dir, lab)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".cu"):
                continue
            head = open(os.path.join(d, f)).read(2000)
            v = re.search(r"//\s*expect:\s*(\S+)", head)
            m = re.search(r"//\s*expect-message:\s*(.+)", head)
            exp[(lab, "planted:" + f[:-3])] = (v.group(1) if v else "?", m.group(1).strip() if m else None)
    return exp


def main():
    res_path, peers_path, planted_dir = sys.argv[1:4]
    bench, results = load(res_path)
    peers = [json.loads(l) for l in open(peers_path)] if os.path.exists(peers_path) else []
    copy = next((b["copy_gbps"] for b in bench if b["solution"] == "reference"), None)

    print("\n== reference vs PyTorch (GB/s = bytes that must move / median time)")
    print(f"copy bandwidth (float4 copy, read + write, same run): {copy:.0f} GB/s" if copy else "no copy bandwidth")
    print(f"{'lab':10} {'shape':14} {'reference':>10} {'% copy':>7} {'torch':>8} {'% copy':>7}")
    for b in bench:
        if b["solution"] != "reference":
            continue
        shape = b["case"].split(",")[0]
        p = next((p for p in peers if p["lab"] == b["lab"] and p["shape"] == shape), None)
        pg = f"{p['gbps']:8.0f} {100 * p['gbps'] / b['copy_gbps']:6.1f}%" if p else f"{'-':>8} {'-':>7}"
        print(f"{b['lab']:10} {shape:14} {b['gbps']:10.0f} {100 * b['fraction']:6.1f}% {pg}")

    exp = expectations(planted_dir)
    bad = 0
    print("\n== verdicts")
    for r in results:
        sol = r["solution"]
        if sol.startswith("variant:"):
            continue
        want, msg = ("excellent", None) if sol == "reference" else ("wrong", "never written") \
            if sol == "skeleton" else exp.get((r["lab"], sol), ("?", None))
        ok = r["verdict"] == want and (msg is None or msg in r.get("message", ""))
        bad += not ok
        detail = r.get("message", "")[:150] or f"worst {100 * r.get('worst_fraction', 0):.1f}% of copy"
        print(f"{'ok ' if ok else 'BAD'} {r['lab']:10} {sol:28} {r['verdict']:14} (want {want}) {detail}")

    print("\n== variants")
    for r in results:
        if r["solution"].startswith("variant:"):
            print(f"{r['lab']:10} {r['solution']:22} {r['verdict']:10} correctness {r.get('cases_passed', 0)}/"
                  f"{r.get('cases', 0)} {r.get('message', '')[:120]}")
    for b in bench:
        if b["solution"].startswith("variant:"):
            print(f"{b['lab']:10} {b['solution']:22} {b['case']:16} {b['gbps']:8.0f} GB/s {100 * b['fraction']:6.1f}%")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
