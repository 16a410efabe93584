#!/bin/sh
# Usage: ci/ensure-deps.sh GROUP...
# Checks what a make target needs; as root on Debian it installs what is
# missing with apt-get, otherwise it names exactly what is missing and how to
# get it, and exits 1. Groups:
#   build    a C11 compiler and make
#   test     Criterion (unit tests), MPFR/GMP (the exp/log proof tool)
#   cjson    cJSON (the conformance runner)
#   cross    the aarch64 cross compiler and qemu-user (the cross-ISA check)
#   python   a python3 interpreter (the standard-library example IUT)
#   sign     ssh-keygen with -Y sign/verify (OpenSSH >= 8.1): signed receipts
#   torch    PyTorch and numpy for $PYTORCH_PY (default /usr/bin/python3):
#            Debian's python3-torch, never PyPI wheels (adapters/pytorch)
#   yaml     PyYAML for /usr/bin/python3 (the GitHub workflow's check)
#   numpy    numpy for /usr/bin/python3 (reading `isotrain export` files back)
#   jsonschema  python3-jsonschema for /usr/bin/python3 (spec/receipt.schema.json)
#   qemu     the x86_64 user-mode emulator alone (qemu-x86_64)
#   sysroot  what ci/pytorch-sysroot.sh needs: apt-get, dpkg-deb, Debian's archive
#            keys, and qemu-aarch64/-s390x/-ppc64le to run the result
#   matrix   every cross compiler, static libc and qemu-user of qemu/hosts.json,
#            MinGW-w64 and Wine (the Windows host)
#   fuzz     clang with libFuzzer and the sanitizer runtimes (make fuzz)
#   browser  Debian's chromium (headless) and a font for its screenshots, python3
#            (make test-report: the conformance page opened in a real browser)
#   mpi      Open MPI: mpicc and mpi.h, and mpirun (the data-parallel trainer, mk/mpi.mk)
#   ccache   the compiler cache the mutation matrix builds through (ci/mutants.sh):
#            ~50 builds of one tree that differ in a file or a flag each
set -u

CC=${CC:-cc}
missing_pkgs=""
missing_what=""

need() { # need PACKAGE WHAT
    missing_pkgs="$missing_pkgs $1"
    missing_what="$missing_what
  - $2 (Debian package: $1)"
}

has_header() { # has_header HEADER LIB
    printf '#include <%s>\nint main(void){return 0;}\n' "$1" |
        $CC -x c - -o /dev/null ${2:+-l$2} >/dev/null 2>&1
}

