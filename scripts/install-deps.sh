#!/usr/bin/env bash
# install-deps.sh [--test-tools]: the Debian/Ubuntu packages cudalab builds and tests with.
# The CUDA toolkit itself is a prerequisite (NVIDIA's packages or the runfile); without it
# cudalab still builds and runs everything that needs no GPU compiler.
#   --test-tools  also what the classroom tests drive for real: headless Chromium (the HTML
#                 report), a one-node Slurm cluster (munge, slurmctld, slurmd) and an sshd on
#                 localhost (remote grading, tests/learner). Without
#                 them those tests report SKIPPED. scripts/test.sh passes it.
set -euo pipefail
packages=(build-essential cmake pkg-config libyaml-dev libsqlite3-dev libjansson-dev check libsubunit-dev
          libarchive-dev nettle-dev libffi-dev libseccomp-dev libutf8proc-dev python3)
if [[ "${1:-}" == "--test-tools" ]]; then
  packages+=(chromium fonts-dejavu-core munge slurmctld slurmd slurm-client util-linux procps openssh-server openssh-client)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
