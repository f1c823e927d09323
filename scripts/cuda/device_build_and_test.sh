#!/usr/bin/env bash
# Runs ON the GPU machine, from the repository root, after scripts/cuda/prepare_device_bundle.sh
# made .device/ here and the device tool carried it there:
#   run(command="bash scripts/cuda/device_build_and_test.sh", carry=[".device"])
# Builds the CUDA Kokkos + Kokkos Kernels from .device/deps/src, configures and builds tridiag
# (tests, examples, benchmark) with nvcc_wrapper into build-cuda, then runs ctest,
# compute-sanitizer (memcheck on every unit-test binary, racecheck on cyclic/partitioned/hines)
# and `tridiag-bench copy`. Every step runs even when an earlier one failed; each is timed and
# its output tee'd into $OUT/<group>.log (6 logs + summary.txt + copy.csv: the device tool brings
# back at most 8 files). Exits non-zero if any step failed.
#
# Environment (all optional):
#   ARCH=sm_90          GPU architecture for Kokkos (sm_80, sm_86, sm_90, ...)
#   STEPS="..."         subset of: debs kokkos configure build gpuinfo ctest memcheck racecheck bench
#                       (space- or comma-separated; default all)
#   JOBS=16             build parallelism        CTEST_JOBS=4   ctest parallelism
#   DEADLINE_S=540      wall-clock budget: long steps are cut (timeout) so that the summary is
#                       written before the device tool's 10-minute limit
#   SANITIZER_TIMEOUT=150  per-binary limit for compute-sanitizer, seconds
#   FRESH=1             delete build-cuda before configuring
#   BUILD_TARGETS="..." build only these targets (e.g. "tridiag_unit_partitioned tridiag-bench")
#   OUT=<dir>           where logs go (the device tool sets it; default ./device-out)
# The step functions are called indirectly, through run_step.
# shellcheck disable=SC2317
set -uo pipefail   # no -e: a failed step is recorded and the next one still runs

repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo" || exit 1
OUT=${OUT:-$repo/device-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-16}
CTEST_JOBS=${CTEST_JOBS:-4}
DEADLINE_S=${DEADLINE_S:-540}
SANITIZER_TIMEOUT=${SANITIZER_TIMEOUT:-150}
all_steps="debs kokkos configure build gpuinfo ctest memcheck racecheck bench"
STEPS=${STEPS:-$all_steps}
STEPS=" ${STEPS//,/ } "

bundle=$repo/.device
deps=$bundle/deps
prefix=$deps/install-cuda-$ARCH
build="build-cuda"
# Carried .deb files are unpacked (dpkg -x, never into /) and GoogleTest is built under
# build-cuda-deps/: git-ignored and outside .device, so a warm machine keeps them when a later call
# carries .device again (a carried path replaces the old one there) and runs only some STEPS.
private=$repo/build-cuda-deps
sysroot=$private/sysroot
libdir=$sysroot/usr/lib/x86_64-linux-gnu
gtest_prefix=$private/gtest
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export PATH=$CUDA_ROOT/bin:$PATH
export GTEST_BRIEF=1                         # gtest prints failures only (keeps the logs short)

t_start=$SECONDS
results=()
failed=0

remaining() { echo $((DEADLINE_S - (SECONDS - t_start))); }
# Seconds a long step may take: at most $1, and leave 20 s for the remaining bookkeeping.
budget() {
  local left
  left=$(($(remaining) - 20))
  if ((left < $1)); then echo $((left > 5 ? left : 5)); else echo "$1"; fi
}

