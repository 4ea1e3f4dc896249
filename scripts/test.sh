#!/usr/bin/env bash
# test.sh: install the dependencies, build, lint the labs and questions, and run the whole
# test suite. GPU tests report SKIPPED on a machine without a GPU (never passed).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# CI also installs the tools the classroom tests drive (Chromium, a Slurm cluster)
if [[ -n "${CI:-}" ]]; then
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
