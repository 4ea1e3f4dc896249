#!/bin/sh
# lint_abi.sh: `cudalab lint` fails when labs/include/cudalab_lab.h and a lab.yaml's
# signature disagree, and names the header line. Usage: lint_abi.sh CUDALAB SOURCE_DIR
set -u
CUDALAB=$1 SRC=$2
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
fail=0
mkdir -p "$home/labs/reduce" "$home/labs/include"
cp "$SRC/labs/include/cudalab_lab.h" "$home/labs/include/"

# the real tree agrees with itself
CUDALAB_HOME=$SRC "$CUDALAB" lint --labs-only >/dev/null 2>&1 || { echo "FAIL: lint --labs-only on the source tree"; fail=1; }

# lab.yaml says int, the header says int64_t
sed 's/int64_t n, cudaStream_t stream)"/int n, cudaStream_t stream)"/' "$SRC/labs/reduce/lab.yaml" >"$home/labs/reduce/lab.yaml"
CUDALAB_HOME=$home "$CUDALAB" lint --labs-only >"$home/out" 2>&1
rc=$?
line=$(grep -n "void reduce_sum(" "$SRC/labs/include/cudalab_lab.h" | cut -d: -f1)
if [ $rc -ne 1 ] || ! grep -q "labs/include/cudalab_lab.h:$line: reduce_sum is declared as 'void reduce_sum(const float\*in,float\*out,int64_t n,cudaStream_t stream)', but labs/reduce/lab.yaml's signature is 'void reduce_sum(const float\*in,float\*out,int n,cudaStream_t stream)'" "$home/out"; then
    echo "FAIL: a signature mismatch (exit $rc)"; cat "$home/out"; fail=1
else
    echo "ok   signature mismatch reported at the header's line $line"
fi

# the header lacks the entry point
cp "$SRC/labs/reduce/lab.yaml" "$home/labs/reduce/lab.yaml"
grep -v "void reduce_sum(" "$SRC/labs/include/cudalab_lab.h" >"$home/labs/include/cudalab_lab.h"
CUDALAB_HOME=$home "$CUDALAB" lint --labs-only >"$home/out" 2>&1
rc=$?
if [ $rc -ne 1 ] || ! grep -q "no declaration of reduce_sum, the entry point of labs/reduce/lab.yaml" "$home/out"; then
    echo "FAIL: a missing declaration (exit $rc)"; cat "$home/out"; fail=1
else
    echo "ok   missing declaration reported"
fi
exit $fail
