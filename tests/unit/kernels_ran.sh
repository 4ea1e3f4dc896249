#!/bin/sh
# kernels_ran.sh RUNNER SOLUTIONS LAB_YAML: the names of the kernels the solution's process
# launched reach the judge's done line (the host backend takes them from
# CUDALAB_TEST_KERNELS_RAN), and a process that cannot name them gives no list at all.
run() { echo "n 1" | "$1" --lab-yaml "$3" --solution "$2/reduce_host.so" --mode test --case n=1 --verdict-fd 1 2>&1 | tail -n 1; }
named=$(CUDALAB_TEST_KERNELS_RAN='_Z3fooPf,_Z3barv' run "$@")
case $named in
  *'"kernels_ran":["_Z3fooPf","_Z3barv"]'*'"status":"ok"'*) ;;
  *) echo "named kernels missing from the done line: $named"; exit 1 ;;
esac
unnamed=$(unset CUDALAB_TEST_KERNELS_RAN; run "$@")
case $unnamed in
  *kernels_ran*) echo "a list where none was named: $unnamed"; exit 1 ;;
  *'"status":"ok"'*) ;;
  *) echo "the run failed: $unnamed"; exit 1 ;;
esac
echo "ok"
