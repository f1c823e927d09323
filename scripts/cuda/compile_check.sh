#!/usr/bin/env bash
# CUDA compile check for a development machine without a GPU: builds (or reuses) the CUDA Kokkos +
# Kokkos Kernels with scripts/deps/build_kokkos.sh --backend cuda, then configures and builds
# tridiag, its unit tests, benchmark and examples with <prefix>/bin/nvcc_wrapper into
# build-cuda-check-<arch> (one per arch: a tree configured for one arch is never reused for
# another). Nothing is run: binaries built for the GPU are only compiled and linked.
# GoogleTest and LAPACKE come from the system (scripts/install_packages.sh).
#
# usage: scripts/cuda/compile_check.sh [--arch sm_90] [--jobs N] [--deps DIR] [--fresh] [--kokkos-only]
#   --fresh         delete build-cuda-check-<arch> first
#   --kokkos-only   stop after the Kokkos + Kokkos Kernels part
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
arch=${ARCH:-sm_90} jobs=$(nproc) deps=$repo/.deps fresh=0 kokkos_only=0
while (($#)); do
  case "$1" in
    --arch|--jobs|--deps) (($# >= 2)) || { echo "compile_check.sh: $1 needs a value" >&2; exit 2; } ;;&
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --deps) deps=$(realpath -m "$2"); shift 2 ;;
    --fresh) fresh=1; shift ;;
    --kokkos-only) kokkos_only=1; shift ;;
    *) echo "compile_check.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
command -v /usr/local/cuda/bin/nvcc >/dev/null || command -v nvcc >/dev/null ||
  { echo "compile_check.sh: no nvcc (expected /usr/local/cuda/bin/nvcc)" >&2; exit 1; }
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export PATH=$CUDA_ROOT/bin:$PATH
export NVCC_WRAPPER_DEFAULT_ARCH=$arch
build=$repo/build-cuda-check-$arch
prefix=$deps/install-cuda-$arch

t0=$SECONDS
bash scripts/deps/build_kokkos.sh --backend cuda --arch "$arch" --jobs "$jobs" --deps "$deps"
t_kokkos=$((SECONDS - t0))
echo "[tridiag] compile check: Kokkos + Kokkos Kernels (CUDA $arch): $t_kokkos s"
((kokkos_only)) && exit 0

((fresh)) && rm -rf "$build"
mkdir -p "$build"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
t1=$SECONDS
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ROOT="$prefix" -DTRIDIAG_ENABLE_TESTS=ON -DTRIDIAG_ENABLE_PERF_TESTS=ON \
  -DTRIDIAG_ENABLE_EXAMPLES=ON > "$build/tridiag-configure.log" 2>&1 ||
  { cat "$build/tridiag-configure.log"; echo "[tridiag] compile check: configure FAILED" >&2; exit 1; }
t_configure=$((SECONDS - t1))
echo "[tridiag] compile check: configure: $t_configure s"
t2=$SECONDS
keep_going=()   # report every failing translation unit, not only the first
[ -f "$build/build.ninja" ] && keep_going=(-- -k 0)
if ! cmake --build "$build" --parallel "$jobs" "${keep_going[@]}" > "$build/tridiag-build.log" 2>&1; then
  grep -E -A12 '^FAILED:' "$build/tridiag-build.log" | head -n 150
  echo "[tridiag] compile check: build FAILED after $((SECONDS - t2)) s (log: $build/tridiag-build.log)" >&2
  exit 1
fi
t_build=$((SECONDS - t2))
targets=$(find "$build" -type f -perm -u+x \( -name 'tridiag_unit_*' -o -name 'tridiag-bench' \) | wc -l)
echo "[tridiag] compile check: build: $t_build s ($targets test/benchmark executables)"
echo "[tridiag] compile check passed: Kokkos $t_kokkos s, configure $t_configure s, build $t_build s"
