#!/usr/bin/env bash
# Runs ON the GPU machine after scripts/cuda/device_build_and_test.sh built build-cuda there (same
# warm machine): the benchmark sweeps whose results docs/performance.md reports.
#   1. tridiag-bench tridiag on the GPU: the seeds' grid (256 ... 256,000 systems x 64 ... 512,
#      float and double), every algorithm x layout, cuSPARSE on the same data, the sequential and
#      16-thread OpenMP baselines;
#   2. tridiag-bench tridiag on the host cores (OpenMP, all threads) for the host figures.
# CSV and logs go to $OUT. Environment: TRIDIAG_COMMIT (the commit measured), REPS (default 10).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
bench=$repo/build-cuda/perf_tests/tridiag-bench
[ -x "$bench" ] || { echo "no $bench: run scripts/cuda/device_build_and_test.sh first" >&2; exit 1; }
libdir=$repo/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu
[ -d "$libdir" ] && export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=spread OMP_PLACES=threads
reps=${REPS:-10}
rc=0
echo "[tridiag] GPU sweep (reps $reps)"
timeout -k 10 "${GPU_SWEEP_S:-330}" "$bench" tridiag --exec cuda --reps "$reps" --csv "$OUT/tridiag_gpu.csv" \
  2>&1 | tee "$OUT/bench_gpu.log" | grep -E "WRONG|error|skipped" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
echo "[tridiag] host sweep (OpenMP, $OMP_NUM_THREADS threads)"
timeout -k 10 "${HOST_SWEEP_S:-200}" "$bench" tridiag --exec openmp --systems 25600,256000 --n 64,512 \
  --reps "$reps" --csv "$OUT/tridiag_host.csv" 2>&1 | tee "$OUT/bench_host.log" | grep -E "WRONG|error" ;
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
tail -n 3 "$OUT/bench_gpu.log" "$OUT/bench_host.log"
exit $rc
