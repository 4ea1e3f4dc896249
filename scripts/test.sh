#!/usr/bin/env bash
# test.sh: install the dependencies, build, lint the labs and questions, and run the whole
# test suite. GPU tests report SKIPPED on a machine without a GPU (never passed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
echo "== cudalab lint"
"$root/build/cudalab" lint
echo "== ctest"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" "$@"
