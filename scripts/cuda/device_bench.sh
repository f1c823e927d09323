#!/usr/bin/env bash
# Runs ON the GPU machine, in ONE device call (<= 10 minutes), every benchmark sweep whose results
# docs/performance.md reports, once build-cuda/perf_tests/tridiag-bench is there: either built on
# the development machine and carried over (scripts/cuda/prepare_device_binaries.sh, then
#   run(command="tar xJf build-carry/bench.tar.xz && bash scripts/cuda/device_bench.sh",
#       carry=["build-carry"])
# which spends no device time building), or built there by scripts/cuda/device_build_and_test.sh.
# Every CSV and log goes to $OUT; steps.tsv there says how long each step took against its limit.
#
# The default (no SWEEPS) runs these steps, in this order, each under its own time limit (timeout):
#   step        what                                                            estimate  limit
#   copy        tridiag-bench copy: device deep_copy 1 GiB, host copy + triad         ~4 s    15 s
#   tridiag     the seeds' grid on the GPU: 256 .. 256,000 systems x 64 .. 512,     ~52 s    75 s
#               float and double, every algorithm x layout, Auto, cuSPARSE on the
#               same data, sequential + 16-thread OpenMP baselines (reps 10)
#   vbatch      variable batches: CP / NCP (padded, ragged) / size-aware, ranges      ~6 s    20 s
#               256-512, 64-128, 1-512, 2,560 .. 256,000 systems, float and double
#   constant    constant coefficients, the tridiag grid                              ~13 s    25 s
#   long        the partitioned solver's long systems: 1, 16, 128 systems x 16,384, ~117 s   130 s
#               262,144 and 1,000,000 rows, double (reps 5); thomas and cyclic rows
#               are skipped above 16,384 rows (tridiag-bench --help), partitioned,
#               auto, cuSPARSE and the baselines stay
#   hines       the six classes, BG001, mixed6 and mixed-shared (padded, grouped) at ~112 s   140 s
#               25,600 and 256,000 neurons (mixed-shared at 25,600 only), every
#               layout x kernel, sequential (up to 3e7 rows) and OpenMP baselines;
#               double, then float (reps 5)
#   host        tridiag on the 16 host cores (OpenMP): 25,600 and 256,000 systems x  ~76 s   110 s
#               64 and 512, double (HOST_PRECISION), every algorithm x layout
#   hines_host  hines on the host cores: 25,600 neurons, big-high and mixed6, double ~37 s    50 s
#                                                                            total  ~417 s   565 s
# Measured at eec299d and 4abb949 (docs/results/h100_device_bench_steps_eec299d.tsv): 317 s in all,
# the long step cut at 85 s there; alone at 4abb949 it took 117 s, hence its limit of 130 s.
# Estimates: from the H100 runs in docs/results (time_ms of every row; a measurement costs its
# warm-up plus clamp(ceil(0.5 s / t), 3, reps) timed runs since the time-bounded repetitions),
# plus the overhead those runs showed (process start, copy reference, data generation: ~7 s for
# the 32 points of the tridiag grid; ~10 ns per padded row of each hines point's host copy, ~28 s
# in all). Never measured, so scaled: the long step's 16 and 128 x 10^6 points (from 262,144
# rows), the host step's double 256,000 x 512 point (float x 1.6) and the hines float points (GPU
# 0.6 x double, host 0.8-0.9 x).
#
# Environment (all optional): SWEEPS (which steps, e.g. SWEEPS="hines hines_host"; also "tests":
# the unit-test binaries found under build-cuda/unit_tests, e.g. packed by prepare_device_binaries.sh
# --tests, TESTS_S default 120 s), TRIDIAG_COMMIT (the commit measured; default .device/commit.txt),
# REPS (10), HINES_REPS (5), LONG_REPS (5), REP_BUDGET (0.5 s, tridiag-bench --rep-budget),
# VBATCH_RANGES (e.g. 256-512,1-512), HOST_PRECISION (double), OMP_NUM_THREADS (all cores), and the
# limits in seconds COPY_S, GPU_SWEEP_S (tridiag), VBATCH_S, CONSTANT_S (EXTRA_SWEEP_S sets both),
# LONG_SWEEP_S, HINES_GPU_S, HOST_SWEEP_S, HINES_HOST_S.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
bench=$repo/build-cuda/perf_tests/tridiag-bench
[ -x "$bench" ] || { echo "no $bench: run scripts/cuda/prepare_device_binaries.sh (here: tar xJf build-carry/bench.tar.xz) or scripts/cuda/device_build_and_test.sh first" >&2; exit 1; }
libdir=$repo/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu
[ -d "$libdir" ] && export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} OMP_PROC_BIND=spread OMP_PLACES=threads
# The commit measured: TRIDIAG_COMMIT, else what prepare_device_bundle.sh / prepare_device_binaries.sh recorded.
if [ -z "${TRIDIAG_COMMIT:-}" ] && [ -f "$repo/.device/commit.txt" ]; then
  TRIDIAG_COMMIT=$(cat "$repo/.device/commit.txt"); export TRIDIAG_COMMIT
