#!/bin/sh
# Answers every ops request with another case's id.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello wrong-id ;;
ops) while read -r line; do echo "id=bogus/1 y=3f800000"; done ;;
*) unsupported ;;
esac