# run_step NAME LOG FUNCTION: runs FUNCTION (with set -e) in a subshell, output tee'd to $OUT/LOG.
run_step() {
  local name=$1 log=$OUT/$2 fn=$3 t0=$SECONDS rc
  if [[ $STEPS != *" $name "* ]]; then
    results+=("$(printf '%-10s %-5s %5s' "$name" SKIP -)")
    return 0
  fi
  {
    echo
    echo "=================== [$name] $(date -u +%H:%M:%S) ($(remaining) s of budget left)"
  } | tee -a "$log"
  (set -e; "$fn") 2>&1 | tee -a "$log"
  rc=${PIPESTATUS[0]}
  local status=PASS
  if ((rc != 0)); then status=FAIL; failed=1; fi
  echo "=================== [$name] $status (rc $rc) in $((SECONDS - t0)) s" | tee -a "$log"
  results+=("$(printf '%-10s %-5s %5s s  (%s)' "$name" "$status" "$((SECONDS - t0))" "$2")")
}

# Where CMake finds GoogleTest and LAPACKE: the private prefix when debs were carried.
dep_cmake_opts() {
  dep_opts=()
  if [ -d "$libdir" ]; then
    local gdir=$gtest_prefix/lib/cmake/GTest
    [ -f "$gdir/GTestConfig.cmake" ] || gdir=$libdir/cmake/GTest   # prebuilt fallback
    dep_opts=("-DGTest_DIR=$gdir" "-DCMAKE_PREFIX_PATH=$gtest_prefix;$sysroot/usr"
              "-DCMAKE_LIBRARY_PATH=$libdir" "-DCMAKE_INCLUDE_PATH=$sysroot/usr/include"
              -DBLA_VENDOR=Generic)
  fi
}

# Runtime: liblapacke -> liblapack.so.3, libblas.so.3, libgfortran.so.5 from the private prefix.
# ld also reads LD_LIBRARY_PATH to resolve those indirect libraries at link time.
lib_env() {
  if [ -d "$libdir" ]; then
    export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
}

test_binaries() {
  [ -d "$build/unit_tests" ] || return 0
  find "$build/unit_tests" -type f -name 'tridiag_unit_*' -perm -u+x | sort
}

