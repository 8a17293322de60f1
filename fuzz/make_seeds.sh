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
# Random valid kernels from the generator, with their flags: deep paths through every pass.
if command -v python3 >/dev/null 2>&1; then
    for seed in $(seq 1 40); do
        python3 tools/gen_kernel.py "$seed" --flags-line > "$dir/gen-$seed.py" || rm -f "$dir/gen-$seed.py"
    done
fi
