#!/bin/sh
# The GPT family's mutants (spec/mutants/family/README.md): each patch is
# built into a library of its own (ci/mutant-build.sh), the reference's
# recipe tests are linked against it, and every test named for the mutant
# must fail; the control first: the unpatched library passes them all.
#
#   sh ci/family-mutants.sh        (make check-family-mutants)
# Environment: FAMILY_MUTANTS_OUT (build/family-mutants), CC (cc).
set -u
OUT=${FAMILY_MUTANTS_OUT:-build/family-mutants}
CC=${CC:-cc}
DIR=spec/mutants/family
# mutant, then the tests that must kill it
KILLS="family-scale-once recipe/constants_are_rounded_twice recipe/tiny_init_is_the_spec_vector gpt_family/tiny_recipe_is_one_run_everywhere
family-schedule-steps gpt_family/tiny_recipe_is_one_run_everywhere
family-digest-unchecked recipe/each_bad_recipe_is_refused_naming_its_field"
TESTS="reference/tests/test_recipe.c reference/tests/test_gpt_family.c reference/tests/testproc.c"

# build ID PATCH|-: the library, then the tests against it
build() {
    sh ci/mutant-build.sh "$OUT/$1" "$2" CC="$CC" OPT=-O2 >"$OUT/$1.log" 2>&1 &&
        $CC -std=c11 -O1 -ffp-contract=off -fno-fast-math -Ireference/include -Ireference/src -Ireference/cli \
            -Ireference/iut $TESTS "$OUT/$1/libisotrain.a" -lcriterion -lm -o "$OUT/$1/tests" >>"$OUT/$1.log" 2>&1 ||
        { echo "family-mutants: $1 did not build ($OUT/$1.log)" >&2; exit 2; }
}

passes() { "$OUT/$1/tests" --filter "$2" >"$OUT/$1.run" 2>&1; }

mkdir -p "$OUT"
build control -
echo "$KILLS" | while read -r id tests; do
    for t in $tests; do
        passes control "$t" || { echo "family-mutants: FAIL: the control fails $t ($OUT/control.run)" >&2; exit 1; }
    done
done || exit 1
echo "family-mutants: control passes every killing test"
bad=0
for p in "$DIR"/*.patch; do
    id=$(basename "$p" .patch)
    tests=$(echo "$KILLS" | awk -v id="$id" '$1 == id { $1 = ""; print }')
    [ -n "$tests" ] || { echo "family-mutants: FAIL: $id has no killing test listed" >&2; bad=1; continue; }
    build "$id" "$p"
    for t in $tests; do
        if passes "$id" "$t"; then
            echo "family-mutants: FAIL: $id survives $t" >&2
            bad=1
        else
            echo "family-mutants: $id killed by $t"
        fi
    done
done
[ $bad = 0 ] && echo "family-mutants: PASS: every mutant killed by each of its tests"
exit $bad
