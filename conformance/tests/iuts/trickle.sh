#!/bin/sh
# Reads 4 KiB of requests every 2 s and never answers: every read is progress
# of a kind, and none of it may extend the deadline (P8).
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello trickle ;;
ops) while dd bs=4096 count=1 of=/dev/null 2>/dev/null; do sleep 2; done ;;
*) unsupported ;;
esac
