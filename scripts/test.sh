#!/usr/bin/env bash
# Command 2 of the README: runs the whole test suite of a build made by scripts/setup.sh through
# ctest, ending with ctest's summary line. Tests that need a GPU skip (with the reason printed)
# on a machine without one.
#
# usage: scripts/test.sh [--backend host|cuda] [--arch sm_90] [--jobs N] [ctest options...]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
backend=host arch=sm_90 jobs=$(nproc) extra=()
while (($#)); do
  case "$1" in
    --backend) backend=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done
source "$repo/scripts/build_dirs.sh"
build=$(tridiag_build_dir "$repo" "$backend" "$arch")
[ -f "$build/CTestTestfile.cmake" ] || { echo "test.sh: no build in $build: run scripts/setup.sh first" >&2; exit 1; }
cd "$build"
OMP_PROC_BIND=false OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} exec ctest --output-on-failure -j "$jobs" "${extra[@]}"
