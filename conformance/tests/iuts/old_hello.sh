#!/bin/sh
# The reference as a spec 1.0.0 IUT: its hello has no train_seed=1, so the
# runner cannot run the fresh-seed training (P7, spec 1.1.0): PARTIAL.
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello old ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
