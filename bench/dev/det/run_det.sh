#!/bin/bash
# run_det.sh KIT RESULTS: on the GPU machine, grades every solution of the det kit built
# by build_det.sh with det_dev, runs the torchvision peers, and checks each planted bad
# solution's verdict against its "// expect:" line. Writes to RESULTS: all.log (every
# det_dev report), det.jsonl (bench numbers and verdicts), peers.jsonl, summary.txt.
# The references get the lab's full run counts; other solutions get --runs 5 (enough for
# a verdict). Every det_dev process has its own time limit.
set -u
K=${1:?usage: run_det.sh KIT RESULTS}
R=${2:?usage: run_det.sh KIT RESULTS}
mkdir -p "$R"
LOG=$R/all.log J=$R/det.jsonl S=$R/summary.txt
: >"$LOG"; : >"$J"; : >"$S"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee -a "$S"

GOT="" LINE=""
grade() { # label lab so limit [det_dev args...]: sets GOT (the verdict) and LINE
    local label=$1 lab=$2 so=$3 limit=$4; shift 4
    echo "=== $label" >>"$LOG"
    local t0=$SECONDS
    timeout "$limit" "$K/det_dev" --lab "$lab" --labs "$K/labs" --solution "$so" \
        --reference "$K/so/reference_$lab.so" --json "$J" --label "$label" "$@" >>"$LOG" 2>&1
    local rc=$?
    [ $rc -eq 124 ] && echo "verdict: timeout" >>"$LOG"
    [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "verdict: crash (exit $rc)" >>"$LOG"
    GOT=$(sed -n "/^=== $label\$/,\$p" "$LOG" | grep -m1 '^verdict:' | sed 's/^verdict: //; s/ .*//')
    LINE="$label: ${GOT:-none} ($((SECONDS - t0)) s)"
}

check() { # label lab so limit expected
    local expect=$5
    grade "$1" "$2" "$3" "$4" --runs 5
    if [ "$GOT" = "$expect" ]; then echo "ok    $LINE (expected $expect)" | tee -a "$S"
    else echo "FAIL  $LINE (expected $expect)" | tee -a "$S"; fi
}

grade reference_iou iou "$K/so/reference_iou.so" 120; echo "$LINE" | tee -a "$S"
grade reference_nms nms "$K/so/reference_nms.so" 150; echo "$LINE" | tee -a "$S"
grep -h '"median_ms"' "$J" | tee -a "$S"

echo "--- peers" | tee -a "$S"
python3 "$K/peers/iou.py" 2>>"$LOG" | tee -a "$R/peers.jsonl" "$S"
python3 "$K/peers/nms.py" 2>>"$LOG" | tee -a "$R/peers.jsonl" "$S"

echo "--- skeletons, planted, variants" | tee -a "$S"
for lab in iou nms; do
    check "skeleton_$lab" $lab "$K/so/skeleton_$lab.so" 60 wrong
    for f in "$K"/planted/$lab/*.cu; do
        name=$(basename "$f" .cu)
        expect=$(grep -m1 '^// expect:' "$f" | sed 's#^// expect: *##; s/ *$//')
        check "planted_${lab}_$name" $lab "$K/so/planted_${lab}_$name.so" 90 "$expect"
        msg=$(grep -m1 '^// expect-message:' "$f" | sed 's#^// expect-message: *##; s/ *$//')
        if [ -n "$msg" ]; then
            if sed -n "/^=== planted_${lab}_$name\$/,/^=== /p" "$LOG" | grep -v "^=== " | grep -q -- "$msg"; then
                echo "ok    planted_${lab}_$name message contains '$msg'" | tee -a "$S"
            else
                echo "FAIL  planted_${lab}_$name message lacks '$msg'" | tee -a "$S"
            fi
        fi
    done
done
for f in "$K"/so/variant_*.so; do
    name=$(basename "$f" .so); lab=${name#variant_}; lab=${lab%%_*}
    grade "$name" "$lab" "$f" 90 --runs 10; echo "$LINE" | tee -a "$S"
done
grep -h '"median_ms"' "$J" | grep -v reference_ | tee -a "$S"
