#!/bin/sh
# Every mutant patch still applies to this tree (make check-mutant-patches, the
# second stage of make test, under a second).
#
# A mutant whose patch no longer applies is not built, so the mutation matrix
# loses it and make check-mutants fails minutes later, after the full build of
# ~50 trees (CI found seven such patches after a refactor moved their lines).
# This check names each stale patch at once: every patch:FILE of
# spec/mutants/mutants.tsv and every patch of spec/mutants/family/ must exist
# and apply with `patch --dry-run` to a copy of reference/, mk/ and spec/
# (ci/mutant-build.sh applies them to the same copy).
#
#   sh ci/check-mutant-patches.sh              check this tree
#   sh ci/check-mutant-patches.sh --self-test  the check refuses a patch whose context is stale
set -u
LIST=spec/mutants/mutants.tsv

# applies PATCH TREE: 0 when PATCH applies to TREE, its first error on stderr otherwise
applies() {
    out=$(patch --dry-run --fuzz=0 -f -s -p1 -d "$2" <"$1" 2>&1) && return 0
    printf '%s\n' "$out" | head -n 3 >&2
    return 1
}

# the patches the matrix and the family's check build: one path per line
patches() {
    awk -F'\t' '!/^#/ && NF > 1 { n = split($5, w, " "); for (i = 1; i <= n; i++) if (w[i] ~ /^patch:/) print "spec/mutants/" substr(w[i], 7) }' "$LIST"
    for f in spec/mutants/family/*.patch; do [ -f "$f" ] && echo "$f"; done
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mutant-patches.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
cp -R reference mk spec "$tmp"/ || exit 2

if [ "${1:-}" = --self-test ]; then
    # the control: a real patch with one context line changed must be refused
    first=$(patches | head -n 1)
    [ -n "$first" ] || { echo "check-mutant-patches: no patch listed in $LIST" >&2; exit 1; }
    awk '!done && /^ [^ ]/ { print " STALE CONTEXT " substr($0, 2); done = 1; next } { print }' "$first" >"$tmp/stale.patch"
    if applies "$tmp/stale.patch" "$tmp" 2>/dev/null; then
        echo "check-mutant-patches: self-test FAILED: a patch with stale context ($first, edited) applied" >&2
        exit 1
    fi
    applies "$first" "$tmp" || { echo "check-mutant-patches: self-test FAILED: the unedited $first does not apply" >&2; exit 1; }
    echo "check-mutant-patches: self-test passed (a stale patch is refused, its original applies)"
    exit 0
fi

n=0 bad=0
for p in $(patches); do
    n=$((n + 1))
    if [ ! -f "$p" ]; then
        echo "check-mutant-patches: $LIST names $p, which does not exist" >&2
        bad=$((bad + 1))
    elif ! applies "$p" "$tmp"; then
        echo "check-mutant-patches: $p no longer applies to this tree (rewrite it against the moved lines; the defect and its spec clause stay the same)" >&2
        bad=$((bad + 1))
    fi
done
[ "$n" -gt 0 ] || { echo "check-mutant-patches: no patch listed in $LIST" >&2; exit 1; }
if [ "$bad" -gt 0 ]; then
    echo "check-mutant-patches: $bad of $n mutant patches do not apply" >&2
    exit 1
fi
echo "check-mutant-patches: all $n mutant patches apply"

# ci/mutant-build.sh reuses a build while its key is the same: the key must
# change with a variable and with any byte of the copied tree, or a stale
# mutant would stand in for the one asked for. Computed in a scratch copy
# (the checkout is never edited).
kt=$tmp/keytree
mkdir -p "$kt" && cp -R reference mk spec "$kt"/
mb=$(pwd)/ci/mutant-build.sh
key() { (cd "$kt" && MUTANT_BUILD_KEY_ONLY=1 sh "$mb" "$kt/out" flip-step.patch "$@"); }
k1=$(key OPT=-O2) k2=$(key OPT=-O2) k3=$(key OPT=-O1)
printf ' ' >> "$kt/spec/recipes/README.md"
k4=$(key OPT=-O2)
if [ -z "$k1" ] || [ "$k1" != "$k2" ] || [ "$k1" = "$k3" ] || [ "$k1" = "$k4" ]; then
    echo "check-mutant-patches: mutant-build's reuse key is wrong: same inputs $k1 / $k2, another variable $k3, a spec byte added $k4" >&2
    exit 1
fi
echo "check-mutant-patches: mutant-build's reuse key: equal for the same inputs, another for another variable or one byte more in spec/"