check() {
    missing_pkgs=""
    missing_what=""
    for group in "$@"; do
        case $group in
        build)
            command -v "$CC" >/dev/null 2>&1 || need gcc "a C compiler ($CC)"
            command -v make >/dev/null 2>&1 || need make "GNU make"
            ;;
        test)
            has_header criterion/criterion.h criterion || need libcriterion-dev "Criterion headers and library (criterion/criterion.h, -lcriterion)"
            has_header mpfr.h mpfr || need libmpfr-dev "MPFR headers and library (mpfr.h, -lmpfr)"
            has_header gmp.h gmp || need libgmp-dev "GMP headers and library (gmp.h, -lgmp)"
            ;;
        cjson)
            has_header cjson/cJSON.h cjson || need libcjson-dev "cJSON headers and library (cjson/cJSON.h, -lcjson)"
            ;;
        cross)
            command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need gcc-aarch64-linux-gnu "aarch64 cross compiler (aarch64-linux-gnu-gcc)"
            [ -e /usr/aarch64-linux-gnu/lib/libc.a ] || need libc6-dev-arm64-cross "aarch64 static libc (/usr/aarch64-linux-gnu/lib/libc.a)"
            command -v qemu-aarch64 >/dev/null 2>&1 || need qemu-user "QEMU user-mode emulator (qemu-aarch64)"
            ;;
        python)
            command -v python3 >/dev/null 2>&1 || need python3 "a Python 3 interpreter (python3)"
            ;;
        sign)
            command -v ssh-keygen >/dev/null 2>&1 && ssh-keygen -Y sign 2>&1 | grep -qi namespace ||
                need openssh-client "ssh-keygen with -Y sign/verify (OpenSSH 8.1 or later)"
            ;;
        torch)
            py=${PYTORCH_PY:-/usr/bin/python3}
            "$py" -c 'import torch, numpy' >/dev/null 2>&1 ||
                need python3-torch "PyTorch and numpy for $py (Debian's packages are for /usr/bin/python3)"
            ;;
        sysroot)
            command -v apt-get >/dev/null 2>&1 || need apt "apt-get (the sysroots come from the Debian archive)"
            command -v dpkg-deb >/dev/null 2>&1 || need dpkg "dpkg-deb"
            [ -r /usr/share/keyrings/debian-archive-keyring.gpg ] || need debian-archive-keyring "Debian's archive keys"
            for emu in qemu-aarch64 qemu-s390x qemu-ppc64le; do
                command -v $emu >/dev/null 2>&1 || { need qemu-user "QEMU user-mode emulators ($emu)"; break; }
            done
            ;;
        yaml)
            /usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || need python3-yaml "PyYAML for /usr/bin/python3"
            ;;
        jsonschema)
            /usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1 ||
                need python3-jsonschema "python3-jsonschema for /usr/bin/python3"
            ;;
        numpy)
            /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 ||
                need python3-numpy "numpy for /usr/bin/python3"
            ;;
        qemu)
            command -v qemu-x86_64 >/dev/null 2>&1 || need qemu-user "QEMU user-mode emulator (qemu-x86_64)"
            ;;
        matrix)
            for pair in aarch64-linux-gnu:arm64 s390x-linux-gnu:s390x i686-linux-gnu:i386 \
                        powerpc64le-linux-gnu:ppc64el arm-linux-gnueabihf:armhf riscv64-linux-gnu:riscv64; do
                triple=${pair%%:*}
                arch=${pair#*:}
                command -v "$triple-gcc" >/dev/null 2>&1 || need "gcc-$triple" "cross compiler $triple-gcc"
                [ -e "/usr/$triple/lib/libc.a" ] || need "libc6-dev-$arch-cross" "static libc for $triple (/usr/$triple/lib/libc.a)"
            done
            for emu in qemu-x86_64 qemu-aarch64 qemu-s390x qemu-i386 qemu-ppc64le qemu-arm qemu-riscv64; do
                command -v $emu >/dev/null 2>&1 || { need qemu-user "QEMU user-mode emulators ($emu)"; break; }
            done
            # the Windows host: MinGW-w64 cross compiler, Wine (64-bit loader and the `wine` command)
            command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need gcc-mingw-w64-x86-64 "MinGW-w64 cross compiler (x86_64-w64-mingw32-gcc)"
            [ -x /usr/lib/wine/wine64 ] || need wine64 "Wine's 64-bit loader (/usr/lib/wine/wine64)"
            command -v wine >/dev/null 2>&1 || need wine "the wine command"
            # ci/matrix-windows.sh reads the hosts file and the receipts with it
            [ -x /usr/bin/python3 ] || need python3 "/usr/bin/python3 (ci/matrix-windows.sh's table)"
            ;;
        fuzz)
            cl=${FUZZ_CC:-clang}
            if ! command -v "$cl" >/dev/null 2>&1; then
                need clang "clang ($cl), the compiler libFuzzer comes with"
            elif ! printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n){(void)d;(void)n;return 0;}\n' |
                "$cl" -x c - -fsanitize=fuzzer,address,undefined -o /dev/null >/dev/null 2>&1; then
                need libclang-rt-14-dev "libFuzzer and the sanitizer runtimes for $cl (-fsanitize=fuzzer,address,undefined)"
            fi
            ;;
        browser)
            [ -x /usr/bin/chromium ] || need chromium "Chromium, run headless (/usr/bin/chromium)"
            command -v fc-list >/dev/null 2>&1 && [ -n "$(fc-list 2>/dev/null | head -n 1)" ] ||
                need fonts-dejavu-core "a font for chromium's screenshots (fc-list lists none)"
            [ -x /usr/bin/python3 ] || need python3 "/usr/bin/python3 (ci/check-report-browser.py)"
            ;;
        mpi)
            if ! command -v mpicc >/dev/null 2>&1 ||
                ! printf '#include <mpi.h>\nint main(void){return 0;}\n' | mpicc -x c - -o /dev/null >/dev/null 2>&1; then
                need libopenmpi-dev "Open MPI's headers, libraries and compiler wrapper (mpi.h, mpicc)"
            fi
            command -v mpirun >/dev/null 2>&1 || need openmpi-bin "Open MPI's launcher (mpirun)"
            ;;
        ccache)
            command -v ccache >/dev/null 2>&1 || need ccache "ccache, the compiler cache of the mutant builds (ci/mutants.sh)"
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
    # Builds that run side by side (make -j2: test-prebuild) may each find
    # something missing: one installs at a time (dpkg's own lock would fail
    # the second), and whoever waited looks again before installing.
    if command -v flock >/dev/null 2>&1; then
        exec 9>/tmp/isotrain-ensure-deps.lock
        flock 9
        missing_pkgs="" missing_what=""
        check "$@"
        [ -z "$missing_pkgs" ] && exit 0
    fi
    echo "ensure-deps: installing:$missing_pkgs" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends $missing_pkgs >&2
    check "$@"
    [ -z "$missing_pkgs" ] && exit 0
    echo "ensure-deps: apt-get ran, but these are still missing:$missing_what" >&2
    exit 1
fi

echo "ensure-deps: missing:$missing_what" >&2
echo "install them with: sudo apt-get install$missing_pkgs" >&2
exit 1
