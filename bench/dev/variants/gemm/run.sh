#!/usr/bin/env bash
# bench/dev/variants/gemm/run.sh: the gemm reference's configurations at small and odd shapes
# (issue 17), next to cuBLAS in the same process (bench/shapes/gemm_shapes.cu), on an H100.
#   bash bench/dev/variants/gemm/run.sh            (from the repository root; OUT=/tmp/out)
# Builds gemm_shapes once per configuration (in parallel), runs each on its shapes, one after
# the other, and writes $OUT/gemm.txt (a table of reference/cuBLAS speed per shape and build,
# then every readable result line) and $OUT/gemm.jsonl (the JSON lines).
# Every result is checked (against cuBLAS, and sampled elements against fp64 with the lab's
# bound); a wrong one says WRONG in its line and in the table, and the script exits 1.
#
# Builds (the reference's -D options force one configuration; default: its heuristic):
#   before     the reference as it was before the small-shape work (git show ${BEFORE:-c578743}:reference/gemm.cu)
#   default    the reference now: heuristic choice of tile width / split-K
#   hBN[sS].mBN sS   forced: Hopper path (runs where N % 8 == 0) with 128 x BN tiles, split-K S
#              (h256 = today's configuration), and mma.sync path (runs where N % 8 != 0) with
#              128 x BN tiles, split-K S (m128s1 = today's tiles, but the new register-staged
#              loads); one build carries both, as the two paths never meet on an H100
#   jit80 jit75        compute_80 / compute_75 PTX only, JIT-compiled on the H100: the paths of
#                      older GPUs (mma.sync + cp.async, and sm_75's m16n8k8 + synchronous loads)
#                      with their heuristic, including split-K and the N % 8 == 0 vector path
set -u
cd "$(dirname "$0")/../../../.."
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B=$(mktemp -d /tmp/gemm_variants.XXXXXX)
t0=$(date +%s)

