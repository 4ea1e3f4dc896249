#!/bin/bash
# bench/dev/variants/reduce/run.sh: reduce reference, kernel variants and CUB, alternating
# (issue 17). From the repository root:  OUT=/tmp/out bash bench/dev/variants/reduce/run.sh
# Writes $OUT/reduce.txt.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=$(mktemp -d /tmp/redvar.XXXXXX)
ARCH=${ARCH:--gencode arch=compute_90a,code=sm_90a}
FLAGS="-O3 -std=c++17 $ARCH -Ilabs/include -Igrader/include -Ibench/peers"
start=$(date +%s)
nvcc $FLAGS -c reference/reduce.cu -o $B/ref.o & p1=$!
nvcc $FLAGS -c bench/dev/variants/reduce/reduce_bench.cu -o $B/main.o & p2=$!
rc=0; wait $p1 || rc=1; wait $p2 || rc=1
[ $rc = 0 ] && nvcc $ARCH $B/ref.o $B/main.o -o $B/reduce_bench || rc=1
{
    echo "# build rc $rc in $(( $(date +%s) - start )) s"
    if [ -x $B/reduce_bench ]; then $B/reduce_bench ${RUNS:-50}; echo "# reduce_bench exit $?"; else echo "# BUILD FAILED"; fi
} 2>&1 | tee "$OUT/reduce.txt"
rm -rf "$B"
