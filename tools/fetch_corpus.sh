#!/bin/sh
# Fetch the sources that bench/corpus/kernels.tsv names, each at its listed commit, into DIR as
# OWNER+NAME/PATH, the layout tools/coverage.py --src expects, then the project modules they
# import, recursively, with the package __init__.py files on the way (tools/fetch_imports.py:
# tilec follows those imports as Python would).  Needs network access (curl to
# raw.githubusercontent.com; python3 for the imports, which also lists each repository
# through api.github.com).  The files belong to their projects: keep DIR outside the
# repository and commit none of them.
#
#   sh tools/fetch_corpus.sh DIR [bench/corpus/kernels.tsv]
#
# A file already in DIR is kept, so a second run fetches only what is missing.  The exit status
# is 1 if any file could not be fetched (each is named on standard error).
set -u
dir=${1:?usage: sh tools/fetch_corpus.sh DIR [TSV]}
tsv=${2:-bench/corpus/kernels.tsv}
command -v curl >/dev/null 2>&1 || { echo "fetch_corpus: needs curl" >&2; exit 2; }
[ -r "$tsv" ] || { echo "fetch_corpus: cannot read $tsv" >&2; exit 2; }

failed=0
# The rows name a file once per kernel: fetch each (repo, path, commit) once.
grep -v '^#' "$tsv" | awk -F '\t' '$1 != "repo" && NF >= 3 { print $1 "\t" $2 "\t" $3 }' | sort -u |
{
    while IFS="$(printf '\t')" read -r repo path commit; do
        out="$dir/$(echo "$repo" | tr / +)/$path"
        [ -s "$out" ] && continue
        mkdir -p "$(dirname "$out")"
        if curl -fsSL --retry 3 -o "$out.part" "https://raw.githubusercontent.com/$repo/$commit/$path"; then
            mv "$out.part" "$out"
            echo "fetched $repo/$path @ $commit"
        else
            rm -f "$out.part"
            echo "fetch_corpus: could not fetch $repo/$path @ $commit" >&2
            failed=1
        fi
    done
    exit $failed
}
failed=$?
python3 "$(dirname "$0")/fetch_imports.py" "$dir" --tsv "$tsv" || failed=1
exit $failed
