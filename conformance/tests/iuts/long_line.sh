#!/bin/sh
# Answers the first ops request with a 5 MiB line (the cap is 4 MiB, P3).
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello long-line ;;
ops)
    read -r line
    printf 'id=dot/1 y='
    head -c 5242880 /dev/zero | tr '\0' '0'
    echo
    while read -r line; do :; done ;;
*) unsupported ;;
esac
