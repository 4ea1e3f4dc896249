#!/bin/sh
# bench/dev/build.sh OUTDIR: builds the gemm dev harness and every solution variant the
# device run times, the way the engine builds solutions (nvcc -O3 -shared -fPIC).
# Runs anywhere nvcc 13 is (no GPU needed); OUTDIR/run.sh then runs them on the GPU.
set -eu
out=${1:?usage: build.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out/lib" "$out/bin"
SO="nvcc -O3 -shared -Xcompiler -fPIC -I $root/labs/include"
SM90A="-gencode=arch=compute_90a,code=sm_90a"
nvcc -O2 -arch=sm_90 -o "$out/bin/gemm_dev" "$root/bench/dev/gemm_dev.cu" -I "$root/grader/include" \
    -I "$root/labs/include" -lcublas -ldl -Xlinker --export-dynamic
for f in "$root"/labs/gemm/ladder/*.cu; do
    n=$(basename "$f" .cu)
    case $n in 08_*) arch=$SM90A ;; *) arch=-arch=sm_90 ;; esac
    $SO $arch -o "$out/lib/$n.so" "$f" &
done
$SO $SM90A -o "$out/lib/ref.so" "$root/reference/gemm.cu" &
$SO $SM90A -DGEMM_CLUSTER=1 -o "$out/lib/ref_c1.so" "$root/reference/gemm.cu" &
$SO $SM90A -DGEMM_SWAP_B_OFFSETS -o "$out/lib/ref_swap.so" "$root/reference/gemm.cu" &
$SO -arch=sm_90 -o "$out/lib/ref_sm90.so" "$root/reference/gemm.cu" &   # no 'a': the mma.sync path
wait
cp "$root/bench/dev/run.sh" "$root/bench/peers/gemm.py" "$out/"
ls -la "$out/lib" "$out/bin"
