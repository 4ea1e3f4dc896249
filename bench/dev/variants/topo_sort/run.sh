#!/bin/bash
# run.sh: builds and runs the topo_sort variants harness (issue 17). From the repository root:
#   bash bench/dev/variants/topo_sort/run.sh        (OUT defaults to /tmp/out)
# Writes $OUT/topo_sort.txt. Needs only nvcc and a GPU; < 90 s on an H100 with the compile.
set -euo pipefail
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
HERE=bench/dev/variants/topo_sort
BIN=$(mktemp -d)/topo_variants
ARCH=${ARCH:--gencode arch=compute_90a,code=sm_90a}
{
    echo "# topo_sort variants: $(date -u +%FT%TZ), git $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
    t0=$(date +%s)
    nvcc -std=c++17 -O3 $ARCH -I. -Ilabs/include -Igrader/include -o "$BIN" "$HERE/topo_variants.cu"
    echo "# compiled in $(( $(date +%s) - t0 )) s"
    timeout 70 "$BIN" "${RUNS:-30}"
    echo "# done in $(( $(date +%s) - t0 )) s"
} 2>&1 | tee "$OUT/topo_sort.txt"
exit "${PIPESTATUS[0]}"
