#!/bin/sh
# cli_ladder.sh: `cudalab ladder` as a process, on the CPU: --help, usage errors, an unknown
# lab, and the no-GPU path (CUDA_VISIBLE_DEVICES= hides every GPU, so this runs the same
# on the GPU machine). Usage: cli_ladder.sh CUDALAB
set -u
CUDALAB=$1
fail=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# expect RC PATTERN(stdout) PATTERN(stderr) -- ARGS...
expect() {
    want=$1 pat_out=$2 pat_err=$3
    shift 4
    CUDA_VISIBLE_DEVICES= "$CUDALAB" "$@" >"$out" 2>"$err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then
        echo "FAIL cudalab $*: exit $rc, want $want"; cat "$out" "$err"; fail=1; return
    fi
    if [ -n "$pat_out" ] && ! grep -q -- "$pat_out" "$out"; then
        echo "FAIL cudalab $*: stdout lacks '$pat_out'"; cat "$out"; fail=1
    fi
    if [ -n "$pat_err" ] && ! grep -q -- "$pat_err" "$err"; then
        echo "FAIL cudalab $*: stderr lacks '$pat_err'"; cat "$err"; fail=1
    fi
    echo "ok   cudalab $* -> $rc"
}

expect 0 "usage: cudalab ladder LAB" "" -- ladder --help
expect 2 "" "usage: cudalab ladder LAB" -- ladder
expect 2 "" "usage: cudalab ladder LAB" -- ladder reduce softmax
expect 2 "" "cudalab ladder: unknown option '--bogus'" -- ladder reduce --bogus
expect 2 "" "no lab named 'no_such_lab'" -- ladder no_such_lab
expect 3 "" "no GPU on this machine: the [0-9]* steps of reduce" -- ladder reduce
expect 3 "" "no GPU on this machine: the 8 steps of gemm" -- ladder gemm --json
# the no-GPU path prints nothing on stdout (a script reading --json gets no half table)
CUDA_VISIBLE_DEVICES= "$CUDALAB" ladder transpose --json >"$out" 2>/dev/null
if [ -s "$out" ]; then echo "FAIL: stdout not empty without a GPU"; fail=1; fi
# the command is listed in the top-level help
expect 0 "ladder" "" -- --help
exit $fail
