#!/bin/sh
# Usage: adapters/pytorch/ensure-deps.sh PYTHON [qemu]
# Checks that PYTHON imports torch and numpy (Debian: python3-torch, which
# pulls python3-numpy) and, with `qemu`, that qemu-x86_64 exists (qemu-user).
# As root on Debian it installs what is missing with apt-get
# (--no-install-recommends: libtorch-dev, build-essential, ninja-build and
# pybind11-dev are not needed to run PyTorch); otherwise it names the missing
# packages and exits 1. ISOTRAIN_NO_INSTALL=1 turns installing off.
# Same conventions as ci/ensure-deps.sh.
set -u
PY=${1:?usage: ensure-deps.sh PYTHON [qemu]}
shift

check() {
    missing_pkgs=""
    missing_what=""
    if ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
        missing_pkgs="$missing_pkgs python3-torch"
        missing_what="$missing_what
  - PyTorch and numpy for $PY (Debian package: python3-torch; PyPI wheels are not used)"
    fi
    for group in "$@"; do
        case $group in
        qemu)
            command -v qemu-x86_64 >/dev/null 2>&1 || {
                missing_pkgs="$missing_pkgs qemu-user"
                missing_what="$missing_what
  - QEMU user-mode emulator qemu-x86_64 (Debian package: qemu-user)"
            }
            ;;
        *)
            echo "ensure-deps.sh: unknown group '$group'" >&2
            exit 2
            ;;
        esac
    done
}

check "$@"
[ -z "$missing_pkgs" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ -z "${ISOTRAIN_NO_INSTALL:-}" ]; then
    echo "pytorch ensure-deps: installing:$missing_pkgs (python3-torch is ~190 MB of packages)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $missing_pkgs >&2
    check "$@"
    [ -z "$missing_pkgs" ] && exit 0
    echo "pytorch ensure-deps: apt-get ran, but these are still missing:$missing_what" >&2
    if [ "$PY" != /usr/bin/python3 ]; then
        echo "(Debian's packages are for /usr/bin/python3; run make with PYTORCH_PY=/usr/bin/python3)" >&2
    fi
    exit 1
fi

echo "pytorch ensure-deps: missing:$missing_what" >&2
echo "install them with: sudo apt-get install --no-install-recommends$missing_pkgs" >&2
if [ "$PY" != /usr/bin/python3 ]; then
    echo "(Debian's packages are for /usr/bin/python3; this make uses PYTORCH_PY=$PY)" >&2
fi
exit 1
