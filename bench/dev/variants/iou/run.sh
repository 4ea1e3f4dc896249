#!/usr/bin/env bash
# iou variants (issue 17: iou on every GPU): each knob set of reference/iou.cu built as its
# own binary of iou_variants.cu and run in turn, one line each, after the build of all.
# From the repository root on the GPU machine:  OUT=/tmp/out bash bench/dev/variants/iou/run.sh
# VARIANTS="tag:-DKNOB=V -D...;tag2:..." replaces the default list. Writes $OUT/iou.txt.
set -uo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
here=bench/dev/variants/iou
bin=$(mktemp -d)
arch=${ARCH:--arch=native}
# tag: flags. "before": the aligned kernel before 2026-11-27 (one slot a thread, __fdividef
# everywhere). no-store: the stores disabled (the instruction rate, in GB/s of output it would
# write); L2: every row written over the first 16, which stay in L2.
before="-DIOU_FAST_DIV=0 -DIOU_ALIGNED_SLOTS=1 -DIOU_ALIGNED_MIN_BLOCKS=8"
VARIANTS=${VARIANTS:-"reference:;before:$before;no-store:-DIOU_NO_STORE=1;before-no-store:$before -DIOU_NO_STORE=1;\
fdividef:-DIOU_FAST_DIV=0;L2:-DIOU_OUT_ROWS=16;L2-store-only:-DIOU_OUT_ROWS=16 -DIOU_STORE_ONLY=1;\
rows16-no-store:-DIOU_ALIGNED_ROWS=16 -DIOU_NO_STORE=1;batch4-no-store:-DIOU_ALIGNED_BATCH=4 -DIOU_NO_STORE=1"}
t0=$(date +%s)
IFS=';' read -ra list <<< "$VARIANTS"
for v in "${list[@]}"; do
    tag=${v%%:*}; flags=${v#*:}
    nvcc -std=c++17 -O3 $arch -I. -Ilabs/include -Igrader/include -DTAG="\"$tag\"" $flags -Xptxas -v \
        "$here/iou_variants.cu" -o "$bin/$tag" > "$bin/$tag.log" 2>&1 &
done
wait
{
    echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1); nvcc $(( $(date +%s) - t0 )) s"
    for v in "${list[@]}"; do
        tag=${v%%:*}
        if [[ -x $bin/$tag ]]; then
            "$bin/$tag" "${RUNS:-30}" || echo "$tag: exit $?"
            grep -A2 'iou_aligned_kernel' "$bin/$tag.log" | grep -o '[0-9]* registers\|[0-9]* bytes spill stores' | tr '\n' ' ' | sed 's/^/    /'; echo
        else
            echo "$tag: build failed"; tail -5 "$bin/$tag.log"
        fi
    done
} 2>&1 | tee "$OUT/iou.txt"
