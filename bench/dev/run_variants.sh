#!/usr/bin/env bash
# run_variants.sh: times variants of the paged attention kernel against each other and
# against PyTorch SDPA in one device call, then checks every variant on all correctness
# cases (in parallel: the fp64 references are CPU-bound). Variant A is the reference
# (reference/paged_attention.cu); the others are bench/dev/variants/paged_attention_knobs.cu
# with the -D settings below. Results of the 2026-11-22 run: bench/dev/NOTES.md.
#   bench/dev/run_variants.sh [OUTDIR]   (after run_graph_device.sh's build step)
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:-${OUT:-/tmp/graph_variants}}
mkdir -p "$OUTDIR"
B=build/graph_dev
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUTDIR/gpu.txt"
python3 bench/dev/cases.py topo_sort paged_attention >"$B/cases.tsv" || exit 1
python3 bench/dev/cases.py --extra bench/dev/graph_extra.yaml --runs 10 paged_attention >"$B/extra.tsv" || exit 1
python3 bench/dev/cases.py --sanitize paged_attention >"$B/sanitize.tsv" || exit 1
# the lab's bench case alone (correctness cases dropped)
grep -vP '^case\tpaged_attention\t0\t' "$B/cases.tsv" >"$B/bench_only.tsv"
KNOBS=bench/dev/variants/paged_attention_knobs.cu
build() { # NAME SOURCE FLAGS...
    local name=$1 src=$2
    shift 2
    [ -f "$B/$name.so" ] || nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I labs/include "$@" "$src" -o "$B/$name.so"
}
build pa_A_ref reference/paged_attention.cu &
build pa_B_default "$KNOBS" &
build pa_C_u4 "$KNOBS" -DPA_UNROLL=4 &
build pa_D_regs_u8 "$KNOBS" -DPA_CPASYNC=0 -DPA_MIN_BLOCKS=5 &
build pa_E_w8 "$KNOBS" -DPA_WARPS=8 &
build pa_F_nobfly "$KNOBS" -DPA_BUTTERFLY=0 &
wait
variants=$(cd $B && ls pa_*.so | sed 's/\.so$//')
run() { # NAME CASES LIMIT LOG [flags]
    local v=$1 cases=$2 limit=$3 log=$4
    shift 4
    echo "### $v" >>"$log"
    timeout "$limit" "$B/graph_dev" --lab paged_attention --so "$B/$v.so" --cases "$cases" "$@" >>"$log" 2>&1
    echo "### rc=$?" >>"$log"
}
for v in $variants; do run "$v" "$B/bench_only.tsv" 40 "$OUTDIR/bench.log" --bench; done
echo "# bench done at $(elapsed)s"
PYTHONUNBUFFERED=1 timeout 60 python3 bench/peers/paged_attention.py --all-shapes >"$OUTDIR/peer_sdpa.jsonl" 2>"$OUTDIR/peer_sdpa.err"
echo "# peer done at $(elapsed)s"
for v in $variants; do run "$v" "$B/extra.tsv" 40 "$OUTDIR/extra.log" --bench; done
echo "# extra done at $(elapsed)s"
if [ "$(elapsed)" -lt 200 ]; then
    timeout 40 "$B/graph_dev" --lab topo_sort --so "$B/reference_topo_sort.so" --cases "$B/cases.tsv" --bench \
        >"$OUTDIR/topo.log" 2>&1
fi
echo "# topo done at $(elapsed)s"
# correctness is CPU-bound (fp64 references): all variants at once, and the sanitizer
for v in $variants; do run "$v" "$B/cases.tsv" 60 "$OUTDIR/correct_$v.log" & done
if command -v compute-sanitizer >/dev/null; then
    timeout 60 compute-sanitizer --tool memcheck --print-limit 5 "$B/graph_dev" --lab paged_attention \
        --so "$B/pa_B_default.so" --cases "$B/sanitize.tsv" >"$OUTDIR/sanitize.log" 2>&1
    echo "sanitize rc=$?" >>"$OUTDIR/sanitize.log"
fi
wait
cat "$OUTDIR"/correct_pa_*.log >"$OUTDIR/correct.log"
echo "# correctness done at $(elapsed)s"

echo
echo "== GPU: $(cat "$OUTDIR/gpu.txt")"
grep -h '^# NVIDIA' "$OUTDIR/bench.log" | head -n 1 | cut -c1-220
echo "== variants: bench case (median ms, fraction of cudaMemcpy copy)"
awk -F'\t' '/^### pa_/{v=$0; sub(/^### /, "", v)} /^BENCH/{printf "  %-22s %-44s %.4f ms  %.3f\n", v, $3, $4, $8}' "$OUTDIR/bench.log"
echo "== SDPA (best backend per shape)"
grep -h '"torch.sdpa' "$OUTDIR/peer_sdpa.jsonl" | sed -E 's/.*"shape": "([^"]*)".*"peer": "([^"]*)".*"median_ms": ([0-9.]+).*"gbps": ([0-9.]+).*/  \1: \3 ms, \4 GB\/s (\2)/'
echo "== variants: extra shapes"
awk -F'\t' '/^### pa_/{v=$0; sub(/^### /, "", v)} /^BENCH/{printf "  %-22s %-44s %.4f ms  %.3f\n", v, $3, $4, $8} /wrong|cuda_error|out_of_bounds/{print "  FAIL " v ": " substr($0, 1, 160)}' "$OUTDIR/extra.log"
echo "== variants: correctness"
awk '/^### pa_/{v=$2} /^VERDICT/{printf "  %-22s %s\n", v, substr($0, index($0, $4), 180)}' "$OUTDIR/correct.log"
grep -h 'rc=1[0-9][0-9]\|rc=124' "$OUTDIR"/*.log | head
echo "== sanitizer"
grep -hE 'ERROR SUMMARY|rc=' "$OUTDIR/sanitize.log" 2>/dev/null
echo "== topo_sort reference again"
grep -E 'median|VERDICT|correctness' "$OUTDIR/topo.log" 2>/dev/null | cut -c1-220
grep -A1 median "$OUTDIR/topo.log" 2>/dev/null | tail -n 1 | cut -c1-200
echo "# total $(elapsed)s"
