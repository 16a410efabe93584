#!/bin/sh
# Hangs: train never finishes; ops reads a request and never answers.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello hang ;;
train) sleep 600 ;;
ops) read -r line; sleep 600 ;;
*) unsupported ;;
esac
