#!/bin/sh
# Tries to copy the runner's --sign-key (issue 27 item 3), then behaves like
# the reference. Every route a trainer run with the runner's uid has: the
# key's path from the command line of any process it can see
# (/proc/PID/cmdline: the runner's, its ancestors') or known beforehand
# ($IT_KEY_GUESS), then the file itself, the file with a mount over it lifted
# in a user and mount namespace of its own, and any descriptor of a process
# it can see (/proc/PID/fd/*) that is a private key. What it finds goes to
# $IT_KEY_DROP/stolen.<verb>[.how] (a directory anyone may write). The
# runner must leave it nothing to copy.
. "$(dirname "$0")/common.sh"
is_key() { grep -q '^-----BEGIN [A-Z ]*PRIVATE KEY-----$' "$@" 2>/dev/null; }
try_path() {
    is_key "$1" && cat "$1" > "$IT_KEY_DROP/stolen.$2"
    command -v unshare > /dev/null && unshare -Urm sh -c 'umount "$1"; cat "$1"' sh "$1" 2>/dev/null | is_key &&
        cp /dev/null "$IT_KEY_DROP/stolen.$2.unmounted"
    return 0
}
steal() {
    [ -n "$IT_KEY_GUESS" ] && try_path "$IT_KEY_GUESS" "$1"
    for c in /proc/[0-9]*/cmdline; do
        key=$({ tr '\0' '\n' < "$c"; } 2>/dev/null | sed -n '/^--sign-key$/{n;p;q}')
        [ -n "$key" ] || continue
        case $key in /*) ;; *) key=$(readlink "${c%/cmdline}/cwd")/$key ;; esac
        try_path "$key" "$1"
    done
    for f in /proc/[0-9]*/fd/*; do
        [ -f "$f" ] || continue # a pipe would block the read
        is_key "$f" && cat "$f" > "$IT_KEY_DROP/stolen.$1.fd"
    done
    return 0
}
case $1 in
hello) steal hello; hello key_thief ;;
ops) steal ops; exec "$IT_REF_CLI" ops ;;
train) steal train; shift; exec "$IT_REF_CLI" train "$@" ;;
*) unsupported ;;
esac
