#!/bin/sh
# stats_doc.sh: docs/questions.md's per-topic / per-kind table must be what
# `cudalab lint --questions-only --stats` prints for the bank (it is generated, not typed).
# usage: stats_doc.sh CUDALAB REPO_ROOT
set -eu
cudalab=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cudalab" lint --questions-only --stats --no-seeds --bank "$root/questions" >"$tmp/now" 2>/dev/null
sed -n '/<!-- bank-stats:/,/<!-- \/bank-stats -->/p' "$root/docs/questions.md" | sed '1d;$d' >"$tmp/doc"
if ! [ -s "$tmp/doc" ]; then
    echo "stats_doc: docs/questions.md has no bank-stats block" >&2
    exit 1
fi
if ! diff -u "$tmp/doc" "$tmp/now"; then
    echo "stats_doc: docs/questions.md is out of date: regenerate the table with cudalab lint --stats" >&2
    exit 1
fi
echo "stats_doc: ok"
