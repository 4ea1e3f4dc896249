#!/usr/bin/env python3
"""ladder_table.py FILE...: the ladder table of docs/PERFORMANCE.md from `cudalab ladder LAB
--json` outputs (one file per lab), in the order given.

  for lab in reduce transpose ...; do build/cudalab ladder $lab --json > out/ladder_$lab.json; done
  python3 bench/ladder_table.py out/ladder_*.json
"""
import json
import sys


def pct(v):
    return f"{v * 100:.1f}%" if v else "-"


def main():
    print("| lab | step | verdict | of ceiling | median ms (geo. mean) | speed-up |")
    print("| --- | --- | --- | --- | --- | --- |")
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        for step in run["steps"]:
            t, s = step.get("time_ms"), step.get("speedup")
            cells = [run["lab"], f"`{step['step']}`", step["verdict"], pct(step.get("fraction")),
                     f"{t:.3f}" if t else "-", f"{s:.2f}x" if s else "-"]
            print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
