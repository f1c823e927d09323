#!/usr/bin/env bash
# GPU run 14: CUDA tests of layouts (pad/unpad without the redundant fence), periodic (the new
# high-contrast ring test), partitioned (ScratchExchange's shared publish helpers), and the
# periodic weak-dominance probe on the GPU.
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results14; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1; date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"; cat .device/commit.txt >> "$R/device.txt"
stamp() { echo "# $*, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }
for f in layouts periodic partitioned; do
  b=build-cuda/unit_tests/$f/tridiag_unit_$f
  [ -x "$b" ] || { echo "no $b"; continue; }
  { stamp "$b, commit $(head -1 .device/commit.txt)"; timeout 300 "$b"; echo "exit status $?"; } > "$R/tests_$f.txt" 2>&1
done
if [ -f build-run/periodic_probe_cuda.xz ]; then
  xz -dc build-run/periodic_probe_cuda.xz > build-run/periodic_probe_cuda && chmod +x build-run/periodic_probe_cuda
  { stamp "build-run/periodic_probe_cuda (docs/experiments/periodic_weak_dominance_probe.cpp)"; timeout 120 build-run/periodic_probe_cuda; echo "exit status $?"; } > "$R/periodic_weak_dominance_cuda.txt" 2>&1
fi
for f in "$R"/*.txt; do echo "== $f"; grep -E "^\[  PASSED|^\[  FAILED|exit status|tests ran" "$f" | head -12; done
tar czf "$OUT/results14.tgz" -C "$PWD/build-run" results14
