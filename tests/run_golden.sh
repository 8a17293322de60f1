#!/bin/sh
# Golden tests: each tests/golden/NAME.flags holds one line, "INPUT.py flags...",
# relative to the repository root.  tilec's CUDA output must equal NAME.cu and
# its tile IR (--emit tileir) must equal NAME.tir, byte for byte (not for a line with
# --variant, which goes with CUDA output only); where NAME.html
# exists, the explorer's page (--emit html) must equal it too.
#
#   sh tests/run_golden.sh            compare (TILEC=path selects the binary)
#   REGEN=1 sh tests/run_golden.sh    rewrite the expected files (review the diff!); a new
#                                     page golden: touch NAME.html first
#
# JOBS goldens at a time (default: the number of processors).
TILEC=${TILEC:-bin/tilec}

# check_one FLAGS: one golden's outputs; $tmp/NAME.pass and $tmp/NAME.fail count them,
# $tmp/NAME.log holds the failures
check_one() {
    flags=$1
    name=${flags%.flags}
    base=${name##*/}
    line=$(head -n 1 "$flags")
    kinds="cu tir"
    [ -f "$name.html" ] && kinds="cu tir html"
    case $line in
        *--variant*) kinds="cu" ;; # --variant goes with CUDA output only
    esac
    pass=0
    fail=0
    : >"$tmp/$base.log"
    for kind in $kinds; do
        case $kind in
            cu) extra="" ;;
            tir) extra="--emit tileir" ;;
            html) extra="--emit html" ;;
        esac
        eval "set -- $line $extra"
        if ! "$TILEC" "$@" > "$tmp/$base.out" 2> "$tmp/$base.err"; then
            { echo "FAIL $name.$kind: tilec exited with an error:"; cat "$tmp/$base.err"; } >>"$tmp/$base.log"
            fail=$((fail + 1))
            continue
        fi
        if [ -n "$REGEN" ]; then
            cp "$tmp/$base.out" "$name.$kind"
            pass=$((pass + 1))
        elif cmp -s "$tmp/$base.out" "$name.$kind"; then
            pass=$((pass + 1))
        else
            { echo "FAIL $name.$kind differs from the expected output:"
              diff -u "$name.$kind" "$tmp/$base.out" | head -40; } >>"$tmp/$base.log"
            fail=$((fail + 1))
        fi
    done
    echo "$pass $fail" >"$tmp/$base.count"
}

if [ "${1:-}" = --some ]; then  # some goldens, as xargs below runs them
    shift
    for one; do
        check_one "$one"
    done
    exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export tmp TILEC REGEN
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

ls tests/golden/*.flags >"$tmp/list"
xargs -P "$JOBS" -n 16 sh "$0" --some <"$tmp/list"

pass=0
fail=0
while IFS= read -r flags; do
    base=${flags%.flags}
    base=${base##*/}
    if [ ! -f "$tmp/$base.count" ]; then
        echo "FAIL ${flags%.flags}: not checked"
        fail=$((fail + 1))
        continue
    fi
    cat "$tmp/$base.log"
    read -r p q <"$tmp/$base.count"
    pass=$((pass + p))
    fail=$((fail + q))
done <"$tmp/list"
echo "golden: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
