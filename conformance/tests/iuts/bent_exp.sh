#!/bin/sh
# Attack (provenance): the reference with one wrong answer, exp(+0) =
# 0x3f800001 for case exp/1. Against a copy of vectors/v1.0.0 whose exp/1 was
# edited to match (its MANIFEST.json recomputed), it got PASS with "vectors
# 1.0.0" before issue 9; the edited set is now UNOFFICIAL.
case $1 in
ops) "$IT_REF_CLI" ops | sed -u 's|^id=exp/1 y=3f800000$|id=exp/1 y=3f800001|' ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
