#!/usr/bin/env bash
# Command 2 of the README: runs the whole test suite of a build made by scripts/setup.sh through
# ctest, ending with ctest's summary line. Tests that need a GPU skip (with the reason printed)
# on a machine without one.
#
# Each test process runs OMP_NUM_THREADS threads (2 by default), so ctest runs nproc / that many
# at once (--jobs overrides): OpenMP teams wait for each other at barriers, and two processes
# sharing the cores make every such wait a time slice. Measured on the 2-core CI machine
# (2026-11-26, commit db0b175, 1,826 tests, `ctest -j 2` and `ctest -j 1` in build/
# with OMP_NUM_THREADS=2): 683 s with -j 2, 280 s with -j 1.
#
# usage: scripts/test.sh [--backend host|cuda] [--arch sm_90] [--jobs N] [ctest options...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
threads=${OMP_NUM_THREADS:-2}
[[ $threads =~ ^[1-9][0-9]*$ ]] || { echo "test.sh: OMP_NUM_THREADS must be a positive number, not '$threads'" >&2; exit 2; }
jobs=$(( $(nproc) / threads ))
((jobs >= 1)) || jobs=1
backend=host arch=sm_90 extra=()
usage_error() { echo "test.sh: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --backend|--arch|--jobs) (($# >= 2)) || usage_error "$1 needs a value" ;;&
    --backend) backend=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done
# Any other value would name the host build (build/) and run its tests under the wrong name.
case "$backend" in host|cuda) ;; *) usage_error "--backend must be host or cuda, not '$backend'" ;; esac
[[ $jobs =~ ^[1-9][0-9]*$ ]] || usage_error "--jobs must be a positive number, not '$jobs'"
if [ "$backend" = cuda ]; then
  # The consumer test compiles with nvcc_wrapper, which runs $CUDA_ROOT/bin/nvcc (as setup.sh).
  export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
  export PATH=$CUDA_ROOT/bin:$PATH
fi
source "$repo/scripts/build_dirs.sh"
build=$(tridiag_build_dir "$repo" "$backend" "$arch")
[ -f "$build/CTestTestfile.cmake" ] || { echo "test.sh: no build in $build: run scripts/setup.sh first" >&2; exit 1; }
cd "$build"
OMP_PROC_BIND=false OMP_NUM_THREADS=$threads exec ctest --output-on-failure -j "$jobs" "${extra[@]}"
