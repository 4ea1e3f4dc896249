#!/bin/bash
# bench/dev/variants/nms/run.sh: the nms reference next to its candidate sort/mask/scan builds (issue 17),
# then torchvision.ops.nms (bench/peers/nms.py) in the same call. From the repository root:
#   OUT=/tmp/out bash bench/dev/variants/nms/run.sh
# Writes $OUT/nms.txt (and the binary's build log $OUT/nms_build.txt).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
D=bench/dev/variants/nms
B=$(mktemp -d /tmp/nmsvar.XXXXXX)
ARCH=${ARCH:--gencode arch=compute_90a,code=sm_90a}
FLAGS="-O3 -std=c++17 $ARCH -Ilabs/include -Igrader/include -Igrader/labs -Ibench/peers"
{
    start=$(date +%s)
    pids=()
    nvcc $FLAGS -c reference/nms.cu -o $B/ref.o & pids+=($!)
    V="-DSCAN_LAG=1 -DSCAN_SIZED=1"
    nvcc $FLAGS $V -DNMS_ENTRY=nms_l1s -c $D/nms_var.cu -o $B/l1s.o & pids+=($!)
    nvcc $FLAGS $V -DNMS_ENTRY=nms_s1 -DSORT_BLOCK=1 -c $D/nms_var.cu -o $B/s1.o & pids+=($!)
    nvcc $FLAGS $V -DNMS_ENTRY=nms_m1 -DMASK_FAST=1 -c $D/nms_var.cu -o $B/m1.o & pids+=($!)
    nvcc $FLAGS $V -DNMS_ENTRY=nms_sm -DSORT_BLOCK=1 -DMASK_FAST=1 -c $D/nms_var.cu -o $B/sm.o & pids+=($!)
    nvcc $FLAGS -c $D/nms_bench.cu -o $B/main.o & pids+=($!)
    rc=0
    for p in "${pids[@]}"; do wait $p || rc=1; done
    [ $rc = 0 ] && nvcc $ARCH $B/*.o -o $B/nms_bench || rc=1
    echo "build rc $rc in $(( $(date +%s) - start )) s"
} > "$OUT/nms_build.txt" 2>&1
cat "$OUT/nms_build.txt"
{
    if [ -x $B/nms_bench ]; then
        $B/nms_bench ${RUNS:-30}
        echo "# nms_bench exit $?"
    else
        echo "# BUILD FAILED: see nms_build.txt"
    fi
    echo "# peer: torchvision.ops.nms (bench/peers/nms.py, its own inputs of the same distribution)"
    (cd bench/peers && timeout 120 python3 nms.py) 2>&1
} | tee "$OUT/nms.txt"
# the ratios against torchvision, from the JSON lines above
python3 - "$OUT/nms.txt" <<'PY' | tee -a "$OUT/nms.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
tv = {r["shape"]: r["median_ms"] for r in rows if r["peer"].startswith("torchvision")}
for r in rows:
    if r["peer"].startswith("cudalab") and r["shape"] in tv:
        print(f'summary {r["shape"]:>12} {r["peer"]:<18} {r["median_ms"]:.4f} ms  '
              f'{tv[r["shape"]] / r["median_ms"]:.2f}x torchvision ({tv[r["shape"]]:.4f} ms)  '
              f'{r.get("of_reference", 0):.3f} of reference')
PY
rm -rf "$B"
