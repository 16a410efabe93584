#!/bin/sh
# The reference, except that the states it writes (--state-steps, spec 8.3)
# have their first moments zeroed, as a trainer whose state writer forgets m
# would: every run from step 0 and every resume from a state the runner made
# are the reference's; only a resume from its own state shows the defect
# (issue 27 item 6).
. "$(dirname "$0")/common.sh"
case $1 in
train)
    shift; parse_train "$@"
    ref_train "$@" || exit $?
    for f in "$CKDIR"/adam-m-*.bin; do
        [ -f "$f" ] && head -c "$(wc -c < "$f")" /dev/zero > "$f.z" && mv "$f.z" "$f"
    done
    exit 0 ;;
*) exec "$IT_REF_CLI" "$@" ;;
esac
