#!/usr/bin/env bash
# round2.sh: every figure of the "references round 2" issue, measured in one run on one GPU,
# written as a markdown table for docs/PERFORMANCE.md ($OUT/round2.md; raw output beside it).
#
#   OUT=/tmp/r2 bash bench/round2.sh          (from the repository root, build/ present)
#
# In order, each step bounded in time so a slow one cannot starve the rest (< 8 minutes on
# an H100 in all):
#   1. the ceilings, measured afresh: copy, read-only, write-only bandwidth, cuBLAS
#      (`cudalab device --refresh`)
#   2. every reference through `cudalab bench` (the engine a student's submission goes
#      through) next to its PyTorch peer: bench/side_by_side.sh for the nine labs
#   3. the peers and shapes the labs' bench cases do not cover: cub::DeviceReduce::Sum
#      (bench/peers/reduce_cub.cu); the gemm reference next to cuBLAS and torch.matmul at
#      1024^3, 4096^3, 8192^3, 127x4099x520, 4096x14336x4096 (bench/shapes/gemm_shapes.cu,
#      bench/peers/gemm.py --shapes); paged_attention at every shape of its peer script next
#      to SDPA (bench/dev/pa_probe.cu's shape mode, bench/peers/paged_attention.py --all-shapes)
#   4. the table (bench/table.py --round2)
# The helpers are compiled with nvcc on the GPU machine while step 2 runs.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/env.sh
source "$here/env.sh"
bench_env
export PYTHONUNBUFFERED=1 NO_COLOR=1
cd "$root" || exit 2
start=$(date +%s)
log() { echo "[$(date +%T) +$(( $(date +%s) - start ))s] $*"; }
extra=$out/extra
bin=$out/bin
mkdir -p "$extra" "$bin"
nvcc=${CUDALAB_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
labs="reduce transpose softmax layernorm gemm paged_attention iou nms topo_sort"
gemm_shapes="1024,1024,1024 4096,4096,4096 8192,8192,8192 127,4099,520 4096,14336,4096"

log "1. ceilings (cudalab device --refresh)"
timeout 300 "$cudalab" device --refresh --json > "$out/device.json" || { echo "no GPU: nothing to measure"; exit 3; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("  copy %.0f, read-only %.0f, write-only %.0f GB/s; cuBLAS %.0f TFLOP/s" % (d["copy_gbps"], d.get("read_gbps", 0), d.get("write_gbps", 0), d["fp16_tflops"]))' "$out/device.json"

log "compiling the helpers (background)"
flags=(-O3 -std=c++17 -Ilabs/include -Igrader/include -Ibench/peers)
( "$nvcc" "${flags[@]}" -arch=native bench/peers/reduce_cub.cu -o "$bin/reduce_cub" > "$bin/reduce_cub.log" 2>&1
  echo "reduce_cub: exit $?" >> "$bin/status" ) &
( "$nvcc" "${flags[@]}" -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_80,code=sm_80 \
     bench/shapes/gemm_shapes.cu -lcublas -o "$bin/gemm_shapes" > "$bin/gemm_shapes.log" 2>&1
  echo "gemm_shapes: exit $?" >> "$bin/status" ) &
( "$nvcc" "${flags[@]}" -arch=native -DPA_SRC='"../../reference/paged_attention.cu"' bench/dev/pa_probe.cu \
     -o "$bin/pa_probe" > "$bin/pa_probe.log" 2>&1
  echo "pa_probe: exit $?" >> "$bin/status" ) &

log "2. references through cudalab bench, and their PyTorch peers"
mkdir -p "$out/side"
cp "$out/device.json" "$out/side/device.json"
# shellcheck disable=SC2086
OUT="$out/side" timeout 360 bash "$here/side_by_side.sh" $labs > "$out/side.txt" 2>&1
grep -E "^==|^  " "$out/side.txt" | grep -v "^| " | head -40

wait # the helpers
cat "$bin/status"
log "3a. cub::DeviceReduce::Sum"
[[ -x $bin/reduce_cub ]] && timeout 60 "$bin/reduce_cub" > "$extra/reduce_cub.jsonl" 2> "$extra/reduce_cub.err"
log "3b. gemm at the issue's shapes: reference and cuBLAS, then torch.matmul"
# shellcheck disable=SC2086
[[ -x $bin/gemm_shapes ]] && timeout 120 "$bin/gemm_shapes" $gemm_shapes > "$extra/gemm_shapes.jsonl" 2> "$extra/gemm_shapes.err"
# shellcheck disable=SC2086
(cd "$here/peers" && timeout 120 python3 gemm.py --shapes $gemm_shapes) > "$extra/gemm_torch.jsonl" 2> "$extra/gemm_torch.err"
log "3c. paged_attention at every shape: reference (pa_probe) and SDPA"
if (( $(date +%s) - start > 400 )); then
  log "  skipped: past 400 s (the whole run must stay under 8 minutes)"
elif [[ -x $bin/pa_probe ]]; then
  while read -r s h kvh d bs t; do
    timeout 60 "$bin/pa_probe" shape "$s" "$h" "$kvh" "$d" "$bs" "$t"
  done < <(cd "$here/peers" && python3 paged_attention.py --list-shapes) > "$extra/pa_shapes.txt" 2> "$extra/pa_shapes.err"
  (cd "$here/peers" && timeout 120 python3 paged_attention.py --all-shapes) > "$extra/pa_sdpa.jsonl" 2> "$extra/pa_sdpa.err"
fi

log "4. the table"
gpu=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$out/device.json")
{
  echo "GPU: $gpu; $(date -u +%F); command: \`OUT=... bash bench/round2.sh\` ($(( $(date +%s) - start )) s)"
  echo
  # shellcheck disable=SC2086
  python3 "$here/table.py" "$out/side" $labs --round2 "$extra"
} > "$out/round2.md"
cat "$out/round2.md"
log "done"
