#!/usr/bin/env bash
# Makes a CUDA 13 / Hopper-ready copy of pristine Kokkos 3.4.01: copies SRC to DST and applies
# scripts/deps/patches/kokkos-3.4.01-cuda13-hopper.patch there (SRC is never modified).
# Idempotent: DST/.tridiag-patch-stamp records the patch's sha256; when it matches, nothing is done.
# When it does not (new patch, half-made copy), DST is rebuilt from a fresh copy of SRC.
#
# usage: scripts/deps/patch_kokkos_cuda.sh SRC DST
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
patch_file=$here/patches/kokkos-3.4.01-cuda13-hopper.patch
die() { echo "patch_kokkos_cuda.sh: $*" >&2; exit 1; }

(($# == 2)) || { echo "usage: $0 SRC DST  (SRC: pristine Kokkos 3.4.01, DST: patched copy)" >&2; exit 2; }
src=$1 dst=$2
[ -f "$patch_file" ] || die "patch not found: $patch_file"
[ -d "$src" ] || die "no Kokkos source directory '$src' (run scripts/deps/fetch_kokkos_source.sh)"
if [ ! -f "$src/bin/nvcc_wrapper" ] || [ ! -f "$src/core/src/Cuda/Kokkos_CudaSpace.cpp" ]; then
  die "'$src' does not look like a Kokkos source tree (no bin/nvcc_wrapper or core/src/Cuda)"
fi
src_abs=$(realpath "$src")
dst=$(realpath -m "$dst")
case "$dst/" in "$src_abs"/*) die "DST '$dst' must not be SRC or lie inside it" ;; esac
if command -v patch >/dev/null; then
  apply=(patch -p1 --forward --batch --no-backup-if-mismatch)
elif command -v git >/dev/null; then
  # No patch(1) (a bare GPU image): git apply works outside a repository. The ceiling keeps it
  # from finding an enclosing repository, which would make it resolve paths from that root.
  apply=(env GIT_CEILING_DIRECTORIES="$(dirname "$dst")" git apply -p1)
else
  die "neither 'patch' nor 'git' is installed: cannot apply $(basename "$patch_file")"
fi
command -v sha256sum >/dev/null || die "'sha256sum' is not installed (coreutils)"

stamp=$dst/.tridiag-patch-stamp
want="$(sha256sum < "$patch_file" | cut -d' ' -f1) $(basename "$patch_file")"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "[tridiag] Kokkos patched for CUDA 13: up to date in $dst"
  exit 0
fi

echo "[tridiag] patching Kokkos for CUDA 13 / Hopper: $src -> $dst"
tmp=$dst.tmp.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp"
mkdir -p "$(dirname "$dst")"
cp -a "$src_abs" "$tmp" || die "cannot copy '$src' to '$tmp'"
# The pristine tree must not carry a stamp of an earlier patched copy.
rm -f "$tmp/.tridiag-patch-stamp"
if ! log=$(cd "$tmp" && "${apply[@]}" < "$patch_file" 2>&1); then
  echo "$log" >&2
  die "$(basename "$patch_file") does not apply to '$src' (is it pristine Kokkos 3.4.01?)"
fi
if find "$tmp" -name '*.rej' -print -quit | grep -q .; then
  die "patch left .rej files in $tmp"
fi
# Guard against a tool that "succeeded" without touching the files.
if ! grep -q NVCC_WRAPPER_DEFAULT_ARCH "$tmp/bin/nvcc_wrapper" ||
   ! grep -q HOPPER90 "$tmp/cmake/kokkos_arch.cmake"; then
  die "the patched copy in $tmp lacks the Hopper changes"
fi
echo "$want" > "$tmp/.tridiag-patch-stamp"
rm -rf "$dst"
mv "$tmp" "$dst"
trap - EXIT
echo "[tridiag] Kokkos patched ($(grep -c '^--- a/' "$patch_file") files) in $dst"