CFLAGS=(-O3 -std=c++17 -Ilabs/include -Igrader/include -Ibench/peers)
H=(-gencode arch=compute_90a,code=sm_90a)
build() { # name, extra nvcc flags...
  local name=$1
  shift
  nvcc "${CFLAGS[@]}" "$@" -DGEMM_VARIANT="\"$name\"" bench/shapes/gemm_shapes.cu -lcublas -lcuda \
    -o "$B/$name" > "$B/$name.log" 2>&1 || echo "BUILD FAILED: $name" >> "$B/failed"
}
git show "${BEFORE:-c578743}:reference/gemm.cu" > "$B/gemm_before.cu"
build before "${H[@]}" -DGEMM_REF_PATH="\"$B/gemm_before.cu\"" &
build default "${H[@]}" &
# each forced build pairs a Hopper configuration (N % 8 == 0 shapes) with a mma.sync one
# (N % 8 != 0 shapes): the two never meet on an H100, and half the builds compile faster
build h256.m128s1 "${H[@]}" -DGEMM_SM90_BN=256 -DGEMM_SM80_BN=128 -DGEMM_SM80_SPLIT=1 &
build h128.m128s4 "${H[@]}" -DGEMM_SM90_BN=128 -DGEMM_SM80_BN=128 -DGEMM_SM80_SPLIT=4 &
build h64.m64s1 "${H[@]}" -DGEMM_SM90_BN=64 -DGEMM_SM80_BN=64 -DGEMM_SM80_SPLIT=1 &
build h128s2.m64s2 "${H[@]}" -DGEMM_SM90_BN=128 -DGEMM_SM90_SPLIT=2 -DGEMM_SM80_BN=64 -DGEMM_SM80_SPLIT=2 &
build h128s4.m64s4 "${H[@]}" -DGEMM_SM90_BN=128 -DGEMM_SM90_SPLIT=4 -DGEMM_SM80_BN=64 -DGEMM_SM80_SPLIT=4 &
build h64s2.m64s8 "${H[@]}" -DGEMM_SM90_BN=64 -DGEMM_SM90_SPLIT=2 -DGEMM_SM80_BN=64 -DGEMM_SM80_SPLIT=8 &
build jit80 -gencode arch=compute_80,code=compute_80 &
build jit75 -gencode arch=compute_75,code=compute_75 &
wait
t1=$(date +%s)
echo "builds: $((t1 - t0)) s" > "$B/summary"
[[ -f $B/failed ]] && cat "$B/failed" "$B"/*.log >> "$B/summary"

# shapes: the issue's, then small/odd ones; the lab's test cases (labs/gemm/lab.yaml)
ISSUE="1024,1024,1024 127,4099,520 4096,4096,4096 8192,8192,8192 4096,14336,4096"
SMALL="512,512,512 2048,2048,2048 1024,1024,4096 4096,4096,512 127,4096,520 8192,8192,2048 127,4099,4096"
LAB="1,1,8 17,17,16 127,129,72 256,256,8 1000,17,256 17,1000,256 4096,1,512 1,4096,512 3000,24,2048
     33,4000,520 1000,1000,1024 513,264,2056 300,1000,4096 512,512,8192,pos 4095,4097,512 2048,2048,4096"
# Hopper-path shapes (N % 8 == 0) where the tile width may matter, and the mma.sync ones (N odd)
H_SHAPES="1024,1024,1024 512,512,512 2048,2048,2048 1024,1024,4096 4096,4096,512 127,4096,520 4096,4096,4096
          17,1000,256 3000,24,2048 33,4000,520 1000,1000,1024 513,264,2056 1,4096,512"
M_SHAPES="127,4099,520 127,4099,4096 4095,4097,512 1000,17,256 127,129,72 4096,1,512 17,17,16 1,1,8
          1000,1001,1024 2047,2049,2048 512,513,8192,pos"
JIT_SHAPES="$LAB 1024,1024,1024 127,4099,520 127,4096,520 4096,4096,512"

run() { # name, shapes...
  local name=$1
  shift
  if [[ ! -x $B/$name ]]; then
    echo "ROW $name: not built" >> "$B/rows"
    return
  fi
  timeout 60 "$B/$name" "$@" >> "$B/jsonl" 2> "$B/$name.err"
  local rc=$?
  grep '^ROW' "$B/$name.err" >> "$B/rows"
  grep -v '^ROW' "$B/$name.err" >> "$B/errors"
  [[ $rc -ne 0 ]] && echo "$name: exit $rc" >> "$B/errors"
}
run default $ISSUE $SMALL $LAB
run before $ISSUE $SMALL
for v in h256.m128s1 h128.m128s4 h64.m64s1 h128s2.m64s2 h128s4.m64s4 h64s2.m64s8; do run $v $H_SHAPES $M_SHAPES; done
run jit80 $JIT_SHAPES
run jit75 $JIT_SHAPES
t2=$(date +%s)
echo "runs: $((t2 - t1)) s, total $((t2 - t0)) s" >> "$B/summary"

{
  echo "# gemm variants (bench/dev/variants/gemm/run.sh), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  cat "$B/summary"
  echo
  echo "## reference/cuBLAS speed (> 1: faster than cuBLAS; cuBLAS timed in the same process), '!' = WRONG"
  python3 - "$B/rows" << 'EOF' || echo "(no table: python3 failed)"
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if l.startswith("ROW ") and "speed" in l]
order, shapes, cell = [], [], {}
for r in rows:
    v = r[1]
    i = r.index("ref")
    shape = " ".join(r[2:i])
    ratio = r[r.index("speed") + 1]
    ms = r[i + 1]
    wrong = "WRONG" in r
    if v not in order: order.append(v)
    if shape not in shapes: shapes.append(shape)
    cell[(shape, v)] = ("!" if wrong else "") + ratio + " " + ms
print("%-20s" % "shape (ratio ms)" + "".join("%-18s" % v for v in order))
for s in shapes:
    print("%-20s" % s + "".join("%-18s" % cell.get((s, v), "-") for v in order))
EOF
  echo
  echo "## every result"
  cat "$B/rows"
  if [[ -s $B/errors ]]; then
    echo
    echo "## stderr (other than result lines)"
    cat "$B/errors"
  fi
} > "$OUT/gemm.txt"
cp "$B/jsonl" "$OUT/gemm.jsonl" 2> /dev/null
cat "$OUT/gemm.txt"
if grep -q WRONG "$B/rows" || [[ -f $B/failed ]] || grep -q "exit" "$B/errors" 2> /dev/null; then exit 1; fi
exit 0
