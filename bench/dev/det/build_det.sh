#!/bin/bash
# build_det.sh OUTDIR [ARCH]: builds the det labs' GPU test kit into OUTDIR, on any machine
# with nvcc (no GPU needed): det_dev (the harness, with the real checkers linked in), every
# solution as a shared object the way the engine compiles it (references, skeletons,
# planted bad solutions, calibration variants), plus the lab.yaml files, the planted
# sources (for their "// expect:" lines), the peer scripts and run_det.sh.
# Then run OUTDIR/run_det.sh OUTDIR RESULTS on the GPU machine.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
O=${1:?usage: build_det.sh OUTDIR [ARCH]}
ARCH=${2:-sm_90}
mkdir -p "$O/so" "$O/labs/iou" "$O/labs/nms" "$O/planted/iou" "$O/planted/nms" "$O/peers"
# -cudart shared, here and for det_dev: one CUDA runtime in the process, so a launch error
# inside a solution (an empty grid, say) is visible to the harness's cudaGetLastError. With
# the default static runtime each .so carries its own copy and its own error state.
CUDART="-cudart shared -Xlinker -rpath,/usr/local/cuda/lib64"
SO="nvcc -O3 -arch=$ARCH -shared -Xcompiler -fPIC $CUDART -I $ROOT/labs/include"

gcc -std=c11 -O2 -Wall -Wextra -Wno-unused-parameter -I "$ROOT/grader/include" -I "$ROOT/labs/include" \
    -c "$ROOT/grader/labs/iou.c" -o "$O/iou.o"
gcc -std=c11 -O2 -Wall -Wextra -Wno-unused-parameter -I "$ROOT/grader/include" -I "$ROOT/labs/include" \
    -c "$ROOT/grader/labs/nms.c" -o "$O/nms.o"
nvcc -O2 -arch="$ARCH" -I "$ROOT/grader/include" -I "$ROOT/labs/include" "$ROOT/bench/dev/det/det_dev.cu" \
    "$O/iou.o" "$O/nms.o" -o "$O/det_dev" -Xlinker -export-dynamic -ldl $CUDART
rm -f "$O/iou.o" "$O/nms.o"

jobs=()
build() { $SO "$1" -o "$O/so/$2.so" & jobs+=($!); if [ ${#jobs[@]} -ge 4 ]; then wait "${jobs[0]}"; jobs=("${jobs[@]:1}"); fi; }
for lab in iou nms; do
    build "$ROOT/reference/$lab.cu" "reference_$lab"
    build "$ROOT/labs/$lab/$lab.cu" "skeleton_$lab"
    cp "$ROOT/labs/$lab/lab.yaml" "$O/labs/$lab/"
    for f in "$ROOT"/tests/planted/$lab/*.cu; do
        build "$f" "planted_${lab}_$(basename "$f" .cu)"
        cp "$f" "$O/planted/$lab/"
    done
done
for f in "$ROOT"/bench/dev/det/variants/*.cu; do build "$f" "variant_$(basename "$f" .cu)"; done
# the reference's knobs (see reference/iou.cu): one change each against the reference
SO0=$SO
for knob in IOU_IEEE_DIV=1 IOU_ROWS=32 IOU_ROWS=8 IOU_UNROLL=1 IOU_UNROLL=4 IOU_STREAMING=0 \
            IOU_STORE_ONLY=1 IOU_MIN_BLOCKS=5 IOU_THREADS=128,IOU_MIN_BLOCKS=8 \
            IOU_THREADS=512,IOU_MIN_BLOCKS=2 IOU_ROWS=32,IOU_UNROLL=4; do
    name=$(echo "$knob" | tr 'A-Z=,' 'a-z__')
    SO="$SO0 -D${knob//,/ -D}"
    build "$ROOT/reference/iou.cu" "knob_$name"
done
SO=$SO0
wait
cp "$ROOT"/bench/peers/iou.py "$ROOT"/bench/peers/nms.py "$ROOT"/bench/peers/_timing.py "$O/peers/"
cp "$ROOT/bench/dev/det/run_det.sh" "$O/"
echo "built $(ls "$O/so" | wc -l) solutions into $O"
