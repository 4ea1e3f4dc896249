#!/usr/bin/env bash
# Device run of the softmax variants (issue 17), from the repository root:
#   OUT=/tmp/out bash bench/dev/variants/softmax/run.sh
# Compiles softmax_variants.cu for the local GPU (sm_90a on an H100), runs it (reference,
# candidates, cudaMemcpy ceiling, CPU-checked), then torch.softmax's peer script.
# Output: $OUT/softmax.txt.
set -euo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
BIN=$(mktemp -d)/softmax_variants
ARCH=${ARCH:--gencode arch=compute_90a,code=sm_90a}
{
    echo "# $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null || echo nogit) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    t0=$(date +%s)
    nvcc -std=c++17 -O3 $ARCH -I. -Ilabs/include -Igrader/include -Xcompiler -fopenmp \
        bench/dev/variants/softmax/softmax_variants.cu -o "$BIN" -lgomp
    echo "# compiled in $(( $(date +%s) - t0 )) s"
    OMP_NUM_THREADS=${OMP_NUM_THREADS:-16} "$BIN" "${RUNS:-30}" || echo "# softmax_variants exited with $?"
    echo
    echo "# torch.softmax peer (bench/peers/softmax.py)"
    (cd bench/peers && python3 softmax.py) || echo "# peer failed"
    echo "# total $(( $(date +%s) - t0 )) s"
} 2>&1 | tee "$OUT/softmax.txt"
