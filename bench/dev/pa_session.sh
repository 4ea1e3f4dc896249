#!/usr/bin/env bash
# pa_session.sh: one device call for paged_attention: the GPU suite, the engine's bench next
# to SDPA, the reference on the other shapes, SDPA on them, and the load-only kernels.
# Build first (on the build machine), then carry build/:
#   cmake --build build && nvcc -O3 -std=c++17 -arch=sm_90 -Ilabs/include \
#     -DPA_SRC='"../../reference/paged_attention.cu"' bench/dev/pa_probe.cu -o build/probe/pa_probe
# Results under $OUT (docs/PERFORMANCE.md, "paged_attention, third pass").
set -u
export OUT=${OUT:-/tmp/pa-session}; O=$OUT; P=build/probe
mkdir -p "$O"
bash bench/device_session.sh suite paged side paged_attention
echo "== probe shapes"
for sh in "64 32 8 128 16 4096" "64 32 32 128 16 4096" "64 32 8 64 32 4096" "1 32 8 128 16 32768" "256 32 8 128 16 1024"; do
  $P/pa_probe shape $sh
done | tee "$O/probe_shapes.txt"
echo "== SDPA, all shapes"
(cd bench/peers && timeout 150 python3 paged_attention.py --all-shapes 2>/dev/null) | tee "$O/peer_all.jsonl"
echo "== load-only kernels"
PA_PROBE_CTX=4096 timeout 100 $P/pa_probe 8 | tee "$O/probe_loads.txt"
