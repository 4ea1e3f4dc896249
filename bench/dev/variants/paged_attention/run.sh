#!/usr/bin/env bash
# run.sh: paged_attention's variants at the six shapes of bench/peers/paged_attention.py
# --all-shapes, next to SDPA, in one call on one GPU (issue 17: >= 95% of read-only and
# >= 1.0x SDPA at every shape). From the repository root:
#
#   OUT=/tmp/out bash bench/dev/variants/paged_attention/run.sh      (writes $OUT/paged_attention.txt)
#
# Builds (bench/dev/pa_probe.cu, mode "all", one binary each, compiled in parallel):
#   ref      reference/paged_attention.cu as it is
#   drip     pa_v.cu -DPA_V_DRIP=1: the mid-run partial staged in shared memory and stored
#            16 bytes a lane per tile over the next tiles (not all 8 warps at once)
#   gmerge   pa_v.cu -DPA_V_GMERGE=1: the few-sequence merge kernel launched with one CTA per
#            (group, head) instead of one per (CTA, warp, head)
#   both     both knobs
# Each binary measures the read-only ceiling (1 GiB read, bench_time) in its own process,
# then times every shape (bench/peers/cuda_timing.cuh: L2 flushed, median of 30) and checks
# every output against fp64 on the CPU (WRONG when out of the lab's tolerance), plus four
# mixed-length cases checked only. ref runs first and last (the drift between processes).
# SDPA (bench/peers/paged_attention.py --all-shapes) runs while the binaries compile.
set -u -o pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/bin"
txt=$OUT/paged_attention.txt
: > "$txt"
start=$(date +%s)
log() { echo "[+$(( $(date +%s) - start ))s] $*" >> "$txt"; }
nvcc=${CUDALAB_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
flags=(-O3 -std=c++17 -Ilabs/include -Igrader/include -gencode arch=compute_90a,code=sm_90a)
v='"variants/paged_attention/pa_v.cu"'
declare -A src=([ref]='"../../reference/paged_attention.cu"' [drip]=$v [gmerge]=$v [both]=$v)
declare -A def=([ref]="" [drip]="-DPA_V_DRIP=1" [gmerge]="-DPA_V_GMERGE=1" [both]="-DPA_V_DRIP=1 -DPA_V_GMERGE=1")
builds="ref drip gmerge both"

log "compiling: $builds (background)"
for b in $builds; do
    # shellcheck disable=SC2086
    ( "$nvcc" "${flags[@]}" ${def[$b]} -DPA_SRC="${src[$b]}" bench/dev/pa_probe.cu -o "$OUT/bin/pa_$b" \
        > "$OUT/bin/$b.log" 2>&1; echo "$b $?" >> "$OUT/bin/status" ) &
done

log "SDPA (bench/peers/paged_attention.py --all-shapes)"
timeout 75 python3 bench/peers/paged_attention.py --all-shapes > "$OUT/sdpa.json" 2> "$OUT/sdpa_backends.txt"
echo "sdpa exit $?" >> "$txt"
python3 - "$OUT/sdpa.json" >> "$txt" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    try:
        d = json.loads(line)
    except ValueError:
        continue
    print("SDPA     %-42s %10.4f %8.0f  (%s)" % (d["shape"], d["median_ms"], d.get("gbps", 0), d["peer"]))
EOF
wait
log "compiled: $(tr '\n' ' ' < "$OUT/bin/status")"
for b in $builds; do
    [ -s "$OUT/bin/$b.log" ] && { echo "--- $b compile output:"; cat "$OUT/bin/$b.log"; } >> "$txt"
done
for b in $builds ref; do
    log "run $b"
    if [ -x "$OUT/bin/pa_$b" ]; then
        timeout 40 "$OUT/bin/pa_$b" all "$b" >> "$txt" 2>&1 || echo "$b: exit $? (WRONG or failed)" >> "$txt"
    else
        echo "$b: WRONG: did not compile" >> "$txt"
    fi
done
log "done"
cat "$txt"
