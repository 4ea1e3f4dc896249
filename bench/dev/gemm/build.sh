#!/bin/sh
# bench/dev/gemm/build.sh OUTDIR [PLAN]: builds the gemm dev harness and every solution variant
# the device run times, the way the engine builds solutions (nvcc -O3 -shared -fPIC), and
# copies run.sh, the plan (default bench/dev/gemm/plan.txt) and the PyTorch peer next to them;
# with cudalab built in build/, also what run_engine.sh needs (bin/cudalab*, home/).
# Runs anywhere nvcc 13 is (no GPU needed); OUTDIR/run.sh then runs the plan on the GPU.
set -eu
out=${1:?usage: build.sh OUTDIR [PLAN]}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
plan=${2:-$here/plan.txt}
mkdir -p "$out/lib" "$out/bin"
SO="nvcc -O3 -shared -Xcompiler -fPIC -I $root/labs/include"
SM90A="-gencode=arch=compute_90a,code=sm_90a"
REF=$root/reference/gemm.cu
nvcc -O2 -arch=sm_90 -o "$out/bin/gemm_dev" "$here/gemm_dev.cu" -I "$root/grader/include" \
    -I "$root/labs/include" -lcublas -ldl -Xlinker --export-dynamic
for f in "$root"/labs/gemm/ladder/*.cu; do
    n=$(basename "$f" .cu)
    case $n in 08_*) arch=$SM90A ;; *) arch=-arch=sm_90 ;; esac
    $SO $arch -o "$out/lib/$n.so" "$f" &
done
$SO $SM90A -o "$out/lib/reference.so" "$REF" &                     # exactly as shipped
$SO $SM90A -DGEMM_CLUSTER=1 -o "$out/lib/ref_c1.so" "$REF" &        # ladder rung 10
$SO $SM90A -DGEMM_TMA_STORE=0 -o "$out/lib/ref_direct.so" "$REF" &
$SO $SM90A -DGEMM_CLUSTER=1 -DGEMM_TMA_STORE=0 -o "$out/lib/ref_c1_direct.so" "$REF" &   # rung 9
$SO -arch=sm_90 -o "$out/lib/ref_sm90.so" "$REF" &   # no 'a': the mma.sync path on the H100
wait
cp "$here/run.sh" "$root/bench/peers/gemm.py" "$root/bench/peers/_timing.py" "$out/"
cp "$plan" "$out/plan.txt"
cp "$here/run_engine.sh" "$out/"
# for run_engine.sh: cudalab's own binaries (built in build/) and the lab's files
if [ -x "$root/build/cudalab" ]; then
    cp "$root/build/cudalab" "$root/build/cudalab-run" "$root/build/cudalab-probe" "$out/bin/"
    mkdir -p "$out/home/labs" "$out/home/reference" "$out/home/tests/planted" "$out/home/tests/gpu" \
        "$out/home/bench/peers"
    cp -r "$root/labs/gemm" "$out/home/labs/"
    cp "$root/reference/gemm.cu" "$out/home/reference/"
    cp -r "$root/tests/planted/gemm" "$out/home/tests/planted/"
    cp "$root/tests/gpu/check_verdict.py" "$out/home/tests/gpu/"
    cp "$root/bench/peers/gemm.py" "$root/bench/peers/_timing.py" "$out/home/bench/peers/"
fi
ls -la "$out/lib"
