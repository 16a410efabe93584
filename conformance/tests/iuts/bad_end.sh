#!/bin/sh
# Answers every ops request correctly (through the reference), then ends
# wrongly (IT_BAD_END says how); P3: it exits 0 at end of input, nothing more.
#   crash      killed by SIGSEGV
#   nonzero    exit status 3
#   hang       never exits
#   extra      prints one more, unsolicited line
. "$(dirname "$0")/common.sh"
case $1 in
hello) hello bad-end ;;
ops)
    "$IT_REF_CLI" ops || exit 1
    case $IT_BAD_END in
    crash) kill -SEGV $$ ;;
    nonzero) exit 3 ;;
    hang) exec sleep 600 ;;
    extra) echo "id=unsolicited y=00000000" ;;
    esac ;;
*) unsupported ;;
esac
