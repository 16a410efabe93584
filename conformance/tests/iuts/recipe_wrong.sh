#!/bin/sh
# The reference, except that a recipe run (`train --recipe FILE`, P7 1.3.0)
# leaves every checkpoint from step 2 on with the lowest bit of its first
# byte flipped: right at steps 0 and 1, wrong after (RECIPE_WRONG_FROM=K: from
# step K on, so a short run passes and only a window late in the run can
# see it; RECIPE_WRONG_SEEDED=1: only in a run given --seed, so the golden
# run passes and only a fresh-seed run can see it). The negative control of a recipe certification
# (tests/test_recipe_vectors.c). RECIPE_WRONG_OP=1: instead, training is
# the reference's and one op the GPT family uses answers wrong (exp(+0) =
# 0x3f800001 for case exp/1), which the recipe's op level must catch.
# RECIPE_WRONG_HEADER=1: instead, the bits are right and the trace's header
# names another recipe (profile=other; with RECIPE_WRONG_SEEDED=1 only in
# the fresh-seed run, which only a header check of every run can see).
# RECIPE_DIGEST_UNCHECKED=1: instead, a recipe run trains whatever corpus
# it is given: the recipe's corpus.sha256 is rewritten to the corpus's own
# digest first (an IUT that never compares them, spec 16.1), which only the
# refusal case fresh/recipe/corpus-digest can see.
# NO_RECIPE_HELLO=1:
# the reference's hello without train_recipe=1, and a train run given
# --recipe then fails loudly (a runner MUST NOT pass it, P7).
. "$(dirname "$0")/common.sh"
case $1 in
hello)
    if [ "${NO_RECIPE_HELLO:-}" = 1 ]; then
        "$IT_REF_CLI" hello | sed 's/ train_recipe=1//'
    else
        exec "$IT_REF_CLI" hello
    fi ;;
train)
    shift; parse_train "$@"
    if [ -n "$RECIPE" ] && [ "${NO_RECIPE_HELLO:-}" = 1 ]; then
        echo "recipe_wrong: told --recipe without advertising train_recipe=1" >&2
        exit 99
    fi
    if [ -n "$RECIPE" ] && [ "${RECIPE_DIGEST_UNCHECKED:-}" = 1 ]; then
        corpus=$(sed -n 's/.*"path": *"\([^"]*\)".*/\1/p' "$RECIPE")
        got=$(sha256sum "$(dirname "$RECIPE")/$corpus" | cut -d' ' -f1)
        sed -i "s/\"sha256\": *\"[0-9a-f]*\"/\"sha256\": \"$got\"/" "$RECIPE"
        exec "$IT_REF_CLI" train "$@"
    fi
    ref_train "$@" || exit $?
    [ -n "$RECIPE" ] && [ "${RECIPE_WRONG_OP:-}" != 1 ] || exit 0
    if [ "${RECIPE_WRONG_SEEDED:-}" = 1 ]; then
        case " $* " in *" --seed "*) ;; *) exit 0 ;; esac
    fi
    if [ "${RECIPE_WRONG_HEADER:-}" = 1 ]; then
        sed -i '1s/profile=[a-z0-9_]*/profile=other/' "$TRACE"
        exit 0
    fi
    flip_checkpoints_after $(( ${RECIPE_WRONG_FROM:-2} - 1 )) ;;
ops)
    if [ "${RECIPE_WRONG_OP:-}" = 1 ]; then
        "$IT_REF_CLI" ops | sed -u 's|^id=exp/1 y=3f800000$|id=exp/1 y=3f800001|'
    else
        exec "$IT_REF_CLI" ops
    fi ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
