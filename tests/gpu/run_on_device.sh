#!/usr/bin/env bash
# run_on_device.sh [-R REGEX] [--bench LAB...]: the GPU suite and the side-by-side numbers
# in one device call. The build directory is carried from the build machine, where its
# paths are /work/main/...; a symlink makes them valid here too. Results go to $OUT.
set -u -o pipefail
regex=.
benches=()
while [[ $# -gt 0 ]]; do
  case $1 in
    -R) regex=$2; shift 2 ;;
    --bench) shift; while [[ $# -gt 0 && $1 != -* ]]; do benches+=("$1"); shift; done ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
# shellcheck source=bench/env.sh
source "$(dirname "$0")/../../bench/env.sh"
device_env /tmp/gpu-out || exit 2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$out/gpu.txt"
build/cudalab device --json > "$out/device.json" && python3 -c 'import json;d=json.load(open("'"$out"'/device.json"));print("copy", round(d["copy_gbps"]), "GB/s; kernel", round(d.get("copy_kernel_gbps",0)), "; memcpy", round(d["memcpy_gbps"]), "; cuBLAS", round(d["fp16_tflops"]))'
(cd build && ctest -L gpu -R "$regex" --output-on-failure --timeout 400 2>&1) > "$out/ctest.txt"
grep -E "tests passed|Failed|\*\*\*|Not Run" "$out/ctest.txt" | head -40
if ((${#benches[@]})); then
  OUT=$out bash bench/side_by_side.sh "${benches[@]}" > "$out/side.txt" 2>&1
  tail -25 "$out/side.txt"
fi
