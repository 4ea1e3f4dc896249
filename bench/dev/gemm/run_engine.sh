#!/bin/bash
# bench/dev/gemm/run_engine.sh (device side): the gemm lab's GPU checks through cudalab itself,
# for a device tree that lacks the lab: copies the carried lab files into the tree it runs
# in, then, with the carried cudalab binaries:
#   1. cudalab device (ceilings), 2. the reference through `cudalab submit` (must be
#   excellent), 3. the PyTorch peer, 4. the skeleton (wrong) and every planted solution
#   (their '// expect:' verdicts), 5. every ladder rung (correct), 6. the reference under
#   compute-sanitizer, 7. the dev harness's timings (cuBLAS, reference, ladder).
# Usage, from the tree's root: bash .carry/NAME/run_engine.sh   (results under $OUT)
set -u
carry=$(cd "$(dirname "$0")" && pwd)
root=$PWD
out=${OUT:-$root/engine-out}
mkdir -p "$out"
exec > >(tee -a "$out/engine_log.txt") 2>&1
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }

cp -r "$carry/home/labs/gemm" labs/
cp "$carry/home/reference/gemm.cu" reference/
mkdir -p tests/planted/gemm bench/peers
cp "$carry/home/tests/planted/gemm/"*.cu tests/planted/gemm/
cp "$carry/home/tests/gpu/check_verdict.py" tests/gpu/
cp "$carry/home/bench/peers/"*.py bench/peers/
cublas_dir=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${cublas_dir}:${LD_LIBRARY_PATH:-}
export CUDALAB_HOME=$root XDG_CACHE_HOME=/tmp/cl-cache XDG_DATA_HOME=/tmp/cl-data CUDALAB_DB=/tmp/cl.db NO_COLOR=1
export PYTHONUNBUFFERED=1
B=$carry/bin/cudalab
CV="python3 tests/gpu/check_verdict.py $B gemm"

echo "== [$(elapsed)s] device"
timeout 120 "$B" device --json > "$out/device.json"; cat "$out/device.json"; echo

echo "== [$(elapsed)s] reference: cudalab submit (must reach excellent)"
timeout 280 "$B" submit gemm --reference --json > "$out/reference_submit.json"
python3 - "$out/reference_submit.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("verdict", r.get("verdict"), "-", r.get("message"))
for c in r.get("cases", []):
    b = c.get("bench")
    if b:
        print(f"  bench {c['name']}: {b.get('median_ms', 0):.4f} ms, "
              f"{b['flops'] / (b['median_ms'] * 1e-3) / 1e12:.1f} TFLOP/s, ceiling {b.get('ceiling')}, "
              f"fraction {b.get('fraction')}, tier {b.get('tier')}")
    elif c.get("status") != "pass":
        print("  case", c["name"], c.get("status"), c.get("message"))
print("  correctness", r.get("passed"), "/", r.get("total"), " seconds", r.get("seconds"))
PY

echo "== [$(elapsed)s] peer"
(cd bench/peers && timeout 120 python3 gemm.py) | tee "$out/peer.jsonl"

echo "== [$(elapsed)s] skeleton and planted solutions"
$CV labs/gemm/gemm.cu wrong --mode test
for f in tests/planted/gemm/*.cu; do
    t=$(sed -n 's#^// expect-timeout: \([0-9]*\).*#\1#p' "$f" | head -1)
    $CV "$f" --from-file --timeout "${t:-30}"
done

echo "== [$(elapsed)s] ladder (correctness)"
for f in labs/gemm/ladder/*.cu; do $CV "$f" correct --mode test; done

if [ "$(elapsed)" -lt 200 ]; then
    echo "== [$(elapsed)s] reference under compute-sanitizer (test cases)"
    timeout 90 "$B" test gemm --reference --sanitize 2>&1 | tail -8
fi
if [ "$(elapsed)" -lt 220 ]; then
    echo "== [$(elapsed)s] dev harness"
    (cd "$carry" && OUT=$out timeout 60 bash run.sh > /dev/null 2>&1; tail -30 "$out/table.txt")
fi
echo "== [$(elapsed)s] done"
