#!/usr/bin/env bash
# GPU run 13: the partitioned solver's interface by cyclic reduction (f2320c9): CUDA tests of
# partitioned, the weak-dominance probe, and the tridiag sweep timed with the bench of 5d6aea3
# (PCR interface; the team kernel unchanged from 5d6aea3 to f2320c9's parent) and of f2320c9.
set -u
cd "$(dirname "$0")/.."
tar xJf build-run/bench.tar.xz
ls .device/shared/morphologies > /dev/null  # packed by pack_tests.sh (WITH_BENCH)
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=false
R=$PWD/build-run/results13; mkdir -p "$R"
nvidia-smi -L > "$R/device.txt" 2>&1; date -u +%Y-%m-%dT%H:%M:%SZ >> "$R/device.txt"; cat .device/commit.txt >> "$R/device.txt"
stamp() { echo "# $*, $(date -u +%Y-%m-%dT%H:%M:%SZ)"; }
b=build-cuda/unit_tests/partitioned/tridiag_unit_partitioned
{ stamp "$b"; timeout 300 "$b"; echo "exit status $?"; } > "$R/tests_partitioned.txt" 2>&1
grep -E "^\[  PASSED|^\[  FAILED|exit status" "$R/tests_partitioned.txt" | head -8
{ stamp "build-run/exec_check/probe_cuda2 (docs/experiments/weak_dominance_probe.cpp, headers of f2320c9)"; xz -dc build-run/exec_check/probe_cuda2.xz > build-run/probe_cuda2 && chmod +x build-run/probe_cuda2; timeout 200 build-run/probe_cuda2; echo "exit status $?"; } > "$R/weak_dominance_cuda.txt" 2>&1
tail -1 "$R/weak_dominance_cuda.txt"
xz -dc build-run/tridiag-bench-5d6aea3.xz > build-run/bench_old && chmod +x build-run/bench_old
args=(tridiag --systems 2560,25600,256000 --n 64,256,512 --precision float,double --reps 10 --rep-budget 0.3)
for v in old new; do
  bin=build-run/bench_old; [ $v = new ] && bin=build-cuda/perf_tests/tridiag-bench
  { stamp "$bin ${args[*]}"; timeout 250 "$bin" "${args[@]}" --csv "$R/tridiag_$v.csv"; echo "exit status $?"; } > "$R/bench_$v.log" 2>&1
  tail -1 "$R/bench_$v.log"
done
tar czf "$OUT/results13.tgz" -C "$PWD/build-run" results13
