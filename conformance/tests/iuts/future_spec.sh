#!/bin/sh
# Claims a spec of another major version; otherwise the reference.
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=future-spec version=0 spec=2.0.0" ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
