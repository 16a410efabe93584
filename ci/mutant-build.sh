#!/bin/sh
# Usage: ci/mutant-build.sh OUT PATCH|- [mk/reference.mk variables, e.g. CC=cc OPT=-O2 EXTRA_CFLAGS=...]
#
# Builds the reference into OUT through mk/reference.mk (MUTANT_MK=FILE: another
# build file of mk/, e.g. mk/mpi-build.mk for the MPI trainer). With a PATCH (a file
# of spec/mutants/, a unified diff against this tree), the build is of a
# patched copy (OUT/tree: reference/, mk/ and spec/), so a mutant's variant
# lives beside spec/mutants/mutants.tsv and never in reference/src.
set -eu
out=${1:?usage: ci/mutant-build.sh OUT PATCH|- [VAR=VALUE...]}
p=${2:?patch file of spec/mutants/, or -}
shift 2
make=${MAKE:-make}
mk=${MUTANT_MK:-mk/reference.mk}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
if [ "$p" = - ]; then
    exec $make --no-print-directory -f "$mk" OUT="$out" "$@"
fi
case $p in */*) ;; *) p=spec/mutants/$p ;; esac
[ -f "$p" ] || { echo "mutant-build: no patch $p" >&2; exit 2; }
# What the build is made of: the patch, the variables, every file of the
# copied tree. Equal to the key of the last build that finished, the build
# stands as it is: make test asks for the same two mutants from four stages,
# some running side by side (ci/run-stages.sh lanes), and a second copy and
# relink under a running binary would race with it.
key=$({ printf '%s\n' "$mk" "$*"; cat "$p"; find reference mk spec -type f | LC_ALL=C sort | xargs cat; } |
      sha256sum | cut -d' ' -f1)
# the key alone, for ci/check-mutant-patches.sh's controls of it
[ "${MUTANT_BUILD_KEY_ONLY:-0}" = 1 ] && { echo "$key"; exit 0; }
if [ -f "$out/mutant-build.key" ] && [ "$(cat "$out/mutant-build.key")" = "$key" ]; then
    echo "mutant-build: $out is up to date ($p)"
    exit 0
fi
rm -f "$out/mutant-build.key"
tree=$out/tree
rm -rf "$tree"
mkdir -p "$tree"
cp -R reference mk spec "$tree"/
patch -s --fuzz=0 -p1 -d "$tree" < "$p" || { echo "mutant-build: $p does not apply to this tree" >&2; exit 2; }
$make --no-print-directory -C "$tree" -f "$mk" OUT="$out" "$@"
echo "$key" > "$out/mutant-build.key"
