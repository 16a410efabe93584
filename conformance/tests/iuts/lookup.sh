#!/bin/sh
# Attack (replay): answers `ops` by looking the answer up in the published
# vector files ($LOOKUP_VECTORS/ops/*.json) and `error=unsupported` for
# anything else; trains with $LOOKUP_TRAIN (the reference, or a mutant),
# passing a fresh --seed on. Before issue 9 it passed the ops level and a
# mutant's failure was "localized" as "every op matches"; fresh cases now
# cannot be looked up, and the replay says localization is not possible.
. "$(dirname "$0")/common.sh"
case $1 in
hello) echo "protocol=1 name=lookup version=0 spec=1.1.0 train_seed=1" ;;
ops) exec python3 "$(dirname "$0")/lookup.py" "$LOOKUP_VECTORS" ;;
train) exec "$LOOKUP_TRAIN" "$@" ;;
*) unsupported ;;
esac
