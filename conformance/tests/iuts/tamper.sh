#!/bin/sh
# tamper.sh SRC DST FILE: copies the vector set SRC to DST and flips one byte
# (the 100th) of DST/FILE, the way a damaged or edited copy would look.
set -eu
src=$1 dst=$2 file=$3
rm -rf "$dst"
cp -R "$src" "$dst"
f="$dst/$file"
byte=$(dd if="$f" bs=1 skip=99 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
new=$(( (byte + 1) % 256 ))
printf "$(printf '\\%03o' "$new")" | dd of="$f" bs=1 seek=99 count=1 conv=notrunc 2>/dev/null
