#!/usr/bin/env bash
# device_session.sh STEP...: the GPU work of a release, in one device call, most important
# first, each step bounded in time so a slow one cannot starve the rest. Run from the
# repository root with the build directory present (built on a machine with the Debian
# dependencies and carried over). Results under $OUT.
#   suite REGEX        ctest -L gpu -R REGEX (the GPU suite: verdicts of references,
#                      skeletons, planted solutions)
#   side LAB,LAB...    bench/side_by_side.sh: references through cudalab bench + peers
#   class N            bench/classroom_throughput.sh N reduce
#   variant LAB FILE   cudalab bench LAB FILE (a candidate next to the reference)
#   sanitize LAB,...   cudalab test LAB --reference --sanitize
#   submit LAB         time of `cudalab submit LAB --reference` with an empty build cache
#   grader OLD NEW     bench/grader_side_by_side.sh: two builds of cudalab (folders with
#                      cudalab, cudalab-run, cudalab-exec) on the same references, alternating;
#                      OLD_HOME names the old build's checkout when the lab files changed
#   tour DIR           wall time of DIR/cudalab tour (CUDALAB_HOME=OLD_HOME when DIR is OLD)
set -u -o pipefail
# shellcheck source=bench/env.sh
source "$(dirname "$0")/env.sh"
device_env /tmp/device-out || exit 2
cl=build/cudalab
log() { echo "[$(date +%T)] $*"; }
$cl device --json > "$out/device.json" || { echo "no GPU"; exit 3; }
while [[ $# -gt 0 ]]; do
  step=$1; shift
  case $step in
    suite) log "suite $1"; (cd build && timeout 300 ctest -L gpu -R "$1" --output-on-failure --timeout 200) \
             > "$out/suite.txt" 2>&1; grep -E "tests passed|\*\*\*|Not Run" "$out/suite.txt"; shift ;;
    side) log "side $1"; timeout 300 env OUT="$out/side" bash bench/side_by_side.sh ${1//,/ } > "$out/side.txt" 2>&1
          tail -n 20 "$out/side.txt"; shift ;;
    class) log "class $1"; timeout 300 env OUT="$out/class" bash bench/classroom_throughput.sh "$1" reduce \
             > "$out/class.txt" 2>&1; tail -n 8 "$out/class.txt"; shift ;;
    variant) log "variant $1 $2"; n=$(basename "$2" .cu)
             timeout 120 $cl bench "$1" "$2" --no-reference --json > "$out/variant_$n.json" 2>/dev/null
             python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], r["verdict"], [(c["name"], round(c["bench"]["median_ms"], 4), round(100 * c["bench"].get("fraction", 0), 1)) for c in r["cases"] if c.get("bench")])' \
               "$out/variant_$n.json" "$n" 2>&1 | tail -1; shift 2 ;;
    sanitize) for lab in ${1//,/ }; do log "sanitize $lab"
                timeout 150 $cl test "$lab" --reference --sanitize > "$out/sanitize_$lab.txt" 2>&1
                grep -E "memcheck|racecheck|verdict" "$out/sanitize_$lab.txt"; done; shift ;;
    submit) log "submit $1"; ( export XDG_CACHE_HOME=/tmp/cl-fresh; mkdir -p /tmp/cl-fresh/cudalab
              cp /tmp/cl-cache/cudalab/device-*.json /tmp/cl-fresh/cudalab/ 2>/dev/null
              TIMEFORMAT="%R s wall"; time $cl submit "$1" --reference ) > "$out/submit.txt" 2>&1
            tail -n 4 "$out/submit.txt"; shift ;;
    grader) log "grader $1 $2"; timeout 500 env OUT="$out/grader" bash bench/grader_side_by_side.sh "$1" "$2" \
              > "$out/grader.txt" 2>&1; tail -n 20 "$out/grader/compare.md"; shift 2 ;;
    tour) log "tour $1"; h=$CUDALAB_HOME; [[ -n ${OLD_HOME:-} && $1 == *old* ]] && h=$(cd "$OLD_HOME" && pwd)
          t0=$(date +%s.%N); CUDALAB_HOME=$h XDG_CACHE_HOME=/tmp/cl-tour-$(basename "$1") timeout 300 "$1/cudalab" tour \
            > "$out/tour_$(basename "$1").txt" 2>&1
          echo "tour $1: rc $? $(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$(date +%s.%N)") s"
          shift ;;
    *) echo "unknown step $step"; exit 2 ;;
  esac
done
cd "$out" && tar czf ../session.tgz . && mv ../session.tgz .
