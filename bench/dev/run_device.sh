#!/usr/bin/env bash
# run_device.sh: everything the memory-bound labs need from one device call. Builds the
# dev harness (mem_labs) and every solution the way the engine will (nvcc -O3 -shared
# -Xcompiler -fPIC -arch=sm_90 -I labs/include): references, skeletons, planted bad
# solutions, and tuning variants of the references; runs them (correctness, then timing
# against the copy bandwidth measured in the same process); runs the PyTorch peers; and
# prints a summary (bench/dev/summarize.py). Logs and JSON lines go to $OUT.
#   bash bench/dev/run_device.sh [--seed N] [--no-variants] [--sanitize] [--deadline SECONDS]
# --deadline: skip what would start after that many seconds (the summary still prints).
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mem_out}
B=${BUILD:-/tmp/memlabs}
SEED=$(( $(date +%s) % 1000000007 ))
VARIANTS=1
SANITIZE=0
DEADLINE=100000
while [ $# -gt 0 ]; do
    case $1 in
    --seed) SEED=$2; shift ;;
    --no-variants) VARIANTS=0 ;;
    --sanitize) SANITIZE=1 ;;
    --deadline) DEADLINE=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
mkdir -p "$OUT" "$B/so"
LOG=$OUT/log.txt
RES=$OUT/results.jsonl
: >"$RES"
exec > >(tee -a "$LOG") 2>&1
t0=$(date +%s)
stamp() { echo "[+$(( $(date +%s) - t0 ))s] $*"; }

stamp "seed $SEED"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc --version | tail -1

# ---- build: checkers, harness, solutions (in parallel)
INC="-I grader/include -I labs/include"
for lab in transpose softmax layernorm; do
    gcc -std=c11 -O2 -c grader/labs/$lab.c $INC -o $B/$lab.o || exit 1
    python3 bench/dev/labyaml.py labs/$lab/lab.yaml >$B/$lab.txt || exit 1
done
nvcc -std=c++17 -O2 -arch=sm_90 $INC bench/dev/mem_labs.cu $B/transpose.o $B/softmax.o $B/layernorm.o \
    -o $B/mem_labs -Xlinker -export-dynamic -ldl &
hpid=$!

# lab|label|source|extra nvcc flags|harness flags
{
    for lab in transpose softmax layernorm; do
        echo "$lab|reference|reference/$lab.cu||"
        echo "$lab|skeleton|labs/$lab/$lab.cu||"
        for f in tests/planted/$lab/*.cu; do
            echo "$lab|planted:$(basename $f .cu)|$f||"
        done
    done
    if [ $VARIANTS = 1 ]; then
        # the same reference timed a second time: the run-to-run spread
        for lab in transpose softmax layernorm; do
            echo "$lab|variant:repeat|reference/$lab.cu||--bench-only"
        done
        # a cluster per row at 32768 columns instead of one big block (with correctness)
        echo "softmax|variant:cluster32k|reference/softmax.cu|-DSOFTMAX_BIG_MAX=2048|--bench-case 32768"
        echo "layernorm|variant:cluster32k|reference/layernorm.cu|-DLAYERNORM_BIG_MAX=2048|--bench-case 32768"
        echo "layernorm|variant:cluster32k_np|reference/layernorm.cu|-DLAYERNORM_BIG_MAX=2048 -DLAYERNORM_CLUSTER_PERSISTENT=0|--bench-case 32768"
        echo "layernorm|variant:big_persistent|reference/layernorm.cu|-DLAYERNORM_BIG_PERSISTENT=1|--bench-case 32768"
    fi
} >$B/solutions.txt

build_one() {
    IFS='|' read -r lab label src flags hflags <<<"$1"
    so=$B/so/${lab}__${label//:/_}.so
    if ! nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I labs/include $flags "$src" -o "$so" \
        >"$so.log" 2>&1; then
        echo "BUILD FAILED $lab $label"; cat "$so.log"
    fi
}
export -f build_one
export B
xargs -P 16 -I{} bash -c 'build_one "$@"' _ {} <$B/solutions.txt
wait $hpid || { echo "harness build failed"; exit 1; }
stamp "built $(ls $B/so/*.so | wc -l) solutions"

# ---- run: references first (the numbers that count), peers, then the rest
late() { [ $(( $(date +%s) - t0 )) -ge "$DEADLINE" ]; }
run_one() {
    IFS='|' read -r lab label src flags hflags <<<"$1"
    if late; then echo "---- $lab $label skipped: past the deadline"; return; fi
    so=$B/so/${lab}__${label//:/_}.so
    [ -f "$so" ] || { echo "RESULT {\"lab\":\"$lab\",\"solution\":\"$label\",\"verdict\":\"compile_error\"}" >>"$RES"; return; }
    echo "---- $lab $label $flags"
    # shellcheck disable=SC2086
    timeout 120 $B/mem_labs $lab $B/$lab.txt "$so" --seed $SEED $hflags >$B/run.txt 2>&1
    rc=$?
    cat $B/run.txt | grep -v '^BENCH\|^RESULT'
    grep '^BENCH\|^RESULT' $B/run.txt | sed "s|\"solution\":\"[^\"]*\"|\"solution\":\"$label\"|" >>"$RES"
    v=crash; [ $rc = 124 ] && v=timeout
    grep -q '^RESULT' $B/run.txt || echo "RESULT {\"lab\":\"$lab\",\"solution\":\"$label\",\"verdict\":\"$v\",\"rc\":$rc}" >>"$RES"
}

$B/mem_labs copy
grep '|reference|' $B/solutions.txt | while read -r s; do run_one "$s"; done
stamp "references done"
for lab in transpose softmax layernorm; do
    late && break
    timeout 120 python3 bench/peers/$lab.py >>$OUT/peers.jsonl || echo "peer $lab failed"
done
cat "$OUT/peers.jsonl" 2>/dev/null
stamp "peers done"
grep '|skeleton|\||planted:' $B/solutions.txt | while read -r s; do run_one "$s"; done
stamp "skeletons and planted done"
grep '|variant:' $B/solutions.txt | while read -r s; do run_one "$s"; done
stamp "variants done"
# compute-sanitizer on the references' correctness cases (small memory budget)
if [ $SANITIZE = 1 ] && command -v compute-sanitizer >/dev/null; then
    # memcheck: every correctness case (small memory budget); racecheck: the cluster path
    for spec in "memcheck transpose" "memcheck softmax" "memcheck layernorm" \
                "racecheck softmax --case 50000" "racecheck layernorm --case 50000"; do
        late && break
        set -- $spec
        tool=$1 lab=$2
        shift 2
        timeout 45 compute-sanitizer --tool $tool --error-exitcode 9 $B/mem_labs $lab $B/$lab.txt \
            $B/so/${lab}__reference.so --seed $SEED --no-bench --max-mem 0.25 "$@" >$B/san.txt 2>&1
        echo "SANITIZER $tool $lab $* rc=$? $(grep -c '^  .* ok ' $B/san.txt) cases ok; $(grep -m1 'ERROR SUMMARY' $B/san.txt)"
        grep -m3 -A3 '^=========.*[Ee]rror\|Invalid\|Race' $B/san.txt | head -12
    done
    stamp "sanitizers done"
fi
python3 bench/dev/summarize.py "$RES" "$OUT/peers.jsonl" tests/planted | tee $OUT/summary.txt
