#!/bin/sh
# Usage: ci/check-install.sh MAKE WORKDIR   (make test-install)
# make install into WORKDIR/prefix from a build of its own (WORKDIR/build,
# so the runner's baked-in data directory is that prefix), then from a
# directory with no vectors in it:
#   1. the installed runner names the installed vectors as its default;
#   2. it certifies the installed CLI with them (the argv form, a full
#      certification, every level: its verdict and exit status decide);
#   2b. its verify checks signatures against the installed allowed signers
#      by default (a published receipt verifies, this run's own unsigned
#      receipt is UNSIGNED unless --allow-unsigned), and finds the installed
#      vector set without --vectors as run does;
#   3. a C program builds against libisotrain with pkg-config's flags and
#      computes the spec's step-0 digest (spec §11.4);
# and make uninstall leaves no file in the prefix. Exit 0 only if all hold.
set -u
make=$1
work=$2
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work/elsewhere"
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

if ! $make --no-print-directory BUILD="$work/build" PREFIX="$prefix" install > "$work/install.log" 2>&1; then
    tail -n 20 "$work/install.log"
    bad "make install PREFIX=$prefix"
    exit 1
fi
ok "make install PREFIX=$prefix ($(find "$prefix" -type f | wc -l) files)"

repo=$(pwd)
# the newest set, the runner's default (conformance/src/core/version.h)
newest=$(sed -n 's/^#define CONFORM_DEFAULT_VECTOR_SET "\(v[0-9.]*\)".*/\1/p' conformance/src/core/version.h)
[ -n "$newest" ] || { bad "no CONFORM_DEFAULT_VECTOR_SET in conformance/src/core/version.h"; exit 1; }
cd "$work/elsewhere" || exit 1
want="$prefix/share/isotrain/vectors/$newest"
if "$prefix/bin/isotrain-conform" --version | grep -qx "default vectors: $want"; then
    ok "isotrain-conform --version: default vectors $want"
else
    bad "isotrain-conform --version does not name $want: $("$prefix/bin/isotrain-conform" --version)"
fi
"$prefix/bin/isotrain-conform" run --iut-exec "$prefix/bin/isotrain" --receipt run.json > run.log 2>&1
rc=$?
if [ $rc = 0 ] && grep -q "$want" run.log && tail -n 1 run.log | grep -q "PASS (full certification)"; then
    ok "installed runner, installed CLI, installed vectors, from $(pwd): $(tail -n 1 run.log)"
else
    tail -n 15 run.log
    bad "installed runner from $(pwd) (exit $rc)"
fi
# verify checks signatures by default against the installed allowed signers:
# a published receipt (signed by a project key) verifies from here; this
# run's own receipt is UNSIGNED (exit 1) unless --allow-unsigned says so
keys="$prefix/share/isotrain/KEYS/allowed_signers"
pub=$(ls "$repo"/vectors/v1.0.0/receipts/*.json 2>/dev/null | head -n 1)
if [ -f "$keys" ] && "$prefix/bin/isotrain-conform" verify --vectors "$prefix/share/isotrain/vectors/v1.0.0" "$pub" > verify.log 2>&1 &&
    grep -q "signatures checked against $keys" verify.log && grep -q "signer: signed by .*project key" verify.log; then
    ok "installed verify: the installed allowed signers ($keys) by default: $(grep 'signer:' verify.log | head -n 1 | cut -c1-110)"
else
    cat verify.log
    bad "installed verify with the installed allowed signers"
fi
if ! "$prefix/bin/isotrain-conform" verify run.json > unsigned.log 2>&1 && grep -q "UNSIGNED" unsigned.log &&
    "$prefix/bin/isotrain-conform" verify --allow-unsigned run.json > allowed.log 2>&1; then
    ok "installed verify: this run's unsigned receipt is UNSIGNED by default, accepted with --allow-unsigned"
else
    cat unsigned.log allowed.log
    bad "installed verify of an unsigned receipt"
fi

cat > digest.c <<'C'
#include <stdio.h>
#include <isotrain.h>
int main(void)
{
    static float p[IT_MLP13K_NPARAMS], am[IT_AM_NPARAMS];
    char hex[65];
    it_addmod113_init(IT_AM_SEED, am); /* links the threaded addmod113 code too */
    it_mlp13k_recipe r = it_mlp13k_default_recipe();
    it_mlp13k_init(&r, p);
    it_params_digest(p, IT_MLP13K_NPARAMS, hex);
    puts(hex);
    return 0;
}
C
flags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs isotrain) &&
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror digest.c $flags -o digest &&
    got=$(./digest)
if [ "${got:-}" = 05a8aa50bacb79781ff5a30c4d167dacd992201238083eb70e3ed5528ffa3fd6 ]; then
    ok "pkg-config --cflags --libs isotrain ($flags): a program computes the §11.4 step-0 digest"
else
    bad "pkg-config build of a libisotrain program: flags '${flags:-}', digest '${got:-}'"
fi
cd - > /dev/null || exit 1

$make --no-print-directory BUILD="$work/build" PREFIX="$prefix" uninstall > "$work/uninstall.log" 2>&1 ||
    bad "make uninstall"
left=$(find "$prefix" -type f)
if [ -z "$left" ]; then
    ok "make uninstall: no file left under $prefix"
else
    bad "make uninstall left: $left"
fi
[ $fail = 0 ] && echo "check-install: all checks passed"
exit $fail
