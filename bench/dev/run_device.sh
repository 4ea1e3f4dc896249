#!/usr/bin/env bash
# run_device.sh: everything the memory-bound labs need from one device call, in order of
# importance (each phase is skipped once --deadline seconds have passed):
#   1. build: the dev harness (mem_labs) and every solution the way the engine does
#      (nvcc -O3 -shared -Xcompiler -fPIC -arch=sm_90 -I labs/include); the engine's own
#      compile cache is warmed in parallel (bin/cudalab compile)
#   2. harness: the references (correctness, then timing against the copy bandwidth
#      measured in the same process)
#   3. harness: the candidates of bench/dev/candidates/ and their tuning variants (-D
#      flags), and a repeat of each reference's timing (the run-to-run spread)
#   4. engine: bench/side_by_side.sh (the references through `cudalab bench` and the
#      PyTorch peers); the fastest layernorm candidate too, when it beats the reference
#   5. engine: the GPU suite (skeletons and planted solutions through `cudalab submit`,
#      checked by tests/gpu/check_verdict.py)
#   6. harness: skeletons and planted solutions (only with --harness-planted)
#   7. compute-sanitizer on the references (with --sanitize)
# Run from the repository root, or a copy of it holding bin/cudalab (built on the host).
# Logs and JSON go to $OUT.
#   bash bench/dev/run_device.sh [--seed N] [--no-variants] [--sanitize] [--harness-planted]
#                                [--deadline SECONDS]
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-/tmp/mem_out}
B=${BUILD:-/tmp/memlabs}
SEED=$(( $(date +%s) % 1000000007 ))
VARIANTS=1
SANITIZE=0
HARNESS_PLANTED=0
DEADLINE=100000
while [ $# -gt 0 ]; do
    case $1 in
    --seed) SEED=$2; shift ;;
    --no-variants) VARIANTS=0 ;;
    --sanitize) SANITIZE=1 ;;
    --harness-planted) HARNESS_PLANTED=1 ;;
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
late() { [ $(( $(date +%s) - t0 )) -ge "$DEADLINE" ]; }

stamp "seed $SEED"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc --version | tail -1

# ---- the engine's environment (bin/ is carried: cudalab, cudalab-run, cudalab-probe)
CL=$ROOT/bin/cudalab
cublas_dir=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${cublas_dir}:${LD_LIBRARY_PATH:-}
export CUDALAB_HOME=$ROOT XDG_CACHE_HOME=/tmp/cl-cache XDG_DATA_HOME=/tmp/cl-data CUDALAB_DB=/tmp/cl.db
export NO_COLOR=1 PYTHONUNBUFFERED=1

# ---- 1. build: checkers, harness, solutions, engine cache (in parallel)
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
        # Candidates (bench/dev/candidates/, not yet run on a GPU), with every correctness
        # case: softmax and layernorm with one 1024-thread block per row at 32768 columns
        # and one-barrier cluster merges; for layernorm at 32768 also clusters of 4 blocks
        # (persistent or not, gamma/beta in shared memory or not) and of 8 smaller blocks.
        C=bench/dev/candidates
        V="--bench-case 32768 --runs 20"
        echo "softmax|variant:candidate|$C/softmax.cu||"
        echo "softmax|variant:candidate_cluster|$C/softmax.cu|-DSOFTMAX_BIG_MAX=2048|$V"
        echo "layernorm|variant:candidate|$C/layernorm.cu||"
        echo "layernorm|variant:candidate_cluster|$C/layernorm.cu|-DLAYERNORM_BIG_MAX=2048|$V"
        echo "layernorm|variant:candidate_cluster_np|$C/layernorm.cu|-DLAYERNORM_BIG_MAX=2048 -DLAYERNORM_CLUSTER_PERSISTENT=0|$V"
        echo "layernorm|variant:candidate_cluster_np_l2|$C/layernorm.cu|-DLAYERNORM_BIG_MAX=2048 -DLAYERNORM_CLUSTER_PERSISTENT=0 -DLAYERNORM_CLUSTER_GB_SMEM=0|$V"
        echo "layernorm|variant:candidate_cluster8|$C/layernorm.cu|-DLAYERNORM_BIG_MAX=2048 -DLAYERNORM_WIDE_NV=4|$V"
        echo "layernorm|variant:candidate_big_persistent|$C/layernorm.cu|-DLAYERNORM_BIG_PERSISTENT=1|$V"
        # the same reference timed a second time: the run-to-run spread
        for lab in transpose softmax layernorm; do
            echo "$lab|variant:repeat|reference/$lab.cu||--bench-only"
        done
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
warm_one() { # the engine's cache: same key as a run on an sm_90 GPU
    IFS='|' read -r lab label src flags hflags <<<"$1"
    [ -z "$flags" ] && "$CL" compile "$lab" "$src" --arch sm_90 >/dev/null 2>&1
    return 0
}
export -f build_one warm_one
export B CL
xargs -P 16 -I{} bash -c 'build_one "$@"' _ {} <$B/solutions.txt &
bpid=$!
if [ -x "$CL" ]; then
    grep -v '|variant:' $B/solutions.txt | xargs -P 8 -I{} bash -c 'warm_one "$@"' _ {}
fi
wait $bpid
wait $hpid || { echo "harness build failed"; exit 1; }
stamp "built $(ls $B/so/*.so | wc -l) solutions"

