#!/bin/sh
# Trains correctly, then exits with status 3.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello exit-nonzero ;;
train) shift; ref_train "$@"; echo "something went wrong" >&2; exit 3 ;;
*) unsupported ;;
esac
