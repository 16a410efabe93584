# Shared by the script IUTs of the runner's negative controls. Each script is
# run as `sh -c 'SCRIPT "$@"' sh VERB ARGS...` (spec/iut-protocol.md P1) and
# misbehaves in exactly one way; the reference CLI ($IT_REF_CLI) does the
# real work where a real result is needed.

# hello NAME: the P2 line.
hello() {
    echo "protocol=1 name=$1 version=0 spec=1.0.0"
}

# parse_train ARGS...: sets TRACE, CKDIR, STEPS, PROFILE, RECIPE and FROM
# (--from-step) from the P7 arguments (PROFILE, RECIPE and FROM empty when
# not given).
parse_train() {
    PROFILE= RECIPE= FROM=
    while [ $# -gt 0 ]; do
        case $1 in
        --trace) TRACE=$2; shift 2 ;;
        --checkpoint-dir) CKDIR=$2; shift 2 ;;
        --steps) STEPS=$2; shift 2 ;;
        --profile) PROFILE=$2; shift 2 ;;
        --recipe) RECIPE=$2; shift 2 ;;
        --from-step) FROM=$2; shift 2 ;;
        *) shift ;;
        esac
    done
}

# flip_bit0 FILE: the lowest bit of FILE's first byte flipped, in place (a
# parameter 1 ULP off in its lowest bit: checkpoints are little-endian).
flip_bit0() {
    byte=$(dd if="$1" bs=1 count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    printf "$(printf '\\%03o' $(( byte ^ 1 )))" | dd of="$1" bs=1 count=1 conv=notrunc 2>/dev/null
}

# flip_checkpoints_after K: flip_bit0 on every checkpoint of $CKDIR past
# step K, so a run is right through step K and wrong after.
flip_checkpoints_after() {
    for f in "$CKDIR"/step-*.bin; do
        n=${f##*/step-}; n=${n%.bin}; n=$(expr "$n" + 0)
        [ "$n" -gt "$1" ] && flip_bit0 "$f"
    done
    return 0
}

# ref_train ARGS...: the reference does the training run (P7).
ref_train() {
    "$IT_REF_CLI" train "$@"
}

unsupported() {
    echo "unsupported verb" >&2
    exit 64
}

# host_pid: sets HOST_PID to this shell's pid as the test (outside the IUT's
# PID namespace, conformance/src/protocol/iut_keeper.h) sees it: /proc is the
# host's, so /proc/self/stat, opened by the shell itself, names that pid
# ($$ is the pid inside the namespace).
host_pid() {
    read -r HOST_PID _ < /proc/self/stat
}
