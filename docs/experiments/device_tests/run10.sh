#!/usr/bin/env bash
# GPU run 10: the deep_copy probe built at 8fb655a (host double -> CUDA float), then the CUDA tests
# of partitioned and solve (15676a2: ragged workspace, one SplitAgainRule) and core (deep_copy fix).
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results10; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"
cat .device/commit.txt >> "$R/device.txt"
{ echo "# build-run/probe/deep_copy_probe_8fb655a (docs: deep_copy_probe.cpp), $(date -u +%Y-%m-%dT%H:%M:%SZ)"; timeout 60 build-run/probe/deep_copy_probe_8fb655a; echo "exit status $?"; } > "$R/deep_copy_probe_8fb655a.txt" 2>&1
cat "$R/deep_copy_probe_8fb655a.txt"
for f in core partitioned solve; do
  b=build-cuda/unit_tests/$f/tridiag_unit_$f
  [ -x "$b" ] || continue
  { echo "# $b, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(head -1 .device/commit.txt)"; timeout 200 "$b"; echo "exit status $?"; } > "$R/tests_$f.txt" 2>&1
  grep -E "^\[  PASSED|^\[  FAILED|exit status" "$R/tests_$f.txt"
done
tar czf "$OUT/results10.tgz" -C "$PWD/build-run" results10
