# Shared by the script IUTs of the runner's negative controls. Each script is
# run as `sh -c 'SCRIPT "$@"' sh VERB ARGS...` (spec/iut-protocol.md P1) and
# misbehaves in exactly one way; the reference CLI ($IT_REF_CLI) does the
# real work where a real result is needed.

# hello NAME: the P2 line.
hello() {
    echo "protocol=1 name=$1 version=0 spec=1.0.0"
}

# parse_train ARGS...: sets TRACE, CKDIR and STEPS from the P7 arguments.
parse_train() {
    while [ $# -gt 0 ]; do
        case $1 in
        --trace) TRACE=$2; shift 2 ;;
        --checkpoint-dir) CKDIR=$2; shift 2 ;;
        --steps) STEPS=$2; shift 2 ;;
        *) shift ;;
        esac
    done
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
