#!/usr/bin/env bash
# Run HERE (the development machine, with network) before a GPU run. Fills the git-ignored folder
# .device/ with what the GPU machine (no network) needs to build and test tridiag with CUDA:
#   .device/deps/src/kokkos, .device/deps/src/kokkos-kernels
#       pristine Kokkos / Kokkos Kernels 3.4.01 from .deps/src, without docs, examples, unit and
#       performance tests and benchmarks (not read by their CMake configure with tests off). The
#       CUDA 13 patch is applied there by scripts/deps/build_kokkos.sh, which travels with the repo.
#   .device/debs/*.deb
#       Debian bookworm packages that the GPU image does not list (GoogleTest, LAPACKE + reference
#       LAPACK/BLAS + their Fortran runtime). device_build_and_test.sh unpacks them with `dpkg -x`
#       into build-cuda-deps/sysroot (git-ignored), never into /.
# Then carry it: run(..., carry=[".device"]) and `bash scripts/cuda/device_build_and_test.sh`.
#
# usage: scripts/cuda/prepare_device_bundle.sh [--no-debs] [--check-configure]
#   --no-debs           carry no .deb files (for an image that has GTest and LAPACKE itself)
#   --check-configure   also configure Kokkos and Kokkos Kernels (CUDA) from the stripped copies,
#                       to prove nothing that CMake reads was stripped (needs nvcc and the CUDA
#                       Kokkos from build_kokkos.sh for the Kokkos Kernels part)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bundle=$repo/.device
with_debs=1 check=0
while (($#)); do
  case "$1" in
    --no-debs) with_debs=0; shift ;;
    --check-configure) check=1; shift ;;
    *) echo "prepare_device_bundle.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
die() { echo "prepare_device_bundle.sh: $*" >&2; exit 1; }

# Debian packages that provide GoogleTest (source, built there with the machine's own g++, and the
# prebuilt static library as a fallback), lapacke.h + liblapacke, and the liblapack.so.3 /
# libblas.so.3 that liblapacke needs (reference LAPACK/BLAS: an oracle for tests, not for speed),
# with the Fortran runtime. KINDS.md lists none of these on the GPU image.
debs=(googletest libgtest-dev liblapacke liblapacke-dev liblapack3 libblas3 libtmglib3
      libgfortran5 libquadmath0)

src=$repo/.deps/src
if [ ! -f "$src/kokkos/master_history.txt" ] || [ ! -f "$src/kokkos-kernels/master_history.txt" ]; then
  bash "$repo/scripts/deps/fetch_kokkos_source.sh"
fi

start=$(date +%s)
# Start from a clean bundle: whatever a device-side run (or a local trial of it) left in .device
# (patched copy, Kokkos build and install) would only add weight.
# The downloaded .deb files are kept as a cache.
mkdir -p "$bundle"
find "$bundle" -mindepth 1 -maxdepth 1 ! -name debs -exec rm -rf {} +
mkdir -p "$bundle/deps/src"
for tree in kokkos kokkos-kernels; do
  cp -a "$src/$tree" "$bundle/deps/src/$tree.tmp"
  # Directories that CMake reads only with tests / examples / benchmarks on. Kokkos' top-level
  # example/ stays: its CMakeLists.txt is always added (kokkos_tribits.cmake), even with
  # examples off, and configure fails without it (checked with --check-configure).
  find "$bundle/deps/src/$tree.tmp" -mindepth 1 -depth -type d \
    \( -name doc -o -name docs -o -name example -o -name examples -o -name unit_test \
       -o -name unit_tests -o -name perf_test -o -name benchmarks -o -name install_test \) \
    -not -path "$bundle/deps/src/kokkos.tmp/example" -exec rm -rf {} +
  mv "$bundle/deps/src/$tree.tmp" "$bundle/deps/src/$tree"
done

