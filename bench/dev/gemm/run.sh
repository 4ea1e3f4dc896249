#!/bin/bash
# bench/dev/gemm/run.sh (device side): SASS check, correctness and timing of every gemm variant
# built by build.sh, cuBLAS and the PyTorch peer, all in one call. Run from the folder
# build.sh filled; writes results.jsonl, log.txt, sass.txt and table.txt to $OUT (or .).
# What runs is plan.txt (see below).
cd "$(dirname "$0")"
out=${OUT:-.}
exec > >(tee -a "$out/log.txt") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,temperature.gpu,power.draw --format=csv
cublas_dir=$(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null)
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${cublas_dir}:${LD_LIBRARY_PATH:-}

{
    echo "instruction counts per library (cuobjdump -sass):"
    for so in lib/*.so; do
        cuobjdump -sass "$so" > /tmp/sass.$$ 2>&1
        printf "%-22s HGMMA %5d  HMMA %5d  FFMA %6d  UTMALDG %3d  LDSM %4d  LDGSTS %4d  STL %3d  LDL %3d\n" \
            "$(basename "$so" .so)" "$(grep -c HGMMA /tmp/sass.$$)" "$(grep -c HMMA /tmp/sass.$$)" \
            "$(grep -c FFMA /tmp/sass.$$)" "$(grep -c UTMALDG /tmp/sass.$$)" "$(grep -c LDSM /tmp/sass.$$)" \
            "$(grep -c LDGSTS /tmp/sass.$$)" "$(grep -c 'STL' /tmp/sass.$$)" "$(grep -c 'LDL' /tmp/sass.$$)"
    done
    echo; echo "reference.so: HGMMA, barrier, TMA and setmaxnreg lines:"
    cuobjdump -sass lib/reference.so 2>&1 |
        grep -E "HGMMA|SYNCS|UTMALDG|WARPGROUP|USETMAXREG|BAR" | head -80
} > "$out/sass.txt" 2>&1
head -20 "$out/sass.txt"

# plan.txt: one line per run: name, library (or "cublas", or "-" for the PyTorch peer),
# bench selection (all | 4096 | none), then VAR=value settings for that run.
grep -v '^#' plan.txt | while read -r name lib sel envs; do
    [ -n "$name" ] || continue
    echo "== $name"
    if [ "$lib" = "-" ]; then
        timeout 120 python3 gemm.py |
            sed 's/^{/{"kind":"peer",/' >> "$out/results.jsonl"
        continue
    fi
    if [ "$lib" = cublas ]; then set -- cublas; else set -- "$lib" "$name"; fi
    env $envs timeout 150 ./bin/gemm_dev "$@" --bench "$sel" --runs 30 < /dev/null >> "$out/results.jsonl"
    echo "   exit $?"
done
python3 - "$out/results.jsonl" <<'PY' | tee "$out/table.txt"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
bad = [r for r in rows if r.get("kind") == "check" and not r.get("ok")]
print("correctness failures:", len(bad))
for r in bad[:40]:
    print("  ", r)
sums = [r for r in rows if r.get("kind") == "summary"]
for r in sums:
    print(f"  {r['name']:<20} checks {r['checks']:3d} failed {r['failed']}")
cub = {(r["M"], r["N"], r["K"]): r["tflops"] for r in rows if r.get("kind") == "bench" and r["name"] == "cublas"}
print(f"\n{'kernel':<20} {'shape':>16} {'ms':>9} {'TFLOP/s':>8} {'vs cuBLAS':>9}")
for r in rows:
    if r.get("kind") != "bench":
        continue
    key = (r["M"], r["N"], r["K"])
    frac = r["tflops"] / cub[key] if key in cub else float("nan")
    shape = f"{r['M']}x{r['N']}x{r['K']}"
    print(f"{r['name']:<20} {shape:>16} {r['median_ms']:9.3f} {r['tflops']:8.1f} {frac:9.3f}")
for r in rows:
    if r.get("kind") == "peer":
        print(f"peer {r.get('shape')}: {r.get('median_ms')} ms, {r.get('tflops')} TFLOP/s")
PY
