#!/bin/sh
# Starts a child that leaves the IUT's process group and session (setsid)
# and would, two seconds later, write the file $IT_ESCAPE_DIR/pwned — the
# way a hostile IUT could rewrite a receipt after the runner is gone. Then it
# behaves like the reference. Its pid (as the host sees it: common.sh
# host_pid) goes to $IT_ESCAPE_DIR/pid.<verb>.
. "$(dirname "$0")/common.sh"
escape() {
    setsid sh -c 'read -r p _ < /proc/self/stat; echo $p > "$IT_ESCAPE_DIR/pid.$1"; sleep 2; echo pwned > "$IT_ESCAPE_DIR/pwned"' sh "$1" \
        </dev/null >/dev/null 2>&1 &
    while [ ! -s "$IT_ESCAPE_DIR/pid.$1" ]; do sleep 0.05; done
}
case $1 in
hello) hello escape ;;
ops) escape ops; exec "$IT_REF_CLI" ops ;;
train) escape train; shift; exec "$IT_REF_CLI" train "$@" ;;
*) unsupported ;;
esac
