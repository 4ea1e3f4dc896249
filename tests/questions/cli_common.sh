# cli_common.sh: what the scripted CLI tests share (sourced, not run): a scratch folder
# with its own progress database, a plain English environment, and the check helpers.
# The sourcing script sets CUDALAB before and calls `finish` at the end.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cl-qcli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export CUDALAB_DB="$WORK/progress.db" XDG_DATA_HOME="$WORK/data" XDG_CACHE_HOME="$WORK/cache"
export NO_COLOR=1 CUDALAB_GPU=0 LANG=C LC_ALL= LC_MESSAGES=
unset CUDALAB_NOW
FAILS=0
cd "$WORK" || exit 1

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
# has FILE TEXT WHAT: FILE contains TEXT (fixed string)
has() { grep -qF -- "$2" "$1" || { fail "$3: expected '$2' in $1"; sed 's/^/    | /' "$1" | tail -40; }; }
hasnt() { if grep -qF -- "$2" "$1"; then fail "$3: did not expect '$2'"; fi; }
status_is() { [ "$1" -eq "$2" ] || fail "$3: exit status $1, expected $2"; }
