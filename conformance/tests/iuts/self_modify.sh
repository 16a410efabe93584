#!/bin/sh
# Attack (receipts): the IUT changes its own file while it runs (a binary
# swapped mid-run). Before issue 9 the receipt hashed the IUT only when it
# was written; now it is hashed before the run and after, and verify refuses
# a receipt whose two digests differ. Run it from a copy: it edits itself.
case $1 in
train) echo "# changed during the run" >> "$0" ;;
esac
exec "$IT_REF_CLI" "$@"
