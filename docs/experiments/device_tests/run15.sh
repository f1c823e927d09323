#!/usr/bin/env bash
# Ran from build-run/ as build-run/run15.sh on the H100, 2026-12-05 22:37-22:40 UTC (calls: STEPS="copy
# classes shared", then STEPS="copy shared256"; carry build-carry and build-run); a third call ran
# the cells over 5e8 rows with --full (docs/performance.md, "Issue 6's goals re-measured").
# GPU run 15: issue 6's goal figures re-measured with the library as it stands (tridiag-bench of
# the commit in .device/commit.txt, built on the development machine by
# scripts/cuda/prepare_device_binaries.sh). Steps, each under its own time limit, CSVs to $OUT:
#   copy     the copy reference of this machine
#   classes  the six size classes and mixed6 at 25,600, 64,000 and 256,000 neurons, double, with
#            the sequential and 16-core OpenMP baselines (the speedup columns)
#   shared   the 11 shared cells and mixed-shared at 25,600 and 64,000 neurons, double
#   shared256  the 11 shared cells alone at 256,000 neurons, double (the 70% goal on BG001 and the
#            other cells of hundreds of rows and more)
# STEPS selects some of them (default all).
set -u
cd "$(dirname "$0")/.."
tar xJf build-carry/bench.tar.xz
export LD_LIBRARY_PATH=$PWD/build-cuda-deps/sysroot/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=spread OMP_PLACES=threads
STEPS=" ${STEPS:-copy classes shared shared256} "
B=./build-cuda/perf_tests/tridiag-bench
M=(--morphologies .device/shared/morphologies)
C=$(head -1 .device/commit.txt)
common=(--exec cuda --precision double --reps 5 --rep-budget 0.5 "${M[@]}")
cells=10-2012-02-09-001,AA0013,BG001,C080400A3,C220498B-I4,control-1-wt,HSN-fluoro01,HSN-fluoro02,mp_ma_40984_gc2,nrn_ordering,tc200
{ nvidia-smi -L; date -u +%Y-%m-%dT%H:%M:%SZ; echo "commit $C"; } > "$OUT/device_$C.txt" 2>&1
printf 'step\tlimit_s\telapsed_s\texit\n' > "$OUT/steps_$C.tsv"
step() {  # step NAME LIMIT_S -- bench arguments
  local name=$1 limit=$2 t0=$SECONDS; shift 3
  [[ $STEPS == *" $name "* ]] || return 0
  echo "== $name $(date -u +%H:%M:%S)"
  timeout "$limit" "$B" "$@" --csv "$OUT/h100_hines_goals_${name}_$C.csv" > "$OUT/h100_hines_goals_${name}_$C.txt" 2>&1
  local rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$limit" $((SECONDS - t0)) "$rc" >> "$OUT/steps_$C.tsv"
  echo "   exit $rc after $((SECONDS - t0)) s"; tail -3 "$OUT/h100_hines_goals_${name}_$C.txt"
}
if [[ $STEPS == *" copy "* ]]; then timeout 30 "$B" copy --csv "$OUT/h100_copy_$C.csv" > "$OUT/h100_copy_$C.txt" 2>&1; echo "copy exit $?"; fi
step classes 260 -- hines "${common[@]}" --systems 25600,64000,256000 --batches small-low,small-high,medium-low,medium-high,big-low,big-high,mixed6
step shared 200 -- hines "${common[@]}" --no-host-baselines --systems 25600,64000 --batches "$cells",mixed-shared
step shared256 280 -- hines "${common[@]}" --no-host-baselines --systems 256000 --batches "$cells"
cat "$OUT/steps_$C.tsv"
