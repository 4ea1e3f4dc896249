#!/usr/bin/env bash
# side_by_side.sh LAB...: the numbers of docs/PERFORMANCE.md, measured in one go on one GPU.
#
# For each lab: the reference through `cudalab bench` (same engine as a student's
# submission: correctness first, then the median of >= 20 verified timed runs on fresh
# inputs with L2 flushed) and the lab's PyTorch peer (bench/peers/<lab>.py, the same timing
# rules), next to this GPU's measured ceilings (`cudalab device`). Writes JSON under
# $OUT (or ./bench-out) and prints a markdown table (bench/table.py).
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/env.sh
source "$here/env.sh"
bench_env
export PYTHONUNBUFFERED=1

"$cudalab" device --json > "$out/device.json" || { echo "no GPU: nothing to measure"; exit 3; }
for lab in "$@"; do
  echo "== $lab: reference through cudalab bench"
  "$cudalab" bench "$lab" --reference --json > "$out/$lab.reference.json"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(" ", r["verdict"], "-", r.get("message"))' \
    "$out/$lab.reference.json"
  if [[ -f "$here/peers/$lab.py" ]]; then
    echo "== $lab: peer"
    (cd "$here/peers" && python3 "$lab.py") > "$out/$lab.peers.jsonl" || echo "  peer script failed"
  fi
done
python3 "$here/table.py" "$out" "$@" | tee "$out/table.md"
