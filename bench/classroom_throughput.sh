#!/usr/bin/env bash
# classroom_throughput.sh [N] [LAB]: submissions per minute of `cudalab grade` on this machine.
#
# Makes a fake class: N copies of the lab's reference (each a distinct file, so every one is
# compiled, as students' files are) and a few planted bad solutions from tests/planted/LAB
# (compile error, missing extern "C", a dropped tail, an out-of-bounds write, a crash), grades
# it with `cudalab grade` (sandboxed, one worker per GPU, the reference timed alongside each
# submission as usual), checks every verdict, and reports submissions per minute from the
# gradebook's own timestamps. The whole pipeline counts: staging, nvcc, correctness, timed
# runs, the reference, recording. Writes $OUT/classroom-throughput.json and a markdown line.
#
# The binaries may come from elsewhere: CUDALAB (default build/cudalab next to this repo);
# LD_LIBRARY_PATH may name a folder with the shared libraries the build machine had
# (libarchive and its dependencies) when this machine lacks them.
set -u -o pipefail
n=${1:-12}
lab=${2:-reduce}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/env.sh
source "$here/env.sh"
bench_env
export NO_COLOR=1

if ! "$cudalab" --version >/dev/null 2>&1; then
  echo "cannot run $cudalab:"; ldd "$cudalab" | grep "not found"; exit 2
fi
work=$(mktemp -d /tmp/cudalab-class-bench-XXXXXX)
chmod 755 "$work"
subs=$work/submissions
mkdir -p "$subs"
ref=$CUDALAB_HOME/reference/$lab.cu
for i in $(seq -w 1 "$n"); do
  { echo "// student$i: the reference, handed in"; cat "$ref"; } > "$subs/student$i.cu"
done
planted=(compile_error missing_extern_c dropped_tail oob_write host_crash)
for p in "${planted[@]}"; do
  f=$CUDALAB_HOME/tests/planted/$lab/$p.cu
  [[ -f $f ]] && cp "$f" "$subs/planted_$p.cu"
done
total=$(ls "$subs" | wc -l)
echo "== a class of $total ($n references + $((total - n)) planted) for $lab"
nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -4

mode=sandbox
run() {
  local extra=("$@")
  rm -rf "$work/out"
  "$cudalab" grade --lab "$lab" --submissions "$subs" --out "$work/out" --json \
    "${extra[@]}" > "$work/summary.json" 2> "$work/grade.log"
  local rc=$?
  tail -n 30 "$work/grade.log"
  return $rc
}
run
rc=$?
# the sandbox must not cost correctness: if it cannot run here (or hides the GPU), say so
# and measure without it
if ((rc == 2)) || grep -q '"no_device"\|"error"' "$work/summary.json" 2>/dev/null; then
  echo "== the sandbox did not work here (see above); measuring with --no-sandbox"
  cp "$work/grade.log" "$out/classroom-sandbox-failure.log"
  mode=no-sandbox
  run --no-sandbox
  rc=$?
fi
cat "$work/summary.json"
python3 - "$work" "$lab" "$n" "$mode" "$out" "$total" <<'EOF'
import json, sqlite3, sys
work, lab, n, mode, out, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
db = sqlite3.connect(f"{work}/out/gradebook.sqlite")
start = db.execute("SELECT MIN(started_at) FROM runs").fetchone()[0]
rows = db.execute("SELECT student, verdict, score, seconds, graded_at, gpu, message FROM results ORDER BY graded_at").fetchall()
last = max(r[4] for r in rows) if rows else start
wall = max(last - start, 1)
per_min = len(rows) * 60.0 / wall
expect = {"planted_compile_error": "compile_error", "planted_missing_extern_c": "missing_symbol",
          "planted_dropped_tail": "wrong", "planted_oob_write": "out_of_bounds", "planted_host_crash": "crash"}
bad = []
for st, verdict, score, secs, _, gpu, msg in rows:
    want = expect.get(st)
    ok = verdict == want if want else verdict in ("pass", "good", "excellent")
    if not ok:
        bad.append(f"{st}: {verdict} ({msg})")
    print(f"  {st:28s} {verdict:14s} {score:6.1f}  {secs:6.1f} s")
gpus = sorted({r[5] for r in rows if r[5]})
res = {"lab": lab, "submissions": len(rows), "references": n, "wall_s": wall, "per_minute": round(per_min, 2),
       "mean_s_per_submission": round(sum(r[3] for r in rows) / max(len(rows), 1), 2), "mode": mode,
       "gpus": gpus, "wrong_verdicts": bad}
json.dump(res, open(f"{out}/classroom-throughput.json", "w"), indent=2)
print(json.dumps(res, indent=2))
print(f"| {lab} | {', '.join(gpus) or '?'} | {len(rows)} ({n} references + {len(rows) - n} planted) | "
      f"{wall} s | **{per_min:.1f}** | {mode} |")
sys.exit(1 if bad or len(rows) != total else 0)
EOF
status=$?
cp "$work/out/grades.csv" "$out/classroom-grades.csv" 2>/dev/null
exit $status
