#!/usr/bin/env bash
# GPU run 12: CUDA tests of layouts (padded sizes checked on the caller's instance: the new build,
# and the old check in the same test, expected to fail), cyclic (CR default, high-contrast
# diffusion), periodic (workspace allocation count), and the weak-dominance probe on the GPU.
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results12; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1
date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"
cat .device/commit.txt >> "$R/device.txt"
E=build-run/exec_check
stamp() { echo "# $*, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }
{ stamp "$E/layouts_new (tree of 5948688)"; timeout 300 "$E/layouts_new"; echo "exit status $?"; } > "$R/tests_layouts.txt" 2>&1
{ stamp "$E/layouts_old (5948688 with check_padded_sizes on the default instance), the new test only"; timeout 120 "$E/layouts_old" --gtest_filter='VariableBatchCuda.*'; echo "exit status $?"; } > "$R/tests_layouts_old_check.txt" 2>&1
for f in cyclic periodic hines_population; do
  b=build-cuda/unit_tests/$f/tridiag_unit_$f
  [ -x "$b" ] || continue
  { stamp "$b, commit $(head -1 .device/commit.txt)"; timeout 300 "$b"; echo "exit status $?"; } > "$R/tests_$f.txt" 2>&1
done
{ stamp "$E/missing_cuda"; "$E/missing_cuda"; echo "exit status $?"; } > "$R/missing_device_reason.txt" 2>&1
{ stamp "$E/probe_cuda (docs/experiments/weak_dominance_probe.cpp at bbb7b25)"; timeout 200 "$E/probe_cuda"; echo "exit status $?"; } > "$R/weak_dominance_cuda.txt" 2>&1
for f in "$R"/*.txt; do echo "== $f"; grep -E "^\[  PASSED|^\[  FAILED|exit status|tests ran" "$f" | head -12; done
tar czf "$OUT/results12.tgz" -C "$PWD/build-run" results12
