#!/usr/bin/env python3
"""labyaml.py: flattens a lab.yaml into the line format the dev harness (mem_labs) reads.

The device machine has PyYAML but no libyaml headers, so the harness does not parse YAML
itself. Output lines:
    entry <symbol>
    tier <pass> <good> <excellent>
    tol <key> <value>
    case <0|1 (bench)> <runs> name=<name>\t<key>=<value>...
Values are printed as written in lab.yaml (2^28, 1e4, max); the harness parses them.
"""
import sys

import yaml


def main(path):
    with open(path) as f:
        lab = yaml.safe_load(f)
    print("entry", lab["entry"])
    t = lab["tiers"]
    print("tier", t["pass"], t["good"], t["excellent"])
    for key, tol in (lab.get("tolerance") or {}).items():
        print("tol", key, tol["value"])
    for bench, section in ((0, "cases"), (1, "bench")):
        for case in lab.get(section) or []:
            params = [f"{k}={v}" for k, v in case.items() if k not in ("runs", "sanitize")]
            print("case", bench, case.get("runs", 0), "\t".join(params))


if __name__ == "__main__":
    main(sys.argv[1])
