#!/bin/sh
# Trains like the reference, then replaces one of its output files by
# something the runner must refuse to read (IT_BAD_FILE says which):
#   trace-fifo     the trace is a FIFO (opening it blocking would hang)
#   trace-stdin    the trace is a link to /dev/stdin (the runner's own stdin)
#   ck-fifo        step-000002.bin is a FIFO
#   ck-pagemap     step-000001.bin is a link to /proc/self/pagemap ("regular",
#                  size 0, reads as 256 GiB)
#   ckdir-link     the checkpoint directory is a link to a copy of itself
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello bad-files ;;
train)
    shift; parse_train "$@"; ref_train "$@" || exit 1
    case $IT_BAD_FILE in
    trace-fifo) rm -f "$TRACE"; mkfifo "$TRACE" ;;
    trace-stdin) rm -f "$TRACE"; ln -s /dev/stdin "$TRACE" ;;
    ck-fifo) rm -f "$CKDIR/step-000002.bin"; mkfifo "$CKDIR/step-000002.bin" ;;
    ck-pagemap) rm -f "$CKDIR/step-000001.bin"; ln -s /proc/self/pagemap "$CKDIR/step-000001.bin" ;;
    ckdir-link) cp -r "$CKDIR" "$CKDIR.copy"; rm -rf "$CKDIR"; ln -s "$CKDIR.copy" "$CKDIR" ;;
    esac ;;
*) unsupported ;;
esac
