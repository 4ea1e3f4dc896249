#!/usr/bin/env bash
# quickstart.sh: the one command of a fresh machine: install the Debian dependencies,
# build, and run the tour (with a GPU: every lab's reference graded on it; without one:
# what works without a GPU).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
echo
exec "$root/build/cudalab" tour
