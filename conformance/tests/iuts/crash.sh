#!/bin/sh
# Crashes with SIGSEGV: train after writing a complete, correct run; ops at once.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello crash ;;
train) shift; ref_train "$@"; kill -SEGV $$ ;;
ops) kill -SEGV $$ ;;
*) unsupported ;;
esac
