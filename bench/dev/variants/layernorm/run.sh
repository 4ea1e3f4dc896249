#!/usr/bin/env bash
# Device run of the layernorm variants (issue 17), from the repository root:
#   OUT=/tmp/out bash bench/dev/variants/layernorm/run.sh
# Compiles layernorm_variants.cu for the local GPU (sm_90a on an H100), runs it (reference,
# candidates, cudaMemcpy ceiling, CPU-checked).
# Output: $OUT/layernorm.txt.
set -euo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BIN=$(mktemp -d)/layernorm_variants
ARCH=${ARCH:--gencode arch=compute_90a,code=sm_90a}
{
    echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo nogit) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    t0=$(date +%s)
    nvcc -std=c++17 -O3 $ARCH -I. -Ilabs/include -Igrader/include -Xcompiler -fopenmp \
        bench/dev/variants/layernorm/layernorm_variants.cu -o "$BIN" -lgomp -lcuda
    echo "# compiled in $(( $(date +%s) - t0 )) s"
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-16} "$BIN" "${RUNS:-30}" || echo "# layernorm_variants exited with $?"
    echo "# total $(( $(date +%s) - t0 )) s"
} 2>&1 | tee "$OUT/layernorm.txt"
