#!/usr/bin/env python3
"""cases.py: flattens labs/<lab>/lab.yaml for the development harness (mini_engine).

Usage: cases.py [--sanitize] [--extra FILE] [--runs N] LAB [LAB...] > cases.tsv
  --sanitize    only the correctness cases that run under compute-sanitizer
  --extra FILE  bench cases from FILE ({lab: {bench: [...]}}) instead of the lab's own
  --runs N      timed runs of every bench case (instead of each case's own)
Lines: meta<TAB>lab<TAB>metric<TAB>ceiling<TAB>pass<TAB>good<TAB>excellent
       tol<TAB>lab<TAB>key<TAB>value
       case<TAB>lab<TAB>bench(0|1)<TAB>runs<TAB>name<TAB>key=value...
lab.yaml stays the one source of truth; the GPU box has PyYAML but not libyaml's headers."""
import sys
import yaml

root = __file__.rsplit("/bench/dev/", 1)[0]
args = sys.argv[1:]
sanitize = "--sanitize" in args
extra = None
if "--extra" in args:
    i = args.index("--extra")
    with open(args[i + 1]) as f:
        extra = yaml.safe_load(f)
    del args[i:i + 2]
runs_override = None
if "--runs" in args:
    i = args.index("--runs")
    runs_override = int(args[i + 1])
    del args[i:i + 2]
args = [a for a in args if a != "--sanitize"]


def case_line(lab, bench, case):
    params = [f"{k}={v}" for k, v in case.items() if k not in ("name", "runs", "sanitize")]
    runs = case.get("runs", 20 if bench else 1)
    if bench and runs_override:
        runs = runs_override
    return "\t".join(["case", lab, str(bench), str(runs), case["name"]] + params)


for lab in args:
    with open(f"{root}/labs/{lab}/lab.yaml") as f:
        conf = yaml.safe_load(f)
    t = conf["tiers"]
    print(f"meta\t{lab}\t{conf['metric']}\t{conf['ceiling']}\t{t['pass']}\t{t['good']}\t{t['excellent']}")
    for key, tol in (conf.get("tolerance") or {}).items():
        print(f"tol\t{lab}\t{key}\t{tol['value']}")
    if extra is not None:
        for case in extra.get(lab, {}).get("bench", []):
            print(case_line(lab, 1, case))
        continue
    for case in conf.get("cases") or []:
        if not sanitize or case.get("sanitize", True):
            print(case_line(lab, 0, case))
    if not sanitize:
        for case in conf.get("bench") or []:
            print(case_line(lab, 1, case))
