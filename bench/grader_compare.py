#!/usr/bin/env python3
"""grader_compare.py DIR: the table of grader_side_by_side.sh. For every bench case of every
lab, the median time each build reported (the mean over the rounds that ran), the ratio
new/old, and each build's verdict and wall time of the whole `cudalab bench`."""
import glob, json, os, statistics, sys
from collections import defaultdict

out = sys.argv[1]
times = defaultdict(list)      # (lab, case, side) -> medians over rounds
clock = {}                     # (lab, case) -> the new judge's events / bracket / offset, last round
verdicts = defaultdict(set)    # (lab, side) -> verdicts
walls = defaultdict(list)      # (lab, side) -> seconds
labs = []
for path in sorted(glob.glob(os.path.join(out, "*.*.*.json"))):
    side, lab, _round, _ = os.path.basename(path).split(".")
    if lab not in labs:
        labs.append(lab)
    try:
        r = json.load(open(path))
    except (OSError, ValueError):
        verdicts[lab, side].add("no report")
        continue
    verdicts[lab, side].add(r.get("verdict", "?"))
    if "seconds" in r:
        walls[lab, side].append(r["seconds"])
    for c in r.get("cases", []):
        b = c.get("bench")
        if b and b.get("median_ms"):
            times[lab, c["name"], side].append(b["median_ms"])
            if side == "new" and "event_median_ms" in b:
                clock[lab, c["name"]] = "%.4f / %.4f / %.4f, %s flagged" % (
                    b["event_median_ms"], b.get("bracket_median_ms", 0), b.get("clock_offset_ms", 0),
                    b.get("off_stream_runs", 0))

print("| lab | case | old ms | new ms | new/old | rounds | verdict old / new | bench wall old / new (s) "
      "| new: events / bracket / offset ms |")
print("|---|---|---|---|---|---|---|---|---|")
worst = 0.0
for lab in labs:
    cases = [k[1] for k in times if k[0] == lab and k[2] == "new"]
    for case in dict.fromkeys(cases):
        o, n = times.get((lab, case, "old")), times.get((lab, case, "new"))
        if not o or not n:
            continue
        ratio = statistics.mean(n) / statistics.mean(o)
        worst = max(worst, abs(ratio - 1))
        wall = lambda s: "%.1f" % statistics.mean(walls[lab, s]) if walls[lab, s] else "-"
        print("| %s | %s | %.4f | %.4f | %.3f | %d/%d | %s / %s | %s / %s | %s |" % (
            lab, case, statistics.mean(o), statistics.mean(n), ratio, len(o), len(n),
            ",".join(sorted(verdicts[lab, "old"])), ",".join(sorted(verdicts[lab, "new"])),
            wall("old"), wall("new"), clock.get((lab, case), "-")))
print()
print("largest difference: %.2f%%" % (100 * worst))
