#!/bin/sh
# Usage: ci/matrix.sh CONFORM HOSTS_FILE OUT_DIR [JOBS]
# The emulated host matrix (mk/matrix.mk, `make matrix`): builds every build
# the hosts file names (mk/cross.mk), runs the conformance runner at level
# `all` on every host, JOBS at a time (default 2), one receipt per host in
# OUT_DIR/<host>.json (plus <host>.log and <host>.junit.xml). The table and
# the verdict are `isotrain-conform matrix`'s (mk/matrix.mk runs it next).
# A build that fails leaves a build-failure record as the host's receipt, so
# the table shows the host as "build failed" (never green). Exit status 0
# once every host has a receipt or a build-failure record, 2 on a bad hosts file.
# The host list comes from the hosts file through `isotrain-conform matrix
# --list` (one parser of hosts.json). MATRIX_HOSTS="a b" limits the run to
# those hosts (the table then lists the others as without receipt).
# MATRIX_SIGN_KEY=FILE signs every receipt with that SSH key once its run is over (isotrain-conform sign;
# `make publish-matrix` passes the project key).
set -u

if [ "${1:-}" = --one ]; then
    # --one CONFORM OUT_DIR NAME BUILD SLOWDOWN IUT-COMMAND: one host
    conform=$2 out=$3 name=$4 build=$5 slowdown=$6 iut=$7
    if [ -e "$out/build-$build.failed" ]; then
        printf '{"schema": "isotrain-matrix-build-failure-v1", "matrix_host": "%s", "build": "%s", "log": "%s"}\n' \
            "$name" "$build" "$out/build-$build.log" > "$out/$name.json"
        echo "matrix: $name: build $build failed (see $out/build-$build.log)"
        exit 0
    fi
    start=$(date +%s)
    # the argv form (after --, no shell): the runner starts the emulator
    # itself and binds it and the guest (their digests, the guest's machine
    # type), so the receipt's host is measured, not only named
    set -f
    # shellcheck disable=SC2086
    "$conform" run --vectors "${MATRIX_VECTORS:-vectors/v1.0.0}" --level all --slowdown "$slowdown" --host "$name" \
        --receipt "$out/$name.json" --junit "$out/$name.junit.xml" -- $iut > "$out/$name.log" 2>&1
    rc=$?
    # signed in a step of its own once the IUT is gone (isotrain-conform sign)
    [ -z "${MATRIX_SIGN_KEY:-}" ] || "$conform" sign --sign-key "$MATRIX_SIGN_KEY" "$out/$name.json" >> "$out/$name.log" 2>&1 ||
        echo "matrix: $name: could not sign $out/$name.json (see $out/$name.log)"
    set +f
    echo "matrix: $name: $(tail -n 1 "$out/$name.log") (exit $rc, $(( $(date +%s) - start )) s wall)"
    exit 0
fi

conform=${1:?usage: ci/matrix.sh CONFORM HOSTS_FILE OUT_DIR [JOBS]}
hosts=${2:?hosts file}
out=${3:?output directory}
jobs=${4:-2}
make=${MAKE:-make}

mkdir -p "$out"
list=$("$conform" matrix --hosts "$hosts" --list) || exit 2
if [ -n "${MATRIX_HOSTS:-}" ]; then
    list=$(printf '%s\n' "$list" | awk -v keep=" $MATRIX_HOSTS " 'index(keep, " " $1 " ")')
fi
# stale receipts of an earlier run must not stand in for this one
for name in $(printf '%s\n' "$list" | cut -f1); do
    rm -f "$out/$name.json" "$out/$name.log" "$out/$name.junit.xml"
done
rm -f "$out"/build-*.failed "$out/MATRIX.md"

start=$(date +%s)
for build in $(printf '%s\n' "$list" | cut -f2 | sort -u); do
    if $make --no-print-directory "cross-$build" > "$out/build-$build.log" 2>&1; then
        echo "matrix: build $build: ok"
    else
        : > "$out/build-$build.failed"
        echo "matrix: build $build: FAILED; the last lines of $out/build-$build.log:"
        tail -n 5 "$out/build-$build.log" | sed 's/^/    /'
    fi
done
# Wine creates its prefix (a Windows directory tree, ~10 s) on first use and
# says so on stderr: done once here, so no host's time-outs or recorded
# warnings include it. WINEPREFIX defaults to one under the build directory.
export WINEPREFIX="${WINEPREFIX:-$(pwd)/build/wine-prefix}" WINEDEBUG="${WINEDEBUG:--all}"
# Wine keeps its server's socket directory in TMPDIR and leaves it behind
# when the runner kills the server with the rest of the IUT's processes:
# the hosts run with a TMPDIR of their own, removed when this script ends.
hosts_tmp=$(mktemp -d "${TMPDIR:-/tmp}/matrix-hosts.XXXXXX") || exit 2
trap 'rm -rf "$hosts_tmp"' EXIT
export TMPDIR="$hosts_tmp"
printf '%s\n' "$list" | cut -f5 | grep '^wine ' | sort -u | while read -r iut; do
    if [ ! -e "$out/build-$(printf '%s\n' "$iut" | sed 's|.*build/cross/\([^/]*\)/.*|\1|').failed" ]; then
        sh -c "$iut hello" > /dev/null 2>&1 || echo "matrix: priming Wine ($iut hello) failed"
    fi
done
built=$(date +%s)

# one line per host, run JOBS at a time; the negative controls first (their
# failing runs are the longest: the runner localizes the difference)
{ printf '%s\n' "$list" | awk -F '\t' '$3 == "expected-fail"'
  printf '%s\n' "$list" | awk -F '\t' '$3 != "expected-fail"'; } | while IFS="$(printf '\t')" read -r name build expected slowdown iut; do
    printf '%s\0%s\0%s\0%s\0' "$name" "$build" "$slowdown" "$iut"
done | xargs -0 -n 4 -P "$jobs" sh "$0" --one "$conform" "$out"
ran=$(date +%s)

echo "matrix: builds $(( built - start )) s, hosts $(( ran - built )) s ($jobs at a time), total $(( ran - start )) s"
