#!/usr/bin/env bash
# grader_side_by_side.sh OLD NEW [LAB...]: the same references graded by two builds of
# cudalab on the same warm GPU, alternating old and new lab by lab (then a second round while
# time is left), so that a change to the grader can be shown not to move any figure.
# OLD and NEW are folders holding a build's cudalab, cudalab-run (and cudalab-exec).
# OLD_HOME: the old build's checkout (its labs/, reference/), when the lab files changed.
# Writes $OUT/compare.md (the table, rewritten after every lab) and the raw JSON beside it.
#   BUDGET_S (default 540): stop starting new runs after this many seconds.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/env.sh
source "$here/env.sh"
bench_env
old=$1 new=$2; shift 2
labs=("$@")
((${#labs[@]})) || labs=(reduce transpose softmax layernorm iou nms topo_sort gemm paged_attention)
budget=${BUDGET_S:-540}
start=$SECONDS
# (absolute: cudalab compiles in a folder of its own)
home() { if [[ $1 == old ]]; then (cd "${OLD_HOME:-$CUDALAB_HOME}" && pwd); else echo "$CUDALAB_HOME"; fi; }
for side in new old; do dir=$new; [[ $side == old ]] && dir=$old   # each build measures its own ceilings, in its own cache
  CUDALAB_HOME=$(home $side) XDG_CACHE_HOME=/tmp/cl-cache-$side "$dir/cudalab" device --json > "$out/device.$side" || { echo "no GPU: nothing to measure"; exit 3; }
done
for round in 1 2; do
  for lab in "${labs[@]}"; do
    for side in new old; do
      (( SECONDS - start > budget )) && break 3
      dir=$new; [[ $side == old ]] && dir=$old
      t0=$SECONDS
      CUDALAB_HOME=$(home $side) XDG_CACHE_HOME=/tmp/cl-cache-$side timeout 200 "$dir/cudalab" bench "$lab" --reference --json > "$out/$side.$lab.$round.json" 2> "$out/$side.$lab.$round.err"
      echo "round $round $side $lab rc=$? $((SECONDS - t0)) s"
    done
    python3 "$here/grader_compare.py" "$out" > "$out/compare.md"
  done
done
cat "$out/compare.md"
