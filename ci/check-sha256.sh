#!/bin/sh
# Usage: ci/check-sha256.sh NATIVE_CHECK "EMULATED_CHECK"
# SHA-256 (spec §8.2) through every kernel set's compression, natively and
# under an emulator (make check-sha256): reference/tools/sha256_check runs the
# known answers and every prefix of a 2 MiB message per set; each run must
# pass, both hosts must fold the prefix digests to the same value (same
# message, same digests), and the CPU's SHA instructions must really have
# been used where the CPU has them (x86 sha_ni natively; Armv8 SHA2 under
# qemu-aarch64 -cpu cortex-a72), so the check is never a portable-only pass.
set -u
native=${1:?usage: ci/check-sha256.sh NATIVE_CHECK "EMULATED_CHECK"}
emulated=${2:?emulated command}
fail=0
out_n=$($native) || { echo "check-sha256: native run failed:" >&2; printf '%s\n' "$out_n" >&2; fail=1; }
printf '%s\n' "$out_n"
# shellcheck disable=SC2086
out_e=$($emulated) || { echo "check-sha256: emulated run failed:" >&2; printf '%s\n' "$out_e" >&2; fail=1; }
printf '%s\n' "$out_e" | sed 's/^/  (emulated) /'
fold() { printf '%s\n' "$1" | sed -n 's/.*agrees: prefix_fold=\([0-9a-f]*\) oneshot_fold=\([0-9a-f]*\).*/\1 \2/p'; }
fn=$(fold "$out_n") fe=$(fold "$out_e")
if [ -z "$fn" ] || [ "$fn" != "$fe" ]; then
    echo "check-sha256: the hosts disagree (native '$fn', emulated '$fe')" >&2
    fail=1
fi
if grep -qw sha_ni /proc/cpuinfo && ! printf '%s\n' "$out_n" | grep -q 'compression=sha-ni .* ok$'; then
    echo "check-sha256: this CPU has sha_ni but no kernel set used it" >&2
    fail=1
fi
if ! printf '%s\n' "$out_e" | grep -q 'set=neon compression=armv8-sha2 .* ok$'; then
    echo "check-sha256: the emulated aarch64 run did not use the Armv8 SHA2 instructions" >&2
    fail=1
fi
[ $fail -eq 0 ] && echo "check-sha256: every kernel set's SHA-256 equals the definition, natively and emulated ($fn)"
exit $fail
