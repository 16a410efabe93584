#!/bin/sh
# Implements hello and nothing else (P1: exit 64, "unsupported verb").
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello hello-only ;;
*) unsupported ;;
esac
