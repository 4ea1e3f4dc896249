#!/bin/bash
# bench/dev/run.sh (device side): SASS check, correctness and timing of every gemm variant
# built by build.sh, cuBLAS and the PyTorch peer, all in one call. Run from the folder
# build.sh filled; writes results.jsonl, log.txt, sass.txt and table.txt to $OUT (or .).
#   ONLY="ref ref_c1" restricts the libraries; SKIP_PEER=1 skips PyTorch.
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
    echo; echo "ref.so, the cluster kernel's main loop (HGMMA and barrier lines):"
    cuobjdump -sass -fun '_ZN4sm9016gemm_sm90_kernelILi2EEEv14CUtensorMap_stS1_P6__halfiii' lib/ref.so 2>&1 |
        grep -E "HGMMA|SYNCS|UTMALDG|WARPGROUP|USETMAXREG|BAR" | head -60
} > "$out/sass.txt" 2>&1
head -20 "$out/sass.txt"

run() { # lib name bench-selection
    echo "== $2"
    timeout 150 ./bin/gemm_dev "$1" "$2" --bench "$3" --runs 30 >> "$out/results.jsonl"
    echo "   exit $?"
}
timeout 150 ./bin/gemm_dev cublas --runs 30 >> "$out/results.jsonl"
libs=${ONLY:-"ref ref_c1 08_wgmma_tma 07_swizzle 06_cp_async 05_mma_ldmatrix 04_wmma 03_register_tiling 02_smem_tiling 01_naive ref_sm90"}
for n in $libs; do
    case $n in 0[1-4]_*|ref_sm90) sel=4096 ;; *) sel=all ;; esac
    run "lib/$n.so" "$n" "$sel"
    if [ "$n" = ref ] && grep -q '"name":"ref".*"ok":false' "$out/results.jsonl"; then
        run lib/ref_swap.so ref_swap all # the other reading of the B descriptor's offsets
    fi
done
if [ -z "${SKIP_PEER:-}" ]; then
    echo "== peer (torch)"
    timeout 120 python3 gemm.py --runs 30 | sed 's/^/{"kind":"peer",/; s/^{"kind":"peer",{/{"kind":"peer",/' >> "$out/results.jsonl"
fi
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
    print(f"{r['name']:<20} {r['M']:>5}x{r['N']:>5}x{r['K']:>5}"[:37].ljust(37) + f" {r['median_ms']:9.3f} {r['tflops']:8.1f} {frac:9.3f}")
for r in rows:
    if r.get("kind") == "peer":
        print(f"peer {r.get('shape')}: {r.get('median_ms')} ms, {r.get('tflops')} TFLOP/s")
PY
