#!/bin/bash
# pack_det.sh DEST: everything the GPU machine needs to grade the det labs, built here
# (no GPU needed): DEST/bin (cudalab, cudalab-run, cudalab-probe from ./build), DEST/home
# (a CUDALAB_HOME with the det labs, references, planted solutions, peers and the GPU
# test script), DEST/cache (the engine's compile cache, prefilled for sm_90), DEST/kit
# (det_dev and its solutions, see build_det.sh). Then, on the GPU machine:
#   bench/dev/det/run_gpu_det.sh DEST RESULTS
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
D=${1:?usage: pack_det.sh DEST}
rm -rf "$D"
mkdir -p "$D/bin" "$D/home/tests/planted" "$D/home/tests/gpu" "$D/home/bench/peers" "$D/cache"
cp "$ROOT"/build/cudalab "$ROOT"/build/cudalab-run "$ROOT"/build/cudalab-probe "$D/bin/"
cp -r "$ROOT/labs" "$ROOT/reference" "$D/home/"
cp -r "$ROOT/tests/planted/iou" "$ROOT/tests/planted/nms" "$D/home/tests/planted/"
cp "$ROOT/tests/gpu/check_verdict.py" "$D/home/tests/gpu/"
cp "$ROOT"/bench/side_by_side.sh "$ROOT"/bench/table.py "$D/home/bench/"
cp "$ROOT"/bench/peers/*.py "$D/home/bench/peers/"
cp "$ROOT/bench/dev/det/run_gpu_det.sh" "$D/"
# the compile cache: the engine keys it by source, header, flags, target and nvcc version,
# so these hit on a GPU machine with the same nvcc (else it just compiles)
(
    export XDG_CACHE_HOME="$D/cache" CUDALAB_HOME="$D/home" XDG_DATA_HOME=$(mktemp -d)
    for lab in iou nms; do
        "$D/bin/cudalab" compile $lab --reference --arch sm_90 --json >/dev/null
        "$D/bin/cudalab" compile $lab --skeleton --arch sm_90 --json >/dev/null
        for f in "$D"/home/tests/planted/$lab/*.cu; do
            "$D/bin/cudalab" compile $lab "$f" --arch sm_90 --json >/dev/null || true
        done
    done
)
"$ROOT/bench/dev/det/build_det.sh" "$D/kit"
du -sh "$D"
