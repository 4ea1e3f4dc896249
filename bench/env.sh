# shellcheck shell=bash disable=SC2034  # sets variables for the scripts that source it
# env.sh: sourced by the bench and device scripts, so that where things are and the
# environment cudalab runs in are set in one place.
#   bench_env              scripts run from a checkout (side_by_side.sh, classroom_throughput.sh):
#                          root, cudalab (CUDALAB, or build/cudalab), out (OUT, or bench-out),
#                          cudalab's home and caches
#   device_env DEFAULT_OUT one device call, with the build folder carried from the build
#                          machine, whose paths are /work/main/...: a symlink makes them valid
#                          here; works from /work/main, out is OUT or DEFAULT_OUT
bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

bench_env() {
  root=$bench_root
  cudalab=${CUDALAB:-$root/build/cudalab}
  out=${OUT:-$root/bench-out}
  mkdir -p "$out"
  export CUDALAB_HOME=${CUDALAB_HOME:-$root}
  export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/cudalab-bench-cache}
  export XDG_DATA_HOME=${XDG_DATA_HOME:-/tmp/cudalab-bench-data}
}

device_env() {
  root=$bench_root
  out=${OUT:-$1}
  mkdir -p "$out" /work
  [[ $root == /work/main ]] || ln -sfn "$root" /work/main
  cd /work/main || return 1
  export CUDALAB_HOME=/work/main XDG_CACHE_HOME=/tmp/cl-cache XDG_DATA_HOME=/tmp/cl-data NO_COLOR=1 PYTHONUNBUFFERED=1
}
