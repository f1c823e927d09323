#!/usr/bin/env bash
# Packs CUDA unit-test binaries (already built in build-cuda-local-sm_90) with their host libraries
# into build-run/bench.tar.xz, the layout build-run/run.sh expects. usage: pack_tests.sh family...
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build-cuda-local-sm_90
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
lib=$stage/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu
mkdir -p "$lib" "$stage/.device"
git -C "$repo" rev-parse --short HEAD > "$stage/.device/commit.txt"
for family in "$@"; do
  binary=$(find "$build/unit_tests" -type f -name "tridiag_unit_$family" | head -n 1)
  mkdir -p "$stage/build-cuda/unit_tests/$family"
  cp "$binary" "$stage/build-cuda/unit_tests/$family/"
  strip "$stage/build-cuda/unit_tests/$family/tridiag_unit_$family"
  echo "$family: $(date -r "$binary" +%H:%M)" >> "$stage/.device/commit.txt"
  ldd "$binary" | awk '/=> \// {print $1, $3}' | while read -r name path; do
    case "$name" in
      libc.so*|libm.so*|libdl.so*|librt.so*|libpthread.so*|ld-linux*|libcu*|libnvJitLink*) ;;
      *) cp -L "$path" "$lib/$name" ;;
    esac
  done
done
if [ -n "${WITH_BENCH:-}" ]; then
  mkdir -p "$stage/build-cuda/perf_tests" "$stage/.device/shared"
  cp "$build/perf_tests/tridiag-bench" "$stage/build-cuda/perf_tests/" && strip "$stage/build-cuda/perf_tests/tridiag-bench"
  cp -r "$repo/../shared/morphologies" "$stage/.device/shared/"
fi
tar cJf "$repo/build-run/bench.tar.xz" -C "$stage" .
ls -la "$repo/build-run/bench.tar.xz"
