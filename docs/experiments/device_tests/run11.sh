#!/usr/bin/env bash
# GPU run 11: CUDA tests of thomas (factor shape checks) and solve (SolveWorkspace keeps Thomas's workspace by one rule) at 4146a62.
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results11; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"
cat .device/commit.txt >> "$R/device.txt"
for f in thomas solve; do
  b=build-cuda/unit_tests/$f/tridiag_unit_$f
  [ -x "$b" ] || continue
  { echo "# $b, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(head -1 .device/commit.txt)"; timeout 400 "$b"; echo "exit status $?"; } > "$R/tests_$f.txt" 2>&1
  grep -E "^\[  PASSED|^\[  FAILED|exit status" "$R/tests_$f.txt"
done
tar czf "$OUT/results11.tgz" -C "$PWD/build-run" results11
