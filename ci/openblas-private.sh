#!/bin/sh
# Usage: ci/openblas-private.sh DESTDIR [pthread|serial|openmp]
# Debian's OpenBLAS in a private folder, never installed: `apt-get download`
# of libopenblas0-<variant> (default pthread, what `apt install libopenblas0`
# brings) into DESTDIR/debs, unpacked with `dpkg-deb -x` into DESTDIR/root.
# Prints one line: the directory holding OpenBLAS's libblas.so.3, for
#   LD_LIBRARY_PATH=$(ci/openblas-private.sh build/openblas) python3 ...
# so that torch's and numpy's libblas.so.3 resolve to OpenBLAS in that
# process only. Installing libopenblas0 would switch the system's
# libblas.so.3 alternative for every process (and so break the PyTorch R2
# rows, which need the reference BLAS): this script never runs dpkg -i,
# update-alternatives or a maintainer script, and needs no root.
# Reuses DESTDIR/root when DESTDIR/.complete names the same package version.
# Used by `make pytorch-matrix` (adapters/pytorch/matrix.py: the OpenBLAS R2
# rows) and `make bench`. Messages go to stderr; exit 1 with the reason when
# the library cannot be provided.
set -eu
dest=${1:?usage: ci/openblas-private.sh DESTDIR [pthread|serial|openmp]}
variant=${2:-pthread}
case $variant in
pthread|serial|openmp) ;;
*) echo "openblas-private: unknown variant '$variant' (pthread, serial, openmp)" >&2; exit 2 ;;
esac
pkg=libopenblas0-$variant
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
candidate() { apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^  Candidate: //p'; }
version=$(candidate)
if { [ -z "$version" ] || [ "$version" = "(none)" ]; } && [ "$(id -u)" = 0 ]; then
    # a fresh machine (CI) may have empty package lists: refresh them (this
    # installs nothing), as ci/ensure-deps.sh does before it installs
    apt-get -q update >&2 || true
    version=$(candidate)
fi
if [ -z "$version" ] || [ "$version" = "(none)" ]; then
    echo "openblas-private: apt knows no $pkg (run apt-get update; Debian package $pkg)" >&2
    exit 1
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
libdir=$dest/root/usr/lib/$multiarch/openblas-$variant
stamp="$pkg $version $multiarch"
if [ -f "$dest/.complete" ] && [ "$(cat "$dest/.complete")" = "$stamp" ] && [ -e "$libdir/libblas.so.3" ]; then
    echo "$libdir"
    exit 0
fi
rm -rf "$dest/debs" "$dest/root" "$dest/.complete"
mkdir -p "$dest/debs" "$dest/root"
# as root, apt's download sandbox user (_apt) cannot write into DESTDIR: download as root
sandbox=
[ "$(id -u)" = 0 ] && sandbox="-o APT::Sandbox::User=root"
(cd "$dest/debs" && apt-get -q $sandbox download "$pkg=$version" >&2) ||
    { echo "openblas-private: apt-get download $pkg=$version failed" >&2; exit 1; }
for deb in "$dest/debs/"*.deb; do
    dpkg-deb -x "$deb" "$dest/root"
done
if [ ! -e "$libdir/libblas.so.3" ]; then
    echo "openblas-private: $pkg unpacked, but $libdir/libblas.so.3 is missing (layout changed?)" >&2
    exit 1
fi
# its own dependencies (libgfortran5) come from the system, as for libblas3
missing=$(ldd "$libdir/libblas.so.3" 2>/dev/null | sed -n 's/^\t*\([^ ]*\) => not found.*/\1/p')
if [ -n "$missing" ]; then
    echo "openblas-private: $libdir/libblas.so.3 needs $(echo $missing) (Debian package libgfortran5)" >&2
    exit 1
fi
echo "$stamp" > "$dest/.complete"
echo "openblas-private: $pkg $version in $libdir ($(du -sm "$dest/root" | cut -f1) MB unpacked)" >&2
echo "$libdir"
