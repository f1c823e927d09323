#!/usr/bin/env bash
# Run HERE (the development machine: nvcc, no GPU needed) before a GPU benchmark run. Builds
# tridiag-bench for CUDA with the local CUDA Kokkos (scripts/deps/build_kokkos.sh --backend cuda)
# and packs into build-carry/bench.tar.xz (git-ignored) what the GPU machine needs to run
# scripts/cuda/device_bench.sh without building anything there (saves ~3 minutes of device time):
#   build-cuda/perf_tests/tridiag-bench                 the binary (static Kokkos)
#   build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu/   LAPACKE, OpenBLAS, gfortran runtime, libgomp
#                                                       (device_bench.sh puts it on LD_LIBRARY_PATH)
#   .device/shared/morphologies/                        the SWC cells of the hines sweep
#   .device/commit.txt                                  the commit measured
#   build-cuda/unit_tests/<family>/tridiag_unit_<family>  with --tests: unit-test binaries to run
#                                                       there from the repository root (they find the
#                                                       SWC cells at the relative .device/shared)
# Then: run(command="tar xJf build-carry/bench.tar.xz && bash scripts/cuda/device_bench.sh", (every sweep, or SWEEPS=... for some)
#           carry=["build-carry"]). cuSPARSE and cudart come from the GPU machine's CUDA 13.
#
# usage: scripts/cuda/prepare_device_binaries.sh [--arch sm_90] [--jobs N] [--tests "thomas hines_population"]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
arch=sm_90 jobs=$(nproc) families=""
while (($#)); do
  case "$1" in
    --arch|--jobs|--tests) (($# >= 2)) || { echo "prepare_device_binaries.sh: $1 needs a value" >&2; exit 2; } ;;&
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --tests) families=$2; shift 2 ;;
    *) echo "prepare_device_binaries.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
prefix=$repo/.deps/install-cuda-$arch
# Builds the CUDA Kokkos, or reuses it in well under a second when its stamp matches (a prefix
# built with an older CUDA patch is rebuilt, not reused).
bash "$repo/scripts/deps/build_kokkos.sh" --backend cuda --arch "$arch" --jobs "$jobs"
build=$repo/build-cuda-local-$arch
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" \
  -DKokkos_DIR="$prefix/lib/cmake/Kokkos" -DKokkosKernels_DIR="$prefix/lib/cmake/KokkosKernels" \
  -DTRIDIAG_ENABLE_TESTS=$([ -n "$families" ] && echo ON || echo OFF) -DTRIDIAG_ENABLE_EXAMPLES=OFF \
  -DTRIDIAG_SHARED_DIR=.device/shared >/dev/null
targets=(tridiag-bench)
for family in $families; do targets+=("tridiag_unit_$family"); done
cmake --build "$build" --parallel "$jobs" --target "${targets[@]}"

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build-cuda/perf_tests" "$stage/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu" \
  "$stage/.device/shared"
cp "$build/perf_tests/tridiag-bench" "$stage/build-cuda/perf_tests/"
strip "$stage/build-cuda/perf_tests/tridiag-bench"
for family in $families; do
  # A family's binary lies in its folder of unit_tests/ (hines_population: unit_tests/hines).
  binary=$(find "$build/unit_tests" -type f -name "tridiag_unit_$family" | head -n 1)
  [ -n "$binary" ] || { echo "prepare_device_binaries.sh: no tridiag_unit_$family in $build" >&2; exit 1; }
  mkdir -p "$stage/build-cuda/unit_tests/$family"
  cp "$binary" "$stage/build-cuda/unit_tests/$family/"
  strip "$stage/build-cuda/unit_tests/$family/tridiag_unit_$family"
done
# The shared libraries the binary needs beyond glibc and CUDA (resolved as ldd sees them here).
ldd "$build/perf_tests/tridiag-bench" | awk '/=> \// {print $1, $3}' | while read -r name path; do
  case "$name" in
    libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcu*|libnvJitLink*) ;;
    *) cp -L "$path" "$stage/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu/$name" ;;
  esac
done
cp -r "$repo/../shared/morphologies" "$stage/.device/shared/"
# The commit the binary was built from, as it records it itself (perf_tests/bench_commit.cmake at
# build time: "-dirty" when tracked files differed from HEAD); device_bench.sh passes it on as
# TRIDIAG_COMMIT.
cp "$build/perf_tests/generated/bench_commit.txt" "$stage/.device/commit.txt"
case "$(cat "$stage/.device/commit.txt")" in
  *-dirty) echo "prepare_device_binaries.sh: warning: uncommitted changes are in the binary" >&2 ;;
esac
mkdir -p "$repo/build-carry"
tar -C "$stage" -cJf "$repo/build-carry/bench.tar.xz" .
ls -la "$repo/build-carry/bench.tar.xz"
