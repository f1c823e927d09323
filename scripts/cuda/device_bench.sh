#!/usr/bin/env bash
# Runs ON the GPU machine after scripts/cuda/device_build_and_test.sh built build-cuda there (same
# warm machine): the benchmark sweeps whose results docs/performance.md reports.
#   1. tridiag-bench tridiag on the GPU: the seeds' grid (256 ... 256,000 systems x 64 ... 512,
#      float and double), every algorithm x layout, cuSPARSE on the same data, the sequential and
#      16-thread OpenMP baselines;
#   2. tridiag-bench tridiag on the host cores (OpenMP, all threads) for the host figures;
#   3. tridiag-bench hines on the GPU: the six size classes, BG001, mixed6 and mixed-shared (padded
#      and grouped) at 25,600 and 256,000 neurons, every layout x kernel, sequential and OpenMP
#      baselines (hines_gpu.csv; double first, so that a timeout cuts float);
#   4. tridiag-bench hines on the host cores (OpenMP): big-high and mixed6, double (hines_host.csv).
# CSV and logs go to $OUT. Environment: TRIDIAG_COMMIT (the commit measured), REPS (default 10),
# HINES_REPS (default 5), SWEEPS (default "tridiag host hines hines_host": which of 1-4 run), and the
# time limits GPU_SWEEP_S (330), HOST_SWEEP_S (200), HINES_GPU_S (150), HINES_HOST_S (120) seconds.
# All four at their limits exceed one 10-minute device command: run SWEEPS="tridiag host" and
# SWEEPS="hines hines_host" as two calls on the same warm machine. SWEEPS may also name "vbatch"
# and "constant" (GPU; EXTRA_SWEEP_S, default 150 s each; VBATCH_RANGES overrides the vbatch
# ranges), "long" (the partitioned solver's long systems: 1, 16, 128 systems x 16,384, 262,144 and
# 1,000,000 rows, double, every layout, cuSPARSE; LONG_SWEEP_S, default 120 s) and "tests" (the
# unit-test binaries found under build-cuda/unit_tests, e.g. packed by prepare_device_binaries.sh
# --tests; TESTS_S, default 120 s in all).
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
# The commit measured: TRIDIAG_COMMIT, else what prepare_device_bundle.sh recorded.
if [ -z "${TRIDIAG_COMMIT:-}" ] && [ -f "$repo/.device/commit.txt" ]; then
  TRIDIAG_COMMIT=$(cat "$repo/.device/commit.txt"); export TRIDIAG_COMMIT
fi
reps=${REPS:-10}
hines_reps=${HINES_REPS:-5}
sweeps=" ${SWEEPS:-tridiag host hines hines_host} "
# The SWC cells of the hines sweep: the bundle's copy when there is one (prepare_device_bundle.sh;
# ${a[@]+...}: an empty array under set -u on any bash).
morphologies=()
[ -d "$repo/.device/shared/morphologies" ] && morphologies=(--morphologies "$repo/.device/shared/morphologies")
rc=0
logs=()
if [[ $sweeps == *" tridiag "* ]]; then
  echo "[tridiag] GPU sweep (reps $reps)"
  timeout -k 10 "${GPU_SWEEP_S:-330}" "$bench" tridiag --exec cuda --reps "$reps" --csv "$OUT/tridiag_gpu.csv" \
    2>&1 | tee "$OUT/bench_gpu.log" | grep -E "WRONG|error|skipped" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  logs+=("$OUT/bench_gpu.log")
fi
if [[ $sweeps == *" host "* ]]; then
  echo "[tridiag] host sweep (OpenMP, $OMP_NUM_THREADS threads)"
  timeout -k 10 "${HOST_SWEEP_S:-200}" "$bench" tridiag --exec openmp --systems 25600,256000 --n 64,512 \
    --reps "$reps" --csv "$OUT/tridiag_host.csv" 2>&1 | tee "$OUT/bench_host.log" | grep -E "WRONG|error" ;
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  logs+=("$OUT/bench_host.log")
fi
if [[ $sweeps == *" hines "* ]]; then
  # Fewer repetitions: a point solves 10 layout x kernel pairs plus the host baselines, whose data
  # (up to 256,000 neurons x 4,035 padded rows) is generated on the host too.
  echo "[tridiag] hines GPU sweep (reps $hines_reps)"
  timeout -k 10 "${HINES_GPU_S:-150}" "$bench" hines --exec cuda --precision double,float --reps "$hines_reps" \
    ${morphologies[@]+"${morphologies[@]}"} --csv "$OUT/hines_gpu.csv" 2>&1 | tee "$OUT/bench_hines_gpu.log" |
    grep -E "WRONG|error|FAILED" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  logs+=("$OUT/bench_hines_gpu.log")
fi
if [[ $sweeps == *" hines_host "* ]]; then
  echo "[tridiag] hines host sweep (OpenMP, $OMP_NUM_THREADS threads, reps $hines_reps)"
  timeout -k 10 "${HINES_HOST_S:-120}" "$bench" hines --exec openmp --precision double --batches big-high,mixed6 \
    --reps "$hines_reps" ${morphologies[@]+"${morphologies[@]}"} --csv "$OUT/hines_host.csv" 2>&1 |
    tee "$OUT/bench_hines_host.log" | grep -E "WRONG|error|FAILED" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  logs+=("$OUT/bench_hines_host.log")
fi
# Optional (not in the default SWEEPS): the variable-batch and constant-coefficient sweeps on the GPU.
for extra in vbatch constant; do
  if [[ $sweeps == *" $extra "* ]]; then
    echo "[tridiag] $extra GPU sweep (reps $reps)"
    ranges=()
    [ "$extra" = vbatch ] && [ -n "${VBATCH_RANGES:-}" ] && ranges=(--ranges "$VBATCH_RANGES")
    timeout -k 10 "${EXTRA_SWEEP_S:-150}" "$bench" "$extra" --exec cuda --reps "$reps" ${ranges[@]+"${ranges[@]}"} \
      --csv "$OUT/${extra}_gpu.csv" \
      2>&1 | tee "$OUT/bench_${extra}_gpu.log" | grep -E "WRONG|error|FAILED" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
    logs+=("$OUT/bench_${extra}_gpu.log")
  fi
done
if [[ $sweeps == *" long "* ]]; then
  echo "[tridiag] long systems GPU sweep (reps 5)"
  timeout -k 10 "${LONG_SWEEP_S:-120}" "$bench" tridiag --exec cuda --systems 1,16,128 --n 16384,262144,1000000 \
    --precision double --reps 5 --csv "$OUT/tridiag_long_gpu.csv" 2>&1 | tee "$OUT/bench_long_gpu.log" |
    grep -E "WRONG|error|FAILED" ; [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  logs+=("$OUT/bench_long_gpu.log")
fi
if [[ $sweeps == *" tests "* ]]; then
  echo "[tridiag] unit tests (GTEST_BRIEF)"
  deadline=$((SECONDS + ${TESTS_S:-120}))
  for test in "$repo"/build-cuda/unit_tests/*/tridiag_unit_*; do
    [ -x "$test" ] || continue
    left=$((deadline - SECONDS)); ((left > 5)) || { echo "no time left for $test"; rc=1; break; }
    GTEST_BRIEF=1 timeout -k 5 "$left" "$test" >>"$OUT/unit_tests_gpu.log" 2>&1 || { echo "FAILED: $test"; rc=1; }
    tail -n 1 "$OUT/unit_tests_gpu.log"
  done
  logs+=("$OUT/unit_tests_gpu.log")
fi
((${#logs[@]})) && tail -n 3 "${logs[@]}"
exit $rc