if ((with_debs)); then
  mkdir -p "$bundle/debs"
  missing=()
  for p in "${debs[@]}"; do
    compgen -G "$bundle/debs/${p}_*.deb" >/dev/null || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "[tridiag] downloading ${missing[*]}"
    (cd "$bundle/debs" && apt-get download -qq -o APT::Sandbox::User=root "${missing[@]}") ||
      die "apt-get download failed (run 'apt-get update' once?)"
  fi
else
  rm -rf "$bundle/debs"
fi

cat > "$bundle/README.txt" <<EOF
Made by scripts/cuda/prepare_device_bundle.sh on $(date -u +%Y-%m-%dT%H:%MZ) (git-ignored).
deps/src: pristine Kokkos 3.4.01 + Kokkos Kernels 3.4.01, stripped of docs/examples/tests.
debs: $(cd "$bundle" && { ls debs 2>/dev/null || true; } | tr '\n' ' ')
EOF

if ((check)); then
  # Configure (no build) Kokkos and Kokkos Kernels from the stripped trees, as the device does.
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp -a "$bundle/deps" "$tmp/deps"
  bash "$repo/scripts/deps/patch_kokkos_cuda.sh" "$tmp/deps/src/kokkos" "$tmp/deps/src/kokkos-cuda13" >/dev/null
  export PATH=/usr/local/cuda/bin:$PATH NVCC_WRAPPER_DEFAULT_ARCH=sm_90
  cxx=$tmp/deps/src/kokkos-cuda13/bin/nvcc_wrapper
  cmake -S "$tmp/deps/src/kokkos-cuda13" -B "$tmp/bk" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_OPENMP=ON \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ARCH_HOPPER90=ON > "$tmp/k.log" 2>&1 ||
    { cat "$tmp/k.log"; die "Kokkos does not configure from the stripped tree"; }
  # Kokkos Kernels' configure needs an installed CUDA Kokkos: the one build_kokkos.sh made here.
  kprefix=$repo/.deps/install-cuda-sm_90
  [ -f "$kprefix/lib/cmake/Kokkos/KokkosConfig.cmake" ] ||
    die "--check-configure needs $kprefix (scripts/deps/build_kokkos.sh --backend cuda)"
  cmake -S "$tmp/deps/src/kokkos-kernels" -B "$tmp/bkk" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$kprefix/bin/nvcc_wrapper" -DKokkos_ROOT="$kprefix" \
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF \
    -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF \
    -DKokkosKernels_ETI_ONLY=OFF > "$tmp/kk.log" 2>&1 ||
    { cat "$tmp/kk.log"; die "Kokkos Kernels does not configure from the stripped tree"; }
  echo "[tridiag] stripped Kokkos and Kokkos Kernels configure (CUDA, HOPPER90, tests off)"
fi

# The shared morphologies (SWC) the Hines tests read: the GPU machine gets the repository only,
# not its ../shared sibling.
if [ -d "$repo/../shared/morphologies" ]; then
  rm -rf "$bundle/shared"
  mkdir -p "$bundle/shared"
  cp -r "$repo/../shared/morphologies" "$bundle/shared/"
fi

# The commit the carried tree is (the GPU machine's copy of .git may be older than the working
# tree): device_bench.sh records it in every CSV. "-dirty" when tracked files differ from it.
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$repo" diff --quiet HEAD 2>/dev/null || commit="$commit-dirty"
echo "$commit" > "$bundle/commit.txt"
echo "[tridiag] device bundle records commit $commit"

size_kib=$(du -sk "$bundle" | cut -f1)
echo "[tridiag] device bundle $bundle: $((size_kib / 1024)) MiB ($(($(date +%s) - start)) s)"
du -sh "$bundle"/deps/src/* "$bundle"/debs 2>/dev/null | sed 's/^/[tridiag]   /'
((size_kib < 50 * 1024)) || die "bundle is $((size_kib / 1024)) MiB, over the 50 MiB budget"
