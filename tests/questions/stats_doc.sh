#!/bin/sh
# stats_doc.sh: docs/questions.md's per-topic / per-kind table must be what
# `cudalab lint --questions-only --stats` prints for the bank (it is generated, not typed).
# usage: stats_doc.sh CUDALAB REPO_ROOT [--update]
#   --update rewrites the table between the bank-stats markers from lint's output.
set -eu
cudalab=$1
root=$2
mode=${3:-check}
doc="$root/docs/questions.md"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cudalab" lint --questions-only --stats --no-seeds --bank "$root/questions" >"$tmp/now" 2>/dev/null
sed -n '/<!-- bank-stats:/,/<!-- \/bank-stats -->/p' "$doc" | sed '1d;$d' >"$tmp/doc"
if ! [ -s "$tmp/doc" ]; then
    echo "stats_doc: docs/questions.md has no bank-stats block" >&2
    exit 1
fi
if [ "$mode" = "--update" ]; then
    awk -v table="$tmp/now" '
        /<!-- bank-stats:/ { print; while ((getline l < table) > 0) print l; skip = 1; next }
        /<!-- \/bank-stats -->/ { skip = 0 }
        !skip { print }' "$doc" >"$tmp/new"
    cat "$tmp/new" >"$doc"
    echo "stats_doc: docs/questions.md updated"
    exit 0
fi
if ! diff -u "$tmp/doc" "$tmp/now"; then
    echo "stats_doc: docs/questions.md is out of date: run tests/questions/stats_doc.sh build/cudalab . --update" >&2
    exit 1
fi
echo "stats_doc: ok"
