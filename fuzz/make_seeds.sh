#!/bin/sh
# Seed corpus for the fuzz targets: every example and golden input as it is,
# every golden test as "# flags: ..." + its source (the translate target reads
# that line), and every tests/errors input (which opens with its flags line).
#   sh fuzz/make_seeds.sh DIR       (run from the repository root)
set -e
dir=${1:?usage: make_seeds.sh DIR}
mkdir -p "$dir"
for f in examples/*.py tests/golden/*.py; do
    cp "$f" "$dir/src-$(basename "$(dirname "$f")")-$(basename "$f")"
done
for f in tests/errors/*.py; do
    cp "$f" "$dir/err-$(basename "$f")"
done
for flags in tests/golden/*.flags; do
    line=$(head -n 1 "$flags")
    input=${line%% *}
    { printf '# flags: %s\n' "${line#* }"; cat "$input"; } > "$dir/golden-$(basename "$flags" .flags).py"
done