# ---------------------------------------------------------------------------------------- steps
step_debs() {
  echo "machine: $(uname -srm), $(nproc) cores; $(ldd --version | head -n 1)"
  echo "compilers: $(g++ --version | head -n 1); $(nvcc --version | tail -n 2 | head -n 1)"
  echo "cmake: $(cmake --version | head -n 1); ninja $(ninja --version)"
  local tool
  for tool in patch git dpkg ar compute-sanitizer cuobjdump; do
    printf '%s: %s\n' "$tool" "$(command -v "$tool" || echo MISSING)"
  done
  shopt -s nullglob
  local debs=("$bundle"/debs/*.deb)
  if ((${#debs[@]} == 0)); then
    echo "no .deb files carried: GoogleTest and LAPACKE must come from the system"
    return 0
  fi
  rm -rf "$private"
  mkdir -p "$sysroot"
  local f
  for f in "${debs[@]}"; do
    echo "unpacking $(basename "$f")"
    if command -v dpkg >/dev/null; then
      dpkg -x "$f" "$sysroot"
    else   # no dpkg: a .deb is an ar archive holding data.tar.*
      local member
      member=$(ar t "$f" | grep '^data\.tar')
      case "$member" in
        *.xz) ar p "$f" "$member" | tar -xJ -C "$sysroot" ;;
        *.zst) ar p "$f" "$member" | tar --zstd -x -C "$sysroot" ;;
        *.gz) ar p "$f" "$member" | tar -xz -C "$sysroot" ;;
        *) echo "unknown payload '$member' in $f" >&2; return 1 ;;
      esac
    fi
  done
  # The links that update-alternatives makes on a real install.
  ln -sf lapack/liblapack.so.3 "$libdir/liblapack.so.3"
  ln -sf lapack/liblapack.so.3 "$libdir/liblapack.so"
  ln -sf blas/libblas.so.3 "$libdir/libblas.so.3"
  ln -sf blas/libblas.so.3 "$libdir/libblas.so"
  [ -e "$libdir/liblapacke.so" ] || ln -sf liblapacke.so.3 "$libdir/liblapacke.so"
  lib_env
  echo "--- ldd liblapacke.so.3 (private prefix)"
  ldd "$libdir/liblapacke.so.3"
  if ldd "$libdir/liblapacke.so.3" | grep -q 'not found'; then
    echo "a library of the private prefix is missing" >&2
    return 1
  fi
  # GoogleTest from the carried source with this machine's g++ (the prebuilt Debian libgtest.a
  # stays as a fallback if this fails).
  if [ -f "$sysroot/usr/src/googletest/CMakeLists.txt" ]; then
    echo "--- building GoogleTest $(basename "$(ls "$bundle"/debs/googletest_*.deb)" .deb)"
    if cmake -S "$sysroot/usr/src/googletest" -B "$private/gtest-build" -G Ninja \
         -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_INSTALL_PREFIX="$gtest_prefix" \
         -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_GMOCK=ON \
         -DINSTALL_GTEST=ON > "$private/gtest-configure.log" 2>&1 &&
       cmake --build "$private/gtest-build" --parallel "$JOBS" > "$private/gtest-build.log" 2>&1 &&
       cmake --install "$private/gtest-build" > /dev/null; then
      echo "GoogleTest installed in $gtest_prefix"
    else
      tail -n 30 "$private/gtest-configure.log" "$private/gtest-build.log" 2>/dev/null || true
      echo "WARNING: GoogleTest build failed; using the prebuilt libgtest-dev"
      rm -rf "$gtest_prefix"
      [ -f "$libdir/cmake/GTest/GTestConfig.cmake" ]
    fi
  fi
}

step_kokkos() {
  bash scripts/deps/build_kokkos.sh --backend cuda --arch "$ARCH" --jobs "$JOBS" --deps .device/deps
}

step_configure() {
  [ -x "$prefix/bin/nvcc_wrapper" ] || { echo "no CUDA Kokkos in $prefix (step kokkos)" >&2; return 1; }
  [ "${FRESH:-0}" = 1 ] && rm -rf "$build"
  dep_cmake_opts
  lib_env
  export NVCC_WRAPPER_DEFAULT_ARCH=$ARCH
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DKokkos_ROOT="$prefix" \
    -DKokkosKernels_ROOT="$prefix" -DTRIDIAG_ENABLE_EXAMPLES=ON "${dep_opts[@]}" \
    -DTRIDIAG_SHARED_DIR="$bundle/shared"
  echo "--- found:"
  grep -E '^(GTest_DIR|LAPACK_[a-z]*|LAPACKE_[A-Z_]*|BLAS_[a-z]*)[:=]' "$build/CMakeCache.txt" || true
}

step_build() {
  lib_env
  export NVCC_WRAPPER_DEFAULT_ARCH=$ARCH
  # -k 0: report every failing translation unit, not only the first.
  local targets=()
  for t in ${BUILD_TARGETS:-}; do targets+=(--target "$t"); done
  timeout -k 10 "$(budget 420)" cmake --build "$build" --parallel "$JOBS" ${targets[@]+"${targets[@]}"} -- -k 0
}

step_gpuinfo() {
  local rc=0 bin elf
  nvidia-smi || rc=1
  nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
    --format=csv || rc=1
  bin=$(test_binaries | head -n 1)
  if [ -z "$bin" ]; then
    echo "no unit-test binary under $build/unit_tests" >&2
    return 1
  fi
  echo "--- cuobjdump --list-elf $bin"
  elf=$(cuobjdump --list-elf "$bin") || rc=1
  echo "$elf"
  echo "--- cubins by architecture:"
  grep -o 'sm_[0-9]*[a-z]*' <<<"$elf" | sort | uniq -c || true
  grep -q "$ARCH" <<<"$elf" || { echo "no $ARCH cubin in $bin" >&2; rc=1; }
  return "$rc"
}

step_ctest() {
  lib_env
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-8} OMP_PROC_BIND=false
  # Each unit-test binary runs all its GoogleTest cases in one process (one CUDA context), which
  # is what ctest's per-case processes would run, minus a context start per case; ctest runs the
  # rest (the find_package consumer, the demonstration, the benchmark smoke tests).
  local rc=0 bin
  while read -r bin; do
    echo "--- $bin"
    timeout -k 10 "$(budget 240)" "$bin" --gtest_brief=1 || { echo "--- $(basename "$bin"): FAILED"; rc=1; }
  done < <(test_binaries)
  # (cd; ctest) rather than --test-dir, which needs CMake >= 3.20.
  (cd "$build" && timeout -k 10 "$(budget 200)" ctest --output-on-failure -j "$CTEST_JOBS" --timeout 180 \
      -R 'tridiag[.](examples|perf)[.]') || rc=1
  return $rc
}

# sanitize TOOL FILTER BINARY...: each binary (its gtest cases matching FILTER) under compute-sanitizer; fails if any reported an error.
sanitize() {
  local tool=$1 filter=$2 rc=0 bin t0
  shift 2
  lib_env
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OMP_PROC_BIND=false
  command -v compute-sanitizer >/dev/null || { echo "compute-sanitizer not found" >&2; return 1; }
  (($#)) || { echo "no binaries to check"; return 0; }
  for bin in "$@"; do
    t0=$SECONDS
    echo "--- compute-sanitizer --tool $tool $bin"
    if timeout -k 10 "$(budget "$SANITIZER_TIMEOUT")" compute-sanitizer --tool "$tool" \
         --error-exitcode 1 --print-limit 20 "$bin" --gtest_filter="$filter" --gtest_brief=1; then
      echo "--- $tool $(basename "$bin"): clean ($((SECONDS - t0)) s)"
    else
      echo "--- $tool $(basename "$bin"): FAILED (rc $?, $((SECONDS - t0)) s; 124 = timed out)"
      rc=1
    fi
  done
  return "$rc"
}

step_memcheck() {
  local bins=()
  mapfile -t bins < <(test_binaries)
  ((${#bins[@]})) || { echo "no unit-test binary under $build/unit_tests" >&2; return 1; }
  # Only the CUDA configurations (type names end in _Cuda): the sanitizer sees device code only.
  sanitize memcheck '*Cuda*' "${bins[@]}"
}

step_racecheck() {
  local bins=() b
  while read -r b; do
    case "$(basename "$b")" in
      tridiag_unit_cyclic | tridiag_unit_partitioned | tridiag_unit_hines) bins+=("$b") ;;
    esac
  done < <(test_binaries)
  # racecheck runs every shared-memory access through the tool (about 100x slower; all CUDA cases
  # of tridiag_unit_cyclic took more than 150 s): one configuration per team-based solver, double
  # on the flat layout; the other layouts and float run the same barriers and scratch accesses.
  sanitize racecheck "${RACECHECK_FILTER:-*double_flat_Cuda*}" "${bins[@]}"
}

step_bench() {
  local bench=$build/perf_tests/tridiag-bench
  if [ ! -x "$bench" ]; then
    echo "no $bench: nothing to run"
    return 0
  fi
  lib_env
  timeout -k 10 "$(budget 120)" "$bench" copy --csv "$OUT/copy.csv"
}

# ----------------------------------------------------------------------------------------- main
echo "[tridiag] device build and test: ARCH=$ARCH JOBS=$JOBS STEPS=$STEPS OUT=$OUT"
run_step debs      deps.log      step_debs
run_step kokkos    deps.log      step_kokkos
run_step configure build.log     step_configure
run_step build     build.log     step_build
run_step gpuinfo   gpu.log       step_gpuinfo
run_step ctest     ctest.log     step_ctest
run_step memcheck  sanitizer.log step_memcheck
run_step racecheck sanitizer.log step_racecheck
run_step bench     bench.log     step_bench

{
  echo "[tridiag] summary (ARCH=$ARCH, $((SECONDS - t_start)) s in all)"
  printf '  %s\n' "${results[@]}"
  if ((failed)); then echo "[tridiag] RESULT: FAILED"; else echo "[tridiag] RESULT: all steps passed"; fi
} | tee "$OUT/summary.txt"
exit "$failed"
