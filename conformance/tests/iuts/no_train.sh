#!/bin/sh
# Attack (scope): answers hello and every op through the reference, has no
# train verb. Run with --level all and a --filter naming every op group, it
# got PASS on main before issue 9; now the unrun train level makes it PARTIAL.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello no-train ;;
ops) exec "$IT_REF_CLI" "$@" ;;
*) unsupported ;;
esac
