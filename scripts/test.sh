#!/usr/bin/env bash
# test.sh: install the dependencies, build, lint the labs and questions, and run the whole
# test suite. GPU tests report SKIPPED on a machine without a GPU (never passed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# The tests also drive Chromium (the classroom HTML report) and a one-node Slurm cluster
# (munge, slurmctld, slurmd): install them too, unless CUDALAB_NO_TEST_TOOLS is set (those
# tests then report SKIPPED).
if [[ -z "${CUDALAB_NO_TEST_TOOLS:-}" ]]; then
  "$root/scripts/install-deps.sh" --test-tools
else
  "$root/scripts/install-deps.sh"
fi
"$root/scripts/build.sh"
echo "== cudalab lint"
"$root/build/cudalab" lint
echo "== ctest"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" "$@"
