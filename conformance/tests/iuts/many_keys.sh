#!/bin/sh
# Answers the first request with one legal ~3.5 MiB line of 300,000 distinct
# keys (under the 4 MiB cap): judging it must take linear time, not
# quadratic (pairwise duplicate checks took minutes).
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello many-keys ;;
ops)
    read -r line
    id=${line%% *}
    awk -v id="$id" 'BEGIN { printf "%s", id; for (i = 0; i < 300000; i++) printf " k%d=1", i; printf "\n" }'
    while read -r line; do :; done ;;
*) unsupported ;;
esac
