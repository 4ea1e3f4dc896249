#!/usr/bin/env python3
"""hint_ladder.py: `cudalab hint` points at the ladder step after the one the student's
best measured fraction matches (CPU only: the attempt and the ladder run are planted).

  hint_ladder.py CUDALAB
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

SKIP = 77


def main():
    cudalab = os.path.abspath(sys.argv[1])
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"), CUDALAB_DB=os.path.join(tmp, "p.db"),
               NO_COLOR="1")
    env.pop("CUDALAB_LANG", None)
    failures = []

    def hint(*args):
        r = subprocess.run([cudalab, "hint", "reduce", "1", *args], capture_output=True, text=True, env=env, cwd=tmp)
        return r.returncode, r.stdout, r.stderr

    def expect(what, args, text):
        rc, out, err = hint(*args)
        if rc != 0 or text not in out:
            failures.append(f"{what}: exit {rc}, want 0 and '{text}' in:\n{out}{err}")
        else:
            print(f"ok   {what}")

    rc, out, err = hint("--lang", "en")
    if rc == 2 and "--lang is en or zh" in err:
        print("SKIPPED: cudalab hint fails before the ladder (two cl_lang_pick definitions; fixed on the cli branch)")
        return SKIP

    expect("no attempt yet", ["--lang", "en"], "no timed submission yet (cudalab submit); the ladder starts at "
           "labs/reduce/ladder/01_block_tree_atomic.cu")
    db = sqlite3.connect(env["CUDALAB_DB"])  # the table exists: hint opened the progress database
    report = {"cases": [{"kind": "test", "name": "n=1"},
                        {"kind": "bench", "name": "2^28 floats", "bench": {"fraction": 0.6}}]}
    db.execute("INSERT INTO lab_attempts (lab, mode, verdict, score, max_score, tier, seed, gpu, solution, "
               "created_at, report) VALUES ('reduce', 'submit', 'pass', 80, 150, 'pass', 1, 'H100', 'r.cu', 0, ?)",
               (json.dumps(report),))
    db.commit()
    expect("no ladder run on this machine", ["--lang", "en"], "your best run reaches 60% of the ceiling; run "
           "cudalab ladder reduce to time its 3 steps here")

    cache = os.path.join(env["XDG_CACHE_HOME"], "cudalab", "ladder")
    os.makedirs(cache, exist_ok=True)
    steps = [{"step": s, "fraction": f} for s, f in
             (("01_block_tree_atomic", 0.2), ("02_grid_stride_shuffle", 0.5), ("03_vec4_ilp", 0.9))]
    with open(os.path.join(cache, "reduce.json"), "w") as f:
        json.dump({"lab": "reduce", "steps": steps}, f)
    expect("between steps 2 and 3", ["--lang", "en"],
           "your 60% matches 02_grid_stride_shuffle; next: labs/reduce/ladder/03_vec4_ilp.cu")
    expect("in Chinese", ["--lang", "zh"], "你的 60% 相当于 02_grid_stride_shuffle；下一级：labs/reduce/ladder/03_vec4_ilp.cu")
    db.execute("UPDATE lab_attempts SET report = ?", (json.dumps(
        {"cases": [{"kind": "bench", "name": "x", "bench": {"fraction": 0.95}}]}),))
    db.commit()
    expect("past the last step", ["--lang", "en"], "your 95% matches the last step, 03_vec4_ilp; compare with "
           "reference/reduce.cu next")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
