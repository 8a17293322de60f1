#!/bin/sh
# Valgrind on the examples: every tests/golden/*.flags line whose input is in examples/
# (one translation to CUDA each) under memcheck, with leak checking.  Any invalid access,
# use of uninitialised memory or leak fails the run.  Called by `make valgrind-check`:
#
#   TILEC=bin/tilec sh tests/run_valgrind.sh
#
# JOBS translations at a time (default: the number of processors).
TILEC=${TILEC:-bin/tilec}
VALGRIND=${VALGRIND:-valgrind}

# check_one FLAGS: one golden's translation under memcheck; $tmp/NAME.ok when clean, else
# the report in $tmp/NAME.log
check_one() {
    flags=$1
    name=${flags##*/}
    line=$(head -n 1 "$flags")
    eval "set -- $line"
    if "$VALGRIND" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$TILEC" "$@" -o "$tmp/$name.cu" 2>"$tmp/$name.log"; then
        touch "$tmp/$name.ok"
    fi
    rm -f "$tmp/$name.cu"
}

if [ "${1:-}" = --one ]; then  # one golden, as xargs below runs it
    check_one "$2"
    exit 0
fi

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "valgrind-check: valgrind not found" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilec-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
export tmp TILEC VALGRIND
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

for flags in tests/golden/*.flags; do
    case $(head -n 1 "$flags") in examples/*) echo "$flags" ;; esac
done >"$tmp/list"
xargs -P "$JOBS" -n 1 sh "$0" --one <"$tmp/list"

pass=0
fail=0
while IFS= read -r flags; do
    name=${flags##*/}
    if [ -e "$tmp/$name.ok" ]; then
        pass=$((pass + 1))
    else
        echo "FAIL $name: valgrind reported errors"
        head -n 40 "$tmp/$name.log"
        fail=$((fail + 1))
    fi
done <"$tmp/list"
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