fi
reps=${REPS:-10}
hines_reps=${HINES_REPS:-5}
long_reps=${LONG_REPS:-5}
budget=(--rep-budget "${REP_BUDGET:-0.5}")
sweeps=" ${SWEEPS:-copy tridiag vbatch constant long hines host hines_host} "
# The SWC cells of the hines sweep: the bundle's copy when there is one (${a[@]+...}: an empty
# array under set -u on any bash).
morphologies=()
[ -d "$repo/.device/shared/morphologies" ] && morphologies=(--morphologies "$repo/.device/shared/morphologies")
ranges=()
[ -n "${VBATCH_RANGES:-}" ] && ranges=(--ranges "$VBATCH_RANGES")

rc=0
logs=()
printf 'step\tlimit_s\telapsed_s\texit\n' >"$OUT/steps.tsv"
# step NAME LIMIT_S CSV LOG -- tridiag-bench arguments: runs one sweep under `timeout`, its console
# output in LOG (the lines that matter echoed here), its CSV in $OUT/CSV.
step() {
  local name=$1 limit=$2 csv=$3 log=$4
  shift 5
  [[ $sweeps == *" $name "* ]] || return 0
  echo "[tridiag] $name (limit ${limit} s): tridiag-bench $*"
  local t0=$SECONDS status
  timeout -k 10 "$limit" "$bench" "$@" --csv "$OUT/$csv" >"$OUT/$log" 2>&1
  status=$?
  grep -E "WRONG|error|FAILED|skipped|done \(" "$OUT/$log"
  case $status in
    0) ;;
    124 | 137) echo "[tridiag] $name: TIMED OUT after $limit s (its CSV holds the points finished)"; rc=1 ;;
    *) echo "[tridiag] $name: exit status $status"; rc=1 ;;
  esac
  printf '%s\t%s\t%s\t%s\n' "$name" "$limit" "$((SECONDS - t0))" "$status" >>"$OUT/steps.tsv"
  logs+=("$OUT/$log")
}

step copy "${COPY_S:-15}" copy_gpu.csv bench_copy.log -- \
  copy --exec cuda --reps "$reps" "${budget[@]}"
step tridiag "${GPU_SWEEP_S:-75}" tridiag_gpu.csv bench_gpu.log -- \
  tridiag --exec cuda --reps "$reps" "${budget[@]}"
step vbatch "${VBATCH_S:-${EXTRA_SWEEP_S:-20}}" vbatch_gpu.csv bench_vbatch_gpu.log -- \
  vbatch --exec cuda --reps "$reps" "${budget[@]}" ${ranges[@]+"${ranges[@]}"}
step constant "${CONSTANT_S:-${EXTRA_SWEEP_S:-25}}" constant_gpu.csv bench_constant_gpu.log -- \
  constant --exec cuda --reps "$reps" "${budget[@]}"
step long "${LONG_SWEEP_S:-130}" tridiag_long_gpu.csv bench_long_gpu.log -- \
  tridiag --exec cuda --systems 1,16,128 --n 16384,262144,1000000 --precision double --reps "$long_reps" "${budget[@]}"
step hines "${HINES_GPU_S:-140}" hines_gpu.csv bench_hines_gpu.log -- \
  hines --exec cuda --precision double,float --reps "$hines_reps" "${budget[@]}" ${morphologies[@]+"${morphologies[@]}"}
step host "${HOST_SWEEP_S:-110}" tridiag_host.csv bench_host.log -- \
  tridiag --exec openmp --systems 25600,256000 --n 64,512 --precision "${HOST_PRECISION:-double}" --reps "$reps" \
  "${budget[@]}"
step hines_host "${HINES_HOST_S:-50}" hines_host.csv bench_hines_host.log -- \
  hines --exec openmp --systems 25600 --batches big-high,mixed6 --precision double --reps "$hines_reps" "${budget[@]}" \
  ${morphologies[@]+"${morphologies[@]}"}

if [[ $sweeps == *" tests "* ]]; then
  echo "[tridiag] unit tests (GTEST_BRIEF)"
  t0=$SECONDS
  deadline=$((SECONDS + ${TESTS_S:-120}))
  for test in "$repo"/build-cuda/unit_tests/*/tridiag_unit_*; do
    [ -x "$test" ] || continue
    left=$((deadline - SECONDS)); ((left > 5)) || { echo "no time left for $test"; rc=1; break; }
    GTEST_BRIEF=1 timeout -k 5 "$left" "$test" >>"$OUT/unit_tests_gpu.log" 2>&1 || { echo "FAILED: $test"; rc=1; }
    tail -n 1 "$OUT/unit_tests_gpu.log"
  done
  printf 'tests\t%s\t%s\t%s\n' "${TESTS_S:-120}" "$((SECONDS - t0))" "$rc" >>"$OUT/steps.tsv"
  logs+=("$OUT/unit_tests_gpu.log")
fi
((${#logs[@]})) && tail -n 3 "${logs[@]}"
echo "[tridiag] steps (seconds):"
column -t -s $'\t' "$OUT/steps.tsv" 2>/dev/null || cat "$OUT/steps.tsv"
exit $rc
