#!/bin/sh
# Usage: ci/pytorch-sysroot.sh DEBIAN_ARCH DIR
# A sysroot with Debian's python3-torch (and numpy) for another architecture
# (arm64, s390x, ppc64el), for running the PyTorch IUT under qemu-user -L DIR/root.
# Everything goes through a private apt configuration in DIR/apt: its own
# sources, lists, cache, state and APT::Architecture, and an empty dpkg
# status (so the whole dependency closure is downloaded). The host's dpkg
# database and foreign-architecture list are never read or written, and
# nothing runs as a maintainer script: the packages are unpacked with
# dpkg-deb -x, and the two things their scripts would have done that the
# PyTorch IUT needs are redone by hand (see the fix-ups below).
# Reuses DIR/root when DIR/root/.complete names the same package set.
# Prints the download size and the time each phase took.
set -eu
arch=${1:?usage: ci/pytorch-sysroot.sh DEBIAN_ARCH DIR}
dir=${2:?usage: ci/pytorch-sysroot.sh DEBIAN_ARCH DIR}
suite=${PYTORCH_SYSROOT_SUITE:-bookworm}
mirror=${PYTORCH_SYSROOT_MIRROR:-http://deb.debian.org/debian}
pkgs="python3-torch python3-numpy"
stamp="$suite $arch $pkgs"

case $arch in
arm64) triplet=aarch64-linux-gnu ;;
s390x) triplet=s390x-linux-gnu ;;
ppc64el) triplet=powerpc64le-linux-gnu ;;
*) echo "pytorch-sysroot: unsupported architecture '$arch' (arm64, s390x, ppc64el)" >&2; exit 2 ;;
esac

mkdir -p "$dir"
dir=$(cd "$dir" && pwd) # apt's Dir:: settings must be absolute
root=$dir/root
if [ -f "$root/.complete" ] && [ "$(cat "$root/.complete")" = "$stamp" ]; then
    echo "pytorch-sysroot: $arch: cached in $root ($(du -sm "$root" | cut -f1) MB)"
    exit 0
fi

apt=$dir/apt
mkdir -p "$apt/etc/apt.conf.d" "$apt/etc/preferences.d" "$apt/etc/sources.list.d" "$apt/lists/partial" \
    "$apt/cache/archives/partial" "$apt/state"
: > "$apt/state/status"
# the host's archive keys, read-only
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "pytorch-sysroot: $keyring missing (Debian package: debian-archive-keyring)" >&2; exit 1; }
echo "deb [arch=$arch signed-by=$keyring] $mirror $suite main" > "$apt/etc/sources.list"
cat > "$apt/apt.conf" <<EOF
Dir::Etc "$apt/etc";
Dir::Etc::sourcelist "$apt/etc/sources.list";
Dir::Etc::sourceparts "$apt/etc/sources.list.d";
Dir::Etc::parts "$apt/etc/apt.conf.d";
Dir::Etc::preferencesparts "$apt/etc/preferences.d";
Dir::State "$apt/state";
Dir::State::lists "$apt/lists";
Dir::State::status "$apt/state/status";
Dir::Cache "$apt/cache";
Dir::Cache::archives "$apt/cache/archives";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
APT::Sandbox::User "root";
Debug::NoLocking "true";
EOF
export APT_CONFIG="$apt/apt.conf"

t0=$(date +%s)
apt-get -q -o Acquire::Languages=none update > "$dir/apt-update.log" 2>&1 ||
    { tail -n 20 "$dir/apt-update.log" >&2; exit 1; }
t1=$(date +%s)
apt-get -q -y --download-only install $pkgs > "$dir/apt-download.log" 2>&1 ||
    { tail -n 20 "$dir/apt-download.log" >&2; exit 1; }
t2=$(date +%s)
n=$(ls "$apt/cache/archives/"*.deb | wc -l)
mb=$(du -cm "$apt/cache/archives/"*.deb | tail -n 1 | cut -f1)

rm -rf "$root"
mkdir -p "$root"
for deb in "$apt/cache/archives/"*.deb; do
    dpkg-deb -x "$deb" "$root"
done

# Fix-up 1: libblas3 and liblapack3 put their libraries in blas/ and lapack/
# and leave libblas.so.3 / liblapack.so.3 to update-alternatives (a
# maintainer script); torch links against the plain names.
for lib in blas/libblas.so.3 lapack/liblapack.so.3; do
    if [ -e "$root/usr/lib/$triplet/$lib" ]; then
        ln -sf "$lib" "$root/usr/lib/$triplet/$(basename "$lib")"
    fi
done
# Fix-up 2: an absolute symlink inside the sysroot (e.g. /lib/ld64.so.1 ->
# /lib/s390x-linux-gnu/ld64.so.1) would be resolved by the host kernel
# against the host's root, not the sysroot, under qemu -L: make each one
# relative to where it sits.
find "$root" -type l | while read -r link; do
    target=$(readlink "$link")
    case $target in
    /*)
        rel=$(realpath -m --relative-to="$(dirname "$link")" "$root$target")
        ln -sfn "$rel" "$link"
        ;;
    esac
done
# merged /usr: Debian 12's packages ship /lib files under /usr/lib; the
# dynamic loader path in binaries is /lib/..., which base-files' symlinks
# would provide
for d in lib lib64 bin sbin; do
    if [ ! -e "$root/$d" ] && [ -d "$root/usr/$d" ]; then
        ln -s "usr/$d" "$root/$d"
    fi
done
t3=$(date +%s)
echo "$stamp" > "$root/.complete"
torch=$(ls "$apt/cache/archives/" | sed -n 's/^python3-torch_\([^_]*\)_.*/\1/p')
echo "pytorch-sysroot: $arch: $n packages, ${mb} MB downloaded (python3-torch $torch), $(du -sm "$root" | cut -f1) MB unpacked;" \
    "apt update $((t1 - t0)) s, download $((t2 - t1)) s, unpack and fix-ups $((t3 - t2)) s"