run_one() {
    IFS='|' read -r lab label src flags hflags <<<"$1"
    if late; then echo "---- $lab $label skipped: past the deadline"; return; fi
    so=$B/so/${lab}__${label//:/_}.so
    [ -f "$so" ] || { echo "RESULT {\"lab\":\"$lab\",\"solution\":\"$label\",\"verdict\":\"compile_error\"}" >>"$RES"; return; }
    echo "---- $lab $label $flags"
    # shellcheck disable=SC2086
    timeout 120 $B/mem_labs $lab $B/$lab.txt "$so" --seed $SEED $hflags >$B/run.txt 2>&1
    rc=$?
    grep -v '^BENCH\|^RESULT' $B/run.txt
    grep '^BENCH\|^RESULT' $B/run.txt | sed "s|\"solution\":\"[^\"]*\"|\"solution\":\"$label\"|" >>"$RES"
    v=crash; [ $rc = 124 ] && v=timeout
    grep -q '^RESULT' $B/run.txt || echo "RESULT {\"lab\":\"$lab\",\"solution\":\"$label\",\"verdict\":\"$v\",\"rc\":$rc}" >>"$RES"
}

# ---- 2. harness: references
$B/mem_labs copy
grep '|reference|' $B/solutions.txt | while read -r s; do run_one "$s"; done
stamp "harness: references done"

# ---- 3. harness: variants
grep '|variant:' $B/solutions.txt | while read -r s; do run_one "$s"; done
stamp "harness: variants done"

# ---- 4. engine: references and peers side by side; the best layernorm variant
if [ -x "$CL" ] && ! late; then
    CUDALAB=$CL OUT=$OUT/sbs timeout 200 bash bench/side_by_side.sh transpose softmax layernorm
    cp $OUT/sbs/*.peers.jsonl $OUT/ 2>/dev/null
    cat $OUT/sbs/*.peers.jsonl >$OUT/peers.jsonl 2>/dev/null
    stamp "engine: side by side done"
    best=$(python3 - "$RES" <<'PY'
import json, sys
rows = [json.loads(l.split(" ", 1)[1]) for l in open(sys.argv[1]) if l.startswith("BENCH ")]
ok = {json.loads(l.split(" ", 1)[1])["solution"] for l in open(sys.argv[1])
      if l.startswith("RESULT ") and json.loads(l.split(" ", 1)[1])["verdict"] in ("pass", "good", "excellent")}
ln = [r for r in rows if r["lab"] == "layernorm" and "32768" in r["case"] and r["solution"] in ok]
ref = max((r["gbps"] for r in ln if r["solution"] in ("reference", "variant:repeat")), default=0)
var = max((r for r in ln if r["solution"].startswith("variant:") and r["solution"] != "variant:repeat"),
          key=lambda r: r["gbps"], default=None)
print(var["solution"].split(":")[1] if var and var["gbps"] > 1.02 * ref else "")
PY
)
    if [ -n "$best" ] && ! late; then
        src=$(grep "^layernorm|variant:$best|" $B/solutions.txt | cut -d'|' -f3)
        flags=$(grep "^layernorm|variant:$best|" $B/solutions.txt | cut -d'|' -f4)
        mkdir -p /tmp/lnvar
        { for d in $flags; do echo "#define ${d#-D}" | sed 's/=/ /'; done
          echo "#include \"$ROOT/$src\""; } >/tmp/lnvar/layernorm_$best.cu
        echo "== engine: layernorm variant $best ($flags)"
        timeout 120 "$CL" bench layernorm /tmp/lnvar/layernorm_$best.cu --json >$OUT/layernorm.variant.json
        python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ", r["verdict"], "-", r.get("message"))
for c in r.get("cases", []):
    b = c.get("bench")
    if b: print("  ", c["name"], round(b.get("median_ms", 0), 4), "ms", round(100 * (b.get("fraction") or 0), 1), "%")' \
            $OUT/layernorm.variant.json
    fi
fi

# ---- 5. engine: the GPU suite for these labs
if [ -x "$CL" ]; then
    : >$OUT/engine_suite.txt
    for lab in transpose softmax layernorm; do
        for f in labs/$lab/$lab.cu tests/planted/$lab/*.cu; do
            late && break 2
            if [ "$f" = labs/$lab/$lab.cu ]; then
                args="wrong --mode test"
            else
                args="--from-file --timeout 60"
            fi
            # shellcheck disable=SC2086
            timeout 100 python3 tests/gpu/check_verdict.py "$CL" $lab "$f" $args >$B/cv.txt 2>&1
            echo "SUITE rc=$? $(head -1 $B/cv.txt)" | tee -a $OUT/engine_suite.txt
            sed -n '2,6p' $B/cv.txt
        done
    done
    stamp "engine: GPU suite done"
fi

# ---- 6. harness: skeletons and planted
if [ $HARNESS_PLANTED = 1 ]; then
    grep '|skeleton|\||planted:' $B/solutions.txt | while read -r s; do run_one "$s"; done
    stamp "harness: skeletons and planted done"
fi

# ---- 7. compute-sanitizer on the references' correctness cases
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

if [ ! -s "$OUT/peers.jsonl" ] && ! late; then # no engine run: the peers on their own
    for lab in transpose softmax layernorm; do
        timeout 120 python3 bench/peers/$lab.py >>$OUT/peers.jsonl || echo "peer $lab failed"
    done
fi
python3 bench/dev/summarize.py "$RES" "$OUT/peers.jsonl" tests/planted | tee $OUT/summary.txt
[ -f $OUT/sbs/table.md ] && cat $OUT/sbs/table.md
stamp "done"
