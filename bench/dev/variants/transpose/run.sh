#!/usr/bin/env bash
# Transpose variants next to cudaMemcpy D2D, one process (issue 17). Run from the repository
# root on the GPU machine:  OUT=/tmp/out bash bench/dev/variants/transpose/run.sh
# Writes $OUT/transpose.txt (and the binary's build log). ~40-70 s on an H100 incl. nvcc.
set -euo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
here=bench/dev/variants/transpose
bin=$(mktemp -d)/transpose_variants
arch=${ARCH:--gencode arch=compute_90a,code=sm_90a}
t0=$(date +%s)
nvcc -std=c++17 -O3 $arch -Ilabs/include -Igrader/include -o "$bin" "$here/transpose_variants.cu" 2>&1 | tee "$OUT/transpose_build.log"
echo "# nvcc: $(( $(date +%s) - t0 )) s" | tee "$OUT/transpose.txt"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader >> "$OUT/transpose.txt" 2>/dev/null || true
rc=0
"$bin" "${RUNS:-30}" 2>&1 | tee -a "$OUT/transpose.txt" || rc=$?
echo "# total: $(( $(date +%s) - t0 )) s, rc $rc" | tee -a "$OUT/transpose.txt"
exit $rc
