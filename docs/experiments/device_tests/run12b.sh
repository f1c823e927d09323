#!/usr/bin/env bash
# GPU run 12b: the hines_population CUDA tests of run 12 again, with the morphologies in place.
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
mkdir -p .device/shared && rm -rf .device/shared/morphologies && cp -r build-run/morphologies .device/shared/morphologies
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results12b; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1; date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"; cat .device/commit.txt >> "$R/device.txt"
b=build-cuda/unit_tests/hines_population/tridiag_unit_hines_population
{ echo "# $b, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; timeout 400 "$b"; echo "exit status $?"; } > "$R/tests_hines_population.txt" 2>&1
grep -E "^\[  PASSED|^\[  FAILED|exit status" "$R/tests_hines_population.txt" | head
tar czf "$OUT/results12b.tgz" -C "$PWD/build-run" results12b
