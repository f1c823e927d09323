#!/usr/bin/env bash
# Builds and installs Kokkos 3.4.01 and Kokkos Kernels 3.4.01 (sources from
# scripts/deps/fetch_kokkos_source.sh) into a git-ignored prefix, once per backend:
#   host: OpenMP + Serial, g++        -> .deps/install-host
#   cuda: CUDA + OpenMP + Serial, nvcc_wrapper, Kokkos patched for CUDA 13 / Hopper
#                                     -> .deps/install-cuda-<arch>
# A prefix that already holds a finished install (stamp file) is reused in well under a second.
#
# usage: scripts/deps/build_kokkos.sh [--backend host|cuda] [--arch sm_90] [--jobs N] [--deps DIR]
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
backend=host arch=sm_90 jobs=$(nproc) deps=$repo/.deps
while (($#)); do
  case "$1" in
    --backend|--arch|--jobs|--deps)
      (($# >= 2)) || { echo "build_kokkos.sh: $1 needs a value" >&2; exit 2; } ;;&
    --backend) backend=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --deps) deps=$2; shift 2 ;;
    *) echo "build_kokkos.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
deps=$(realpath -m "$deps")   # a relative --deps (e.g. .device/deps) must not reach CMake as such
src=$deps/src
[ -d "$src/kokkos" ] || { echo "build_kokkos.sh: no Kokkos source in $src (run fetch_kokkos_source.sh)" >&2; exit 1; }

case "$backend" in
  host)
    prefix=$deps/install-host
    kokkos_src=$src/kokkos
    cxx=${CXX:-g++}
    backend_opts=(-DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_SERIAL=ON)
    ;;
  cuda)
    # sm_XX -> the Kokkos arch option. nvcc 13 itself knows sm_75 and newer only.
    case "$arch" in
      sm_70) karch=VOLTA70 ;; sm_75) karch=TURING75 ;; sm_80) karch=AMPERE80 ;;
      sm_86) karch=AMPERE86 ;; sm_90) karch=HOPPER90 ;;
      sm_60) karch=PASCAL60 ;;
      *) echo "build_kokkos.sh: unsupported --arch '$arch' (sm_60, sm_70, sm_75, sm_80, sm_86, sm_90)" >&2; exit 2 ;;
    esac
    prefix=$deps/install-cuda-$arch
    kokkos_src=$deps/src/kokkos-cuda13
    bash "$repo/scripts/deps/patch_kokkos_cuda.sh" "$src/kokkos" "$kokkos_src"
    patch_sum=$(cut -d' ' -f1 "$kokkos_src/.tridiag-patch-stamp")
    cxx=$kokkos_src/bin/nvcc_wrapper
    export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
    export PATH=$CUDA_ROOT/bin:$PATH
    # The wrapper compiles CMake's test programs before any Kokkos flag exists: give it the arch.
    export NVCC_WRAPPER_DEFAULT_ARCH=$arch
    backend_opts=(-DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ENABLE_OPENMP=ON
                  -DKokkos_ENABLE_SERIAL=ON "-DKokkos_ARCH_${karch}=ON")
    ;;
  *) echo "build_kokkos.sh: unknown backend '$backend' (host or cuda)" >&2; exit 2 ;;
esac

stamp=$prefix/.tridiag-stamp
have=$(cat "$stamp" 2>/dev/null || true)
if [ "$backend" = cuda ]; then
  # A changed CUDA patch must rebuild the install.
  want="kokkos=3.4.01 backend=cuda arch=$arch patch=${patch_sum:0:16}"
else
  # --arch means nothing to the host build (setup.sh passes its default on): the host install is
  # reused whatever --arch it was stamped with (stamps of earlier versions of this script carry one).
  want="kokkos=3.4.01 backend=host"
  have=${have%% arch=*}
fi
if [ -f "$stamp" ] && [ "$have" = "$want" ]; then
  echo "[tridiag] Kokkos + Kokkos Kernels ($backend): reusing $prefix"
  exit 0
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
build=$deps/build-host
[ "$backend" = cuda ] && build=$deps/build-cuda-$arch
rm -rf "$build" "$prefix"
mkdir -p "$build"
start=$(date +%s)

echo "[tridiag] building Kokkos 3.4.01 ($backend) -> $prefix"
cmake -S "$kokkos_src" -B "$build/kokkos" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON "${backend_opts[@]}" > "$build/kokkos.configure.log" 2>&1 \
  || { cat "$build/kokkos.configure.log"; exit 1; }
cmake --build "$build/kokkos" --parallel "$jobs" > "$build/kokkos.build.log" 2>&1 \
  || { tail -n 60 "$build/kokkos.build.log"; exit 1; }
cmake --install "$build/kokkos" > /dev/null
kokkos_done=$(date +%s)
echo "[tridiag]   Kokkos: $((kokkos_done - start)) s"

# Kokkos Kernels: no explicit instantiation at all (every INST_* off, ETI_ONLY off). The library
# and its tests instantiate the few kernels they use (KokkosBlas norms, KokkosBatched LU) in their
# own translation units, so the library build is a few seconds rather than many minutes. cuBLAS and
# cuSPARSE TPLs stay off: tridiag calls cuSPARSE directly where it compares against it.
echo "[tridiag] building Kokkos Kernels 3.4.01 ($backend)"
kk_opts=(-DKokkosKernels_ETI_ONLY=OFF -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_EXAMPLES=OFF
  -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF
  -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TPL_LAPACK=OFF
  -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF
  -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF
  -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF
  -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF
  -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF
  -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF
  -DKokkosKernels_INST_EXECSPACE_CUDA=OFF -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF
  -DKokkosKernels_INST_MEMSPACE_CUDASPACE=OFF -DKokkosKernels_INST_MEMSPACE_HOSTSPACE=OFF)
cmake -S "$src/kokkos-kernels" -B "$build/kokkos-kernels" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_STANDARD=17 -DCMAKE_INSTALL_PREFIX="$prefix" \
  -DKokkos_ROOT="$prefix" -DCMAKE_POSITION_INDEPENDENT_CODE=ON "${kk_opts[@]}" \
  > "$build/kokkos-kernels.configure.log" 2>&1 || { cat "$build/kokkos-kernels.configure.log"; exit 1; }
cmake --build "$build/kokkos-kernels" --parallel "$jobs" > "$build/kokkos-kernels.build.log" 2>&1 \
  || { tail -n 60 "$build/kokkos-kernels.build.log"; exit 1; }
cmake --install "$build/kokkos-kernels" > /dev/null
end=$(date +%s)
echo "[tridiag]   Kokkos Kernels: $((end - kokkos_done)) s"
echo "$want" > "$stamp"
echo "[tridiag] Kokkos + Kokkos Kernels ($backend) installed in $((end - start)) s"
