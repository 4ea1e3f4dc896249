#!/usr/bin/env python3
"""check_duplicate_symbols.py: fail when one global symbol is defined in two of the
project's static libraries.

  check_duplicate_symbols.py [--nm NM] LIB.a LIB.a ...

The linker takes the first definition it meets in link order and never says so, so two
functions of one name in two libraries (common/lang.c and questions/src/question.c once
both defined cl_lang_pick, with different meanings) silently pick one. This check runs at
build time and in ctest. Exit 0 when every global symbol has one home, 1 otherwise."""
import argparse
import collections
import os
import subprocess
import sys

STRONG = set("TDRB")  # text, data, read-only data, bss (weak symbols may repeat)


def defined_globals(nm, lib):
    out = subprocess.run([nm, "--defined-only", "-g", "-A", lib], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"check_duplicate_symbols: {nm} failed on {lib}: {out.stderr.strip()}")
    for line in out.stdout.splitlines():
        # "lib.a:member.o: 0000000000000000 T name"
        parts = line.rsplit(None, 2)
        if len(parts) == 3 and parts[1] in STRONG:
            yield parts[0].rsplit(":", 2)[-2] if parts[0].count(":") >= 2 else "", parts[2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nm", default="nm")
    ap.add_argument("libs", nargs="+")
    a = ap.parse_args()
    where = collections.defaultdict(set)
    for lib in a.libs:
        for member, sym in defined_globals(a.nm, lib):
            where[sym].add(f"{os.path.basename(lib)}({member})")
    clashes = {s: w for s, w in where.items() if len(w) > 1}
    for sym, homes in sorted(clashes.items()):
        print(f"duplicate global symbol {sym}: defined in {', '.join(sorted(homes))} "
              f"- rename one (or make it static)", file=sys.stderr)
    if clashes:
        return 1
    print(f"check_duplicate_symbols: {len(where)} global symbols, each defined in one library")
    return 0


if __name__ == "__main__":
    sys.exit(main())
