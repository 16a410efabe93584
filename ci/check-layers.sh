#!/bin/sh
# Usage: ci/check-layers.sh [SRC]        check SRC (default conformance/src)
#        ci/check-layers.sh --self-test  the check on scratch copies with an
#                                        upward include planted: it must fire
#
# conformance/src is layered: a file may include only headers of its own
# layer or of the layers below it. LAYERS is the one statement of the order
# (README.md ARCHITECTURE, conformance/README.md and mk/conformance.mk quote
# it), lowest first. Every #include "..." is resolved to a file (SRC/NAME,
# the including file's own folder, or reference/include for the linked
# reference's isotrain.h); an include that resolves to none, a file in a
# folder the table does not name, and an upward include are each an error
# naming FILE:LINE.
set -u
LAYERS="core host protocol vectorset verdict fresh trust levels report report/matrix report/html cli"
here=$(cd "$(dirname "$0")/.." && pwd)
EXTERNAL="$here/reference/include"

# The rank of a path's layer (0 = core), or nothing when no layer names it:
# the longest layer folder that is a prefix of its folder.
rank_of() {
    best= bestlen=0 i=0
    for l in $LAYERS; do
        case "$1/" in
        "$l"/*)
            if [ ${#l} -gt "$bestlen" ]; then best=$i bestlen=${#l}; fi ;;
        esac
        i=$((i + 1))
    done
    echo "$best"
}

layer_name() { echo "$LAYERS" | tr ' ' '\n' | sed -n "$(($1 + 1))p"; }

check() {
    src=$1
    [ -d "$src" ] || { echo "check-layers: $src: not a directory" >&2; return 2; }
    bad=0 files=0 edges=0
    for f in $(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
        files=$((files + 1))
        from=$(rank_of "$(dirname "$f")")
        if [ -z "$from" ]; then
            echo "check-layers: $src/$f: its folder is not a layer (ci/check-layers.sh LAYERS: $LAYERS)"
            bad=1
            continue
        fi
        # "LINE NAME" for every quoted include
        incs=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src/$f" |
                   sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/')
        [ -n "$incs" ] || continue
        while read -r line name; do
            if [ -f "$src/$name" ]; then
                target=$name
            elif [ -f "$src/$(dirname "$f")/$name" ]; then
                target=$(dirname "$f")/$name
            elif [ -f "$EXTERNAL/$name" ]; then
                continue # the linked reference (libisotrain), below every layer
            else
                echo "check-layers: $src/$f:$line: #include \"$name\" resolves to no file under $src or $EXTERNAL"
                bad=1
                continue
            fi
            edges=$((edges + 1))
            to=$(rank_of "$(dirname "$target")")
            if [ -z "$to" ]; then
                echo "check-layers: $src/$f:$line: #include \"$name\": $target is in no layer"
                bad=1
            elif [ "$to" -gt "$from" ]; then
                echo "check-layers: $src/$f:$line: #include \"$name\": an upward edge, from $(layer_name "$from")/ to $(layer_name "$to")/ (the order, lowest first: $LAYERS)"
                bad=1
            fi
        done <<EOF
$incs
EOF
    done
    if [ "$bad" = 0 ]; then
        echo "check-layers: $src: $files files, $edges includes, none upward ($LAYERS)"
    fi
    return "$bad"
}

# The negative controls: a clean copy passes; each planted defect (the
# former levels <-> report cycle, core including the command line, an
# include of nothing, a folder outside the table) makes the check fail and
# name the file.
self_test() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-layers.XXXXXX") || exit 2
    trap 'rm -rf "$tmp"' EXIT
    fail=0
    plant() { # NAME FILE LINE-TO-ADD [NEW-DIR]
        rm -rf "$tmp/src" && cp -R "$here/conformance/src" "$tmp/src"
        [ -n "${4:-}" ] && mkdir -p "$tmp/src/$4"
        printf '%s\n' "$3" >> "$tmp/src/$2"
        if out=$(check "$tmp/src"); then
            echo "check-layers --self-test: $1: NOT detected"
            fail=1
        elif ! echo "$out" | grep -q "$tmp/src/$2"; then
            echo "check-layers --self-test: $1: failed without naming $2: $out"
            fail=1
        else
            echo "check-layers --self-test: $1: detected ($(echo "$out" | head -n 1 | sed "s|$tmp/src/||"))"
        fi
    }
    rm -rf "$tmp/src" && cp -R "$here/conformance/src" "$tmp/src"
    check "$tmp/src" >/dev/null || { echo "check-layers --self-test: the clean copy fails"; fail=1; }
    plant "levels includes report (the former cycle)" levels/run_ctx.h '#include "report/junit.h"'
    plant "core includes cli" core/util.c '#include "cli/commands.h"'
    plant "host includes levels" host/hostinfo.h '#include "levels/run_ctx.h"'
    plant "an include of no file" trust/sshsig.c '#include "trust/no_such.h"'
    plant "a folder outside the table" misc/x.c '#include "core/util.h"' misc
    [ "$fail" = 0 ] && echo "check-layers --self-test: every planted defect was found"
    return "$fail"
}

case "${1:-}" in
--self-test) self_test ;;
*) check "${1:-$here/conformance/src}" ;;
esac
