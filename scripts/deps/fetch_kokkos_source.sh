#!/usr/bin/env bash
# Fetches Kokkos 3.4.01 and Kokkos Kernels 3.4.01 from Debian bookworm's `trilinos` source package
# (13.2) with `apt-get source`, through a private apt configuration under .deps/apt (the system's
# apt configuration is left untouched), and extracts only packages/kokkos and
# packages/kokkos-kernels into .deps/src. Re-running is a no-op once the sources are there.
#
# usage: scripts/deps/fetch_kokkos_source.sh [DEPS_DIR]   (default: <repo>/.deps)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
deps=${1:-$repo/.deps}
src=$deps/src
if [ -f "$src/kokkos/master_history.txt" ] && [ -f "$src/kokkos-kernels/master_history.txt" ]; then
  echo "[tridiag] Kokkos sources: present in $src"
  exit 0
fi
apt_dir=$deps/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$src"
# Same mirror as the system's first Debian source; a deb-src line for bookworm main only.
mirror=$("$repo/scripts/deps/debian_mirror.sh" /etc/apt/sources.list.d/*.sources /etc/apt/sources.list)
mirror=${mirror:-http://deb.debian.org/debian}
cat > "$apt_dir/sources.list" <<LIST
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/} bookworm main
LIST
apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache::Archives=$apt_dir/archives"
          -o "APT::Sandbox::User=root")
echo "[tridiag] fetching Debian source package trilinos (Kokkos 3.4.01 inside)"
apt-get "${apt_opts[@]}" -qq update
(cd "$apt_dir" && apt-get "${apt_opts[@]}" -qq source --download-only trilinos)
tarball=$(ls "$apt_dir"/trilinos_*.orig.tar.* | head -n 1)
echo "[tridiag] extracting packages/kokkos and packages/kokkos-kernels from $(basename "$tarball")"
tmp=$deps/extract.tmp
rm -rf "$tmp"; mkdir -p "$tmp"
tar -xf "$tarball" -C "$tmp" --wildcards '*/packages/kokkos/*' '*/packages/kokkos-kernels/*'
top=$(ls "$tmp")
rm -rf "$src/kokkos" "$src/kokkos-kernels"
mv "$tmp/$top/packages/kokkos" "$src/kokkos"
mv "$tmp/$top/packages/kokkos-kernels" "$src/kokkos-kernels"
rm -rf "$tmp"
# The tarball is kept under .deps/apt so a later extraction needs no network; the sources are
# what every build uses.
tail -n 1 "$src/kokkos/master_history.txt" | awk "{print \"[tridiag] Kokkos in source: \" \$2}"
