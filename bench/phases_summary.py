#!/usr/bin/env python3
"""phases_summary.py PHASES [SUITE_LINES]: where a run of gradings spent its time, from the
CUDALAB_PHASES lines (docs/grading-policy.md describes them): the judge runs (device set-up,
the solution's process, the cases, the stop; the parent's side), the judge's CPU work per
lab (generate and verify), the solutions' calls, and, with bench/gpu_suite.sh's
suite_lines.txt, the slowest tests."""
import collections
import sys


def parts(field):
    return {k: float(v) for k, v in (x.split("=") for x in field.split())}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    total = collections.Counter()
    per_lab = collections.defaultdict(collections.Counter)
    runs = collections.Counter()
    with open(sys.argv[1]) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 4:
                continue
            lab, kind, _, rest = fields
            p = parts(rest)
            if kind == "judge":
                runs[fields[2]] += 1
                for k in ("total", "device", "exec", "cases", "stop"):
                    total["judge " + k] += p.get(k, 0)
            elif kind == "runner":
                total["parent, whole judge runs"] += p.get("total", 0)
            elif kind in ("test", "bench"):
                for k in ("generate", "verify", "call"):
                    per_lab[(lab, kind)][k] += p.get(k, 0)
            elif kind in ("ceilings", "cublas", "plan", "load"):
                total[kind] += p.get("total", 0)
    print("judge runs: " + ", ".join(f"{n} {mode}" for mode, n in sorted(runs.items())))
    for k, v in total.items():
        print(f"  {k:28s} {v / 1e3:8.1f} s")
    print(f"  {'parent overhead':28s} {(total['parent, whole judge runs'] - total['judge total']) / 1e3:8.1f} s")
    print("the judge's CPU work and the solutions' calls, by lab and stage (s):")
    rows = sorted(per_lab.items(), key=lambda kv: -(kv[1]["generate"] + kv[1]["verify"]))
    for (lab, kind), c in rows:
        print(f"  {lab:16s} {kind:5s} generate {c['generate'] / 1e3:6.1f}  verify {c['verify'] / 1e3:6.1f}  "
              f"call {c['call'] / 1e3:6.1f}")
    gv = sum(c["generate"] + c["verify"] for c in per_lab.values())
    print(f"  all: generate + verify {gv / 1e3:.1f} s")
    if len(sys.argv) > 2:
        tests = []
        with open(sys.argv[2]) as f:
            for line in f:
                w = line.split()
                if "sec" in w and len(w) > 3:
                    tests.append((float(w[w.index("sec") - 1]), w[3]))
        tests.sort(reverse=True)
        print(f"tests: {len(tests)}, {sum(t for t, _ in tests):.1f} s; the slowest:")
        for t, name in tests[:15]:
            print(f"  {t:7.2f}  {name}")


if __name__ == "__main__":
    main()
