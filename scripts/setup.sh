#!/usr/bin/env bash
# Command 1 of the README: from a fresh Debian machine to a running demonstration.
#   1. installs the Debian packages tridiag needs (scripts/install_packages.sh),
#   2. fetches Kokkos 3.4.01 + Kokkos Kernels 3.4.01 from Debian's trilinos source package and
#      builds them into .deps/install-host or .deps/install-cuda-<arch> (reused when already built),
#   3. configures, builds and installs tridiag (Release) with that Kokkos,
#   4. runs the demonstration tridiag-demo (every solver and layout, checked against LAPACK).
#
# usage: scripts/setup.sh [--backend host|cuda] [--arch sm_90] [--jobs N] [--no-demo]
#   --backend host   OpenMP + Serial (default)
#   --backend cuda   CUDA (+ OpenMP + Serial host spaces), nvcc from /usr/local/cuda; Kokkos is
#                    patched for CUDA 13 and Hopper (scripts/deps/patches/); --arch picks the GPU
#                    (sm_90 H100 default; sm_80 A100, sm_86, sm_75; nvcc 13 has nothing older)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
backend=host arch=sm_90 jobs=$(nproc) demo=1
usage_error() { echo "setup.sh: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --backend|--arch|--jobs) (($# >= 2)) || usage_error "$1 needs a value (try --help)" ;;&
    --backend) backend=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --no-demo) demo=0; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) usage_error "unknown option '$1' (try --help)" ;;
  esac
done
case "$backend" in host|cuda) ;; *) usage_error "--backend must be host or cuda, not '$backend'" ;; esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs must be a positive number, not '$jobs'"
if [ "$backend" = cuda ]; then
  # nvcc_wrapper runs $CUDA_ROOT/bin/nvcc, else the nvcc on PATH: tridiag's build (and its tests,
  # which compile the consumer example) need the nvcc that build_kokkos.sh used, as that script does.
  export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
  export PATH=$CUDA_ROOT/bin:$PATH
fi

start=$(date +%s)
"$repo/scripts/install_packages.sh"
"$repo/scripts/deps/fetch_kokkos_source.sh"
"$repo/scripts/deps/build_kokkos.sh" --backend "$backend" --arch "$arch" --jobs "$jobs"

source "$repo/scripts/build_dirs.sh"
build=$(tridiag_build_dir "$repo" "$backend" "$arch")
prefix=$(tridiag_kokkos_prefix "$repo" "$backend" "$arch")
install_prefix=$(tridiag_install_prefix "$repo" "$backend" "$arch")
cxx_opts=()
[ "$backend" = cuda ] && cxx_opts=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
echo "[tridiag] configuring and building tridiag ($backend) in $build"
# TRIDIAG_REQUIRE_NEURON: python3-neuron was installed above, so a NEURON comparison that cannot
# run (no interpreter at configure, no NEURON or morphology in the tests) fails instead of skipping.
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" \
  -DKokkosKernels_ROOT="$prefix" -DCMAKE_INSTALL_PREFIX="$install_prefix" -DTRIDIAG_REQUIRE_NEURON=ON \
  "${cxx_opts[@]}" > "$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --parallel "$jobs"
cmake --install "$build" > /dev/null
echo "[tridiag] built and installed to ${install_prefix#"$repo/"} in $(( $(date +%s) - start )) s"

if ((demo)); then
  if [ "$backend" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then
    echo "[tridiag] no CUDA GPU on this machine: the CUDA build is done, the demonstration needs a GPU"
  else
    echo "[tridiag] demonstration: $build/examples/tridiag-demo"
    OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads} "$build/examples/tridiag-demo"
  fi
fi
