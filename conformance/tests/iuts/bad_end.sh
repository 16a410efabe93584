#!/bin/sh
# Answers every ops request correctly (through the reference), then ends
# wrongly (IT_BAD_END says how); P3: it exits 0 at end of input, nothing more.
#   crash      killed by SIGSEGV
#   nonzero    exit status 3
#   hang       never exits
#   extra      prints one more, unsolicited line
# IT_BAD_END_SESSION: golden (the session of the vectors' cases), fresh (the
# session of the fresh cases, whose ids start with fresh/) or both (the
# default). Otherwise it is the reference (hello, train), so that nothing
# but the end of one session keeps the run from passing.
. "$(dirname "$0")/common.sh"
case $1 in
hello) if [ -n "${IT_BAD_END_SESSION:-}" ]; then exec "$IT_REF_CLI" hello; else hello bad-end; fi ;;
train) shift; exec "$IT_REF_CLI" train "$@" ;;
ops)
    read -r first || exit 0
    { printf '%s\n' "$first"; cat; } | "$IT_REF_CLI" ops || exit 1
    case ${IT_BAD_END_SESSION:-both}:$first in
    both:* | golden:id=[!f]* | golden:id=f[!r]* | fresh:id=fresh/*) ;;
    *) exit 0 ;;
    esac
    case $IT_BAD_END in
    crash) kill -SEGV $$ ;;
    nonzero) exit 3 ;;
    hang) exec sleep 600 ;;
    extra) echo "id=unsolicited y=00000000" ;;
    esac ;;
*) unsupported ;;
esac
