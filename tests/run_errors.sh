#!/bin/sh
# Error-message tests: every tests/errors/NAME.py must make tilec fail (exit 1 or 2,
# never 0, never a signal) with exactly the stderr recorded in tests/errors/NAME.expected.
# The first line of NAME.py is "# flags: ..." with the command-line flags to use, or
# "# args: ..." with the whole command line (for errors about the command line itself:
# the input file and -o are then not added).
#
#   TILEC=bin/tilec sh tests/run_errors.sh      (default TILEC is bin/tilec)
#   REGEN=1 sh tests/run_errors.sh              rewrite the .expected files
# Run from the repository root.  JOBS cases at a time (default: the number of processors).

TILEC=${TILEC:-bin/tilec}
REGEN=${REGEN:-0}

# check_one NAME.py: one case; $tmp/BASE.ok when it passes, else the report in $tmp/BASE.log
check_one() {
    py=$1
    name=${py%.py}
    base=${name##*/}
    expected=$name.expected
    first=$(sed -n '1p' "$py")
    case $first in
        "# flags:"*)
            eval "set -- ${first#"# flags:"}"
            "$TILEC" "$py" "$@" -o /dev/null >"$tmp/$base.stdout" 2>"$tmp/$base.stderr"
            rc=$? ;;
        "# args:"*)
            eval "set -- ${first#"# args:"}"
            "$TILEC" "$@" >"$tmp/$base.stdout" 2>"$tmp/$base.stderr"
            rc=$? ;;
        *)
            echo "FAIL $base: first line is not '# flags: ...' or '# args: ...'" >"$tmp/$base.log"
            return ;;
    esac

    if [ "$REGEN" = 1 ]; then
        cp "$tmp/$base.stderr" "$expected"
    fi

    problem=
    if [ "$rc" -eq 0 ]; then
        problem="exit status 0 (expected 1 or 2)"
    elif [ "$rc" -ge 128 ]; then
        problem="exit status $rc (crash or signal)"
    elif [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; then
        problem="exit status $rc (expected 1 or 2)"
    fi

    if [ ! -f "$expected" ]; then
        problem="${problem:+$problem; }missing $expected"
        diffout=
    elif ! diffout=$(diff -u "$expected" "$tmp/$base.stderr"); then
        problem="${problem:+$problem; }stderr differs from $expected"
    else
        diffout=
    fi

    if [ -n "$problem" ]; then
        { echo "FAIL $base: $problem"; [ -n "$diffout" ] && printf '%s\n' "$diffout"; } >"$tmp/$base.log"
    else
        : >"$tmp/$base.ok"
    fi
}

if [ "${1:-}" = --some ]; then  # some cases, as xargs below runs them
    shift
    for one; do
        check_one "$one"
    done
    exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilec-errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

if [ ! -x "$TILEC" ]; then
    echo "run_errors.sh: $TILEC is not an executable (set TILEC)" >&2
    exit 1
fi
export tmp TILEC REGEN
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

for py in tests/errors/*.py; do
    [ -f "$py" ] && echo "$py"
done >"$tmp/list"
xargs -P "$JOBS" -n 16 sh "$0" --some <"$tmp/list"

pass=0
fail=0
while IFS= read -r py; do
    base=${py%.py}
    base=${base##*/}
    if [ -e "$tmp/$base.ok" ]; then
        pass=$((pass + 1))
    else
        if [ -f "$tmp/$base.log" ]; then
            cat "$tmp/$base.log"
        else
            echo "FAIL $base: not checked"
        fi
        fail=$((fail + 1))
    fi
done <"$tmp/list"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
