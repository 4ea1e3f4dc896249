#!/bin/bash
# run_gpu_det.sh PACK RESULTS: on the GPU machine, with a PACK made by pack_det.sh:
#  1. the references of iou and nms through the engine (`cudalab bench --reference`) and
#     their torchvision peers, with bench/side_by_side.sh: the docs/PERFORMANCE.md numbers;
#  2. the GPU suite of the two labs (tests/gpu/check_verdict.py, as ctest -L gpu runs it):
#     skeletons fail correctness, every planted solution gets its expected verdict;
#  3. det_dev: the iou reference's knobs (one change each) and its first version; the nms
#     reference's first version and a simple GPU NMS, timed against the reference;
#  4. ncu: the nms reference's kernels one by one (where the time goes).
# RESULTS gets summary.txt (the table), side.tgz (side_by_side's JSON), det.jsonl, all.log,
# ncu.csv. Each step has its own time limit; the most important come first.
set -u
P=$(cd "${1:?usage: run_gpu_det.sh PACK RESULTS}" && pwd)
R=${2:?usage: run_gpu_det.sh PACK RESULTS}
mkdir -p "$R"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
export CUDALAB_HOME=$P/home CUDALAB=$P/bin/cudalab NO_COLOR=1 PYTHONUNBUFFERED=1
export XDG_CACHE_HOME=/tmp/cl-cache XDG_DATA_HOME=/tmp/cl-data CUDALAB_DB=/tmp/cl-data/progress.db
mkdir -p "$XDG_CACHE_HOME" "$XDG_DATA_HOME"
cp -r "$P/cache/." "$XDG_CACHE_HOME/"
S=$R/summary.txt LOG=$R/all.log
: >"$S"; : >"$LOG"
t0=$SECONDS
stamp() { echo "[$((SECONDS - t0)) s] $*" | tee -a "$S"; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$S"
nvcc --version | tail -1 | tee -a "$S"

stamp "1. references through cudalab bench, and the peers"
OUT=$R/side timeout 150 bash "$P/home/bench/side_by_side.sh" iou nms >>"$LOG" 2>&1
cat "$R/side/table.md" >>"$S" 2>/dev/null
for lab in iou nms; do
    python3 - "$R/side/$lab.reference.json" <<'PY' >>"$S" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r.get('lab')} reference: verdict {r.get('verdict')}; {r.get('message')}")
for c in r.get("cases", []):
    b = c.get("bench")
    if b:
        print(f"  {c['name']}: {b.get('median_ms'):.4f} ms (min {b.get('min_ms', 0):.4f}), "
              f"{100 * (b.get('fraction') or 0):.1f}% of ceiling, ref ratio {b.get('ref_ratio')}, tier {b.get('tier')}")
PY
done
cat "$R"/side/*.peers.jsonl >>"$S" 2>/dev/null
(cd "$R" && tar czf side.tgz side && rm -rf side)

stamp "2. the GPU suite of iou and nms"
CV="python3 $P/home/tests/gpu/check_verdict.py $CUDALAB"
for lab in iou nms; do
    timeout 60 $CV $lab "$P/home/labs/$lab/$lab.cu" wrong --mode test >>"$LOG" 2>&1 \
        && echo "ok   $lab skeleton" | tee -a "$S" || echo "FAIL $lab skeleton" | tee -a "$S"
    for f in "$P"/home/tests/planted/$lab/*.cu; do
        out=$(timeout 60 $CV $lab "$f" --from-file --timeout 30 2>&1)
        rc=$?
        echo "$out" >>"$LOG"
        line=$(echo "$out" | head -1)
        [ $rc -eq 0 ] && echo "ok   $line" | tee -a "$S" || echo "FAIL $line" | tee -a "$S"
    done
done

stamp "3. det_dev: iou knobs and a simple GPU nms"
K=$P/kit
for so in "$K"/so/reference_iou.so "$K"/so/variant_iou_v1.so "$K"/so/knob_iou_*.so; do
    name=$(basename "$so" .so)
    extra=""
    [ "$name" = knob_iou_store_only_1 ] && extra=--no-verify
    echo "=== $name" >>"$LOG"
    timeout 60 "$K/det_dev" --lab iou --labs "$K/labs" --solution "$so" --runs 20 --json "$R/det.jsonl" \
        --label "$name" $extra >>"$LOG" 2>&1
    echo "$name: $(sed -n "/^=== $name\$/,\$p" "$LOG" | grep -E '^  bench|^verdict|^correctness' | tr -s ' ' | tr '\n' ' ')" | tee -a "$S"
done
for v in nms_v1 nms_simple; do
    timeout 60 "$K/det_dev" --lab nms --labs "$K/labs" --solution "$K/so/variant_$v.so" \
        --reference "$K/so/reference_nms.so" --runs 10 --json "$R/det.jsonl" --label variant_$v >>"$LOG" 2>&1
done
grep -h '"median_ms"' "$R/det.jsonl" | grep variant_nms | tee -a "$S"

stamp "4. ncu: the nms reference's kernels"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
    timeout 90 "$NCU" --metrics gpu__time_duration.sum --csv --print-units base \
        "$K/det_dev" --lab nms --labs "$K/labs" --solution "$K/so/reference_nms.so" \
        --reference "$K/so/reference_nms.so" --no-verify --runs 2 >"$R/ncu.csv" 2>>"$LOG"
    python3 - "$R/ncu.csv" <<'PY' | tee -a "$S"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows:
    sys.exit()
h = rows[0]
ki, mi, vi = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value")
seq = [(r[ki], float(r[vi])) for r in rows[1:] if r[mi] == "gpu__time_duration.sum"]
print(f"{len(seq)} kernels; the last nms call's kernels (ns):")
# the bench runs alternate reference/solution calls on 10000 then 50000 boxes: print the
# kernel sequence of the last call of each size, found by the scan kernel that ends a call
ends = [i for i, (k, _) in enumerate(seq) if k.startswith("scan_kernel")]
starts = [0] + [e + 1 for e in ends[:-1]]
calls = list(zip(starts, ends))
for a, b in calls[-5:-4] + calls[-1:]:
    tot = 0
    for k, v in seq[a:b + 1]:
        if k.startswith("copy_kernel") or "memset" in k.lower():
            continue
        tot += v
        print(f"  {k[:60]:60s} {v:12.0f}")
    print(f"  {'total':60s} {tot:12.0f}")
PY
else
    echo "no ncu" | tee -a "$S"
fi
stamp "done"
