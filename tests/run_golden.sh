#!/bin/sh
# Golden tests: each tests/golden/NAME.flags holds one line, "INPUT.py flags...",
# relative to the repository root.  tilec's CUDA output must equal NAME.cu and
# its tile IR (--emit tileir) must equal NAME.tir, byte for byte; where NAME.html
# exists, the explorer's page (--emit html) must equal it too.
#
#   sh tests/run_golden.sh            compare (TILEC=path selects the binary)
#   REGEN=1 sh tests/run_golden.sh    rewrite the expected files (review the diff!); a new
#                                     page golden: touch NAME.html first
TILEC=${TILEC:-bin/tilec}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for flags in tests/golden/*.flags; do
    name=${flags%.flags}
    line=$(head -n 1 "$flags")
    kinds="cu tir"
    [ -f "$name.html" ] && kinds="cu tir html"
    for kind in $kinds; do
        case $kind in
            cu) extra="" ;;
            tir) extra="--emit tileir" ;;
            html) extra="--emit html" ;;
        esac
        eval "set -- $line $extra"
        if ! "$TILEC" "$@" > "$tmp/out" 2> "$tmp/err"; then
            echo "FAIL $name.$kind: tilec exited with an error:"
            cat "$tmp/err"
            fail=$((fail + 1))
            continue
        fi
        if [ -n "$REGEN" ]; then
            cp "$tmp/out" "$name.$kind"
            pass=$((pass + 1))
        elif cmp -s "$tmp/out" "$name.$kind"; then
            pass=$((pass + 1))
        else
            echo "FAIL $name.$kind differs from the expected output:"
            diff -u "$name.$kind" "$tmp/out" | head -40
            fail=$((fail + 1))
        fi
    done
done
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
