#!/bin/sh
# Valgrind on the examples: every tests/golden/*.flags line whose input is in examples/
# (one translation to CUDA each) under memcheck, with leak checking.  Any invalid access,
# use of uninitialised memory or leak fails the run.  Called by `make valgrind-check`:
#
#   TILEC=bin/tilec sh tests/run_valgrind.sh
TILEC=${TILEC:-bin/tilec}
VALGRIND=${VALGRIND:-valgrind}
if ! command -v "$VALGRIND" >/dev/null 2>&1; then
    echo "valgrind-check: valgrind not found" >&2
    exit 1
fi
pass=0
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilec-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
for flags in tests/golden/*.flags; do
    line=$(head -n 1 "$flags")
    case $line in examples/*) ;; *) continue ;; esac
    eval "set -- $line"
    if "$VALGRIND" -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
        "$TILEC" "$@" -o "$tmp/out.cu" 2>"$tmp/log"; then
        pass=$((pass + 1))
    else
        echo "FAIL ${flags##*/}: valgrind reported errors"
        head -n 40 "$tmp/log"
        fail=$((fail + 1))
    fi
done
echo "valgrind: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
