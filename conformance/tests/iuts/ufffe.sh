#!/bin/sh
# Answers every request with an error value holding U+FFFE (the bytes EF BF
# BE), a character XML 1.0 forbids: the JUnit file must stay well-formed.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello ufffe ;;
ops)
    while read -r line; do
        printf '%s error=bad\357\277\276x\n' "${line%% *}"
    done ;;
*) unsupported ;;
esac
