#!/usr/bin/env bash
# run_graph_device.sh: every GPU check of the topo_sort and paged_attention labs in one call.
#
# From the repository root (or a copy of the files it needs), on a machine with a GPU:
#   bench/dev/run_graph_device.sh [OUTDIR]
# 1. builds the harness and every solution as the engine does (nvcc -O3 -shared -fPIC
#    -arch=sm_90 -I labs/include), unless build/graph_dev already holds them;
# 2. grades both references: all correctness cases, then the bench cases (tiers);
# 3. times the PyTorch SDPA peer in the same call;
# 4. grades the skeletons and planted solutions and compares with their `// expect:`;
# 5. times the extra shapes of bench/dev/graph_extra.yaml (README discussion);
# 6. runs the references' small cases under compute-sanitizer memcheck.
# Full logs go to OUTDIR (default $OUT or /tmp/graph_dev); a summary is printed last.
set -u
cd "$(dirname "$0")/../.."
OUTDIR=${1:-${OUT:-/tmp/graph_dev}}
mkdir -p "$OUTDIR"
B=build/graph_dev
ARCH=${ARCH:-sm_90}
START=$(date +%s)
elapsed() { echo $(( $(date +%s) - START )); }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader \
    | tee "$OUTDIR/gpu.txt"

# ---- 1. build ----
solutions="reference/topo_sort.cu reference/paged_attention.cu labs/topo_sort/topo_sort.cu
labs/paged_attention/paged_attention.cu $(ls tests/planted/topo_sort/*.cu tests/planted/paged_attention/*.cu)"
so_of() { echo "$B/$(echo "$1" | tr '/' '_' | sed 's/\.cu$/.so/')"; }
if [ ! -x "$B/graph_dev" ]; then
    mkdir -p "$B"
    CF="-std=c11 -D_GNU_SOURCE -O2 -Igrader/include -Ilabs/include -Ibench/dev"
    for f in bench/dev/mini_engine.c grader/labs/topo_sort.c grader/labs/paged_attention.c; do
        gcc $CF -c "$f" -o "$B/$(basename "$f" .c).o" || exit 1
    done
    nvcc -O3 -arch=$ARCH -Igrader/include -Ilabs/include -Ibench/dev bench/dev/graph_dev.cu "$B"/*.o -ldl \
        -Xlinker -export-dynamic -o "$B/graph_dev" || exit 1
    for s in $solutions; do
        nvcc -O3 -shared -Xcompiler -fPIC -arch=$ARCH -I labs/include "$s" -o "$(so_of "$s")" \
            >"$OUTDIR/build_$(basename "$s" .cu).log" 2>&1 &
    done
    wait
fi
python3 bench/dev/cases.py topo_sort paged_attention >"$B/cases.tsv" || exit 1
python3 bench/dev/cases.py --sanitize topo_sort paged_attention >"$B/sanitize.tsv" || exit 1
python3 bench/dev/cases.py --extra bench/dev/graph_extra.yaml topo_sort paged_attention >"$B/extra.tsv" || exit 1

# grade LAB SOLUTION.cu TIMEOUT LOG [harness flags...]: prints the VERDICT line
grade() {
    local lab=$1 src=$2 limit=$3 log=$4
    shift 4
    local so
    so=$(so_of "$src")
    if [ ! -f "$so" ]; then
        echo "VERDICT $lab $so compile_error 0 see build log" | tee -a "$log"
        return
    fi
    timeout "$limit" "$B/graph_dev" --lab "$lab" --so "$so" "$@" >>"$log" 2>&1
    local rc=$?
    if [ $rc -eq 124 ]; then echo "VERDICT $lab $so timeout 0 over ${limit}s" >>"$log"
    elif [ $rc -gt 128 ]; then echo "VERDICT $lab $so crash 0 signal $((rc - 128))" >>"$log"; fi
    grep '^VERDICT' "$log" | tail -n 1
}

# ---- 2. references ----
: >"$OUTDIR/ref_topo_sort.log"
: >"$OUTDIR/ref_paged_attention.log"
grade topo_sort reference/topo_sort.cu 150 "$OUTDIR/ref_topo_sort.log" --cases "$B/cases.tsv" --bench
grade paged_attention reference/paged_attention.cu 150 "$OUTDIR/ref_paged_attention.log" --cases "$B/cases.tsv" --bench
echo "# references done at $(elapsed)s"

# ---- 3. the SDPA peer, same call ----
PYTHONUNBUFFERED=1 timeout 120 python3 bench/peers/paged_attention.py --all-shapes >"$OUTDIR/peer_sdpa.jsonl" \
    2>"$OUTDIR/peer_sdpa.err"
echo "# peer done at $(elapsed)s"

# ---- 4. skeletons and planted solutions ----
: >"$OUTDIR/planted.log"
check_expect() { # SRC LAB
    local src=$1 lab=$2 want msg line got
    want=$(sed -n 's|^// expect: *||p' "$src" | head -n 1)
    msg=$(sed -n 's|^// expect-message: *||p' "$src" | head -n 1)
    [ -z "$want" ] && want=wrong # skeletons: fail correctness cleanly
    line=$(grade "$lab" "$src" 90 "$OUTDIR/planted.log" --cases "$B/cases.tsv" --stop-first)
    got=$(echo "$line" | awk '{print $4}')
    if [ "$got" = "$want" ] && { [ -z "$msg" ] || echo "$line" | grep -qF -- "$msg"; }; then
        echo "OK       $src: $got"
    else
        echo "MISMATCH $src: expected $want${msg:+ ($msg)}, got: $line"
    fi
}
{
    check_expect labs/topo_sort/topo_sort.cu topo_sort
    check_expect labs/paged_attention/paged_attention.cu paged_attention
    for f in tests/planted/topo_sort/*.cu; do check_expect "$f" topo_sort; done
    for f in tests/planted/paged_attention/*.cu; do check_expect "$f" paged_attention; done
} | tee "$OUTDIR/planted_summary.txt"
echo "# planted done at $(elapsed)s"

# ---- 5. extra shapes (references only) ----
: >"$OUTDIR/extra.log"
ref_rate=$(awk -F'\t' '/^BENCH\ttopo_sort/{print $6 / ($4 * 1e-3)}' "$OUTDIR/ref_topo_sort.log" | head -n 1)
grade topo_sort reference/topo_sort.cu 120 "$OUTDIR/extra.log" --cases "$B/extra.tsv" --bench --ref-rate "${ref_rate:-0}" >/dev/null
grade paged_attention reference/paged_attention.cu 120 "$OUTDIR/extra.log" --cases "$B/extra.tsv" --bench >/dev/null
echo "# extra done at $(elapsed)s"

# ---- 6. compute-sanitizer on the references' small cases ----
: >"$OUTDIR/sanitize.log"
if command -v compute-sanitizer >/dev/null && [ "$(elapsed)" -lt 200 ]; then
    for lab in topo_sort paged_attention; do
        timeout 60 compute-sanitizer --tool memcheck --print-limit 5 "$B/graph_dev" --lab $lab \
            --so "$(so_of reference/$lab.cu)" --cases "$B/sanitize.tsv" >>"$OUTDIR/sanitize.log" 2>&1
        echo "sanitize $lab rc=$?" >>"$OUTDIR/sanitize.log"
    done
fi

# ---- summary ----
summary() { # LOG: correctness count, failures, bench lines, verdict
    awk '/^  [^ ]/ && !/median/ {n++; if ($0 !~ / ok /) {bad++; print "  FAIL " substr($0, 1, 200)}}
         /^      / && prev_fail {print substr($0, 1, 240)}
         {prev_fail = (/^  [^ ]/ && !/median/ && $0 !~ / ok /)}
         /median/ {print substr($0, 1, 240); getline; print substr($0, 1, 200)}
         /^VERDICT/ {print substr($0, 1, 200)}
         END {printf "  correctness: %d of %d cases ok\n", n - bad, n}' "$1"
}
echo
echo "== GPU: $(cat "$OUTDIR/gpu.txt")"
grep -h '^#' "$OUTDIR/ref_paged_attention.log" | head -n 1 | cut -c1-240
for lab in topo_sort paged_attention; do echo "== reference $lab"; summary "$OUTDIR/ref_$lab.log"; done
echo "== SDPA peer (bench shape first)"
grep -h '"torch.sdpa' "$OUTDIR/peer_sdpa.jsonl" | cut -c1-220
tail -n 2 "$OUTDIR/peer_sdpa.err" 2>/dev/null | cut -c1-200
echo "== skeletons and planted"
cut -c1-240 "$OUTDIR/planted_summary.txt"
echo "== extra shapes"
grep -E 'median|^VERDICT|FAIL|error' "$OUTDIR/extra.log" | cut -c1-240
echo "== sanitizer"
grep -E 'ERROR SUMMARY|rc=' "$OUTDIR/sanitize.log"
echo "# total $(elapsed)s"
