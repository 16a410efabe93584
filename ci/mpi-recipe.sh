#!/bin/sh
# Usage: ci/mpi-recipe.sh CONFORM 'IUT with -np NP' 'N...' RECIPE OUT_DIR
#
# make test-mpi-recipe (issue 32 item 5; spec §15 with §16): the MPI trainer
# trains a recipe of the GPT family on every rank count N with the bits of
# the reference. The recipe's set is made once by the runner's linked
# reference (isotrain-conform vectors --recipe), then each N gets one
# certification of its own, a long-lived runner session through mpirun:
# the family's op vectors, every step of the recipe's run, the fresh-seed
# run and its resumption, and the windows (--windows). Each must say
# PASS (recipe sha256:...) (exit 6): every step's digest the set's, so the
# same for every N. A small recipe is the one that tells: with a batch of 4
# sequences a rank has 1 or 2 of them, below every op's share size.
# The control first: the 3-rank run with checkpoints flipped from step 2 on
# (conformance/tests/iuts/recipe_wrong.sh around the same mpirun command:
# a rank count whose bits diverge) must FAIL (exit 1), or the test fails.
set -u
conform=${1:?usage: ci/mpi-recipe.sh CONFORM IUT-TEMPLATE 'N...' RECIPE OUT_DIR}
tmpl=${2:?}
nps=${3:?}
recipe=${4:?}
out=${5:?}
t0=$(date +%s)
rm -rf "$out" && mkdir -p "$out" || exit 2
"$conform" vectors --recipe "$recipe" --out "$out/set" > "$out/vectors.log" 2>&1 ||
    { cat "$out/vectors.log" >&2; echo "test-mpi-recipe: could not make the set of $recipe" >&2; exit 2; }

iut_of() { printf '%s\n' "$tmpl" | sed "s/-np NP /-np $1 /"; }

# certify WHAT EXPECTED-EXIT LEVEL RUNNER-ARGS -- IUT...: one runner session
certify() {
    what=$1 want=$2 tag=$3
    shift 3
    s=$(date +%s)
    sh ci/mpi-private-tmp.sh "$conform" run --vectors "$out/set" --receipt "$out/$tag.json" "$@" > "$out/$tag.log" 2>&1
    rc=$?
    verdict=$(tail -n 1 "$out/$tag.log" | cut -c1-160)
    if [ "$rc" = "$want" ]; then
        echo "test-mpi-recipe: $what: exit $rc as expected ($(($(date +%s) - s)) s): $verdict"
        return 0
    fi
    echo "test-mpi-recipe: $what: exit $rc, expected $want; the runner said:" >&2
    tail -n 30 "$out/$tag.log" | sed 's/^/    /' >&2
    return 1
}

# the control: recipe_wrong.sh runs "$IT_REF_CLI" train ...; here that is
# the 3-rank job
wrap=$out/mpi-3-ranks.sh
printf '#!/bin/sh\nexec %s "$@"\n' "$(iut_of 3)" > "$wrap" && chmod +x "$wrap"
IT_REF_CLI=$(cd "$(dirname "$wrap")" && pwd)/$(basename "$wrap") \
    certify "control: 3 ranks, checkpoints flipped from step 2 on" 1 control --level train \
    -- sh conformance/tests/iuts/recipe_wrong.sh || exit 1
grep -q 'FAIL recipe/2:' "$out/control.log" ||
    { echo "test-mpi-recipe: control: the runner did not name step 2 as the first failure" >&2; exit 1; }

bad=0
for n in $nps; do
    # shellcheck disable=SC2046 # the argv form (after --, no shell): the receipt binds mpirun and isotrain-mpi
    certify "$n rank(s), recipe $(basename "$recipe")" 6 "mpi-$n" --windows -- $(iut_of "$n") || bad=1
done
echo "test-mpi-recipe: $(($(date +%s) - t0)) s in all"
[ $bad = 0 ] || { echo "test-mpi-recipe: FAILED" >&2; exit 1; }
echo "test-mpi-recipe: every rank count ($nps) gave the recipe set's bits at every step: PASS (recipe) each"
