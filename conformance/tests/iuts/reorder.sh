#!/bin/sh
# The reference, with every answer's output keys in another order than P5's
# table (the first output moved to the end) and an unknown key with an empty
# value appended (note=): P5 (1.1.1) lets an IUT write its outputs in any
# order, and a runner ignores keys it does not know, so this IUT passes.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello reorder ;;
ops)
    "$IT_REF_CLI" ops | sed -u -E -e 's/^(id=[^ ]*) ([^ ]*) (.*)$/\1 \3 \2/' -e '/ error=/!s/$/ note=/' ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
