#!/usr/bin/env bash
# ctest tridiag.scripts.arguments: the arguments of scripts/setup.sh, scripts/test.sh and
# scripts/deps/build_kokkos.sh, and build_kokkos.sh's reuse of a host install. Runs copies of the
# scripts in a scratch repository under WORK whose package, fetch and build steps are stubs that
# fail: nothing is installed, downloaded or built.
#
# usage: scripts/tests/arguments_test.sh WORK
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: arguments_test.sh WORK}
rm -rf "$work"
repo=$work/repo
mkdir -p "$repo/scripts/deps" "$repo/build"
cp "$here/setup.sh" "$here/test.sh" "$here/build_dirs.sh" "$repo/scripts/"
cp "$here/deps/build_kokkos.sh" "$repo/scripts/deps/"
for stub in install_packages.sh deps/fetch_kokkos_source.sh; do
  printf '#!/bin/sh\necho "stub %s reached" >&2\nexit 99\n' "$stub" > "$repo/scripts/$stub"
  chmod +x "$repo/scripts/$stub"
done
: > "$repo/build/CTestTestfile.cmake"   # an (empty) host build for test.sh

failures=0
# expect <exit status> <text the output must hold> <command...>
expect() {
  local want=$1 text=$2; shift 2
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  if [ "$rc" != "$want" ] || [[ $out != *"$text"* ]]; then
    echo "FAIL: $* -> exit $rc (want $want), output:"; echo "$out" | sed 's/^/  | /'
    failures=$((failures + 1))
  else
    echo "ok: $* -> $rc"
  fi
}

setup=$repo/scripts/setup.sh test=$repo/scripts/test.sh build_kokkos=$repo/scripts/deps/build_kokkos.sh
expect 2 "--backend needs a value" bash "$setup" --backend
expect 2 "--arch needs a value" bash "$setup" --backend cuda --arch
expect 2 "--backend must be host or cuda, not 'cdua'" bash "$setup" --backend cdua
expect 2 "--jobs must be a positive number, not 'x'" bash "$setup" --jobs x
expect 2 "unknown option '--fast'" bash "$setup" --fast
expect 99 "stub install_packages.sh reached" bash "$setup" --backend host --jobs 1   # valid: goes on

expect 2 "--backend needs a value" bash "$test" --backend
expect 2 "--backend must be host or cuda, not 'cdua'" bash "$test" --backend cdua
expect 2 "--jobs must be a positive number, not '0'" bash "$test" --jobs 0
expect 1 "no build in $repo/build-cuda-sm_90" bash "$test" --backend cuda

# build_kokkos.sh: a finished host install is reused whatever --arch it is given or was stamped
# with (it was deleted and rebuilt when the two differed); another Kokkos stamp is not reused.
deps=$work/deps
mkdir -p "$deps/src/kokkos" "$deps/install-host"
touch "$deps/install-host/kept"
for stamp in "kokkos=3.4.01 backend=host arch=sm_90" "kokkos=3.4.01 backend=host"; do
  echo "$stamp" > "$deps/install-host/.tridiag-stamp"
  for arch in sm_90 sm_80; do
    expect 0 "reusing $deps/install-host" bash "$build_kokkos" --backend host --arch "$arch" --deps "$deps"
  done
done
[ -f "$deps/install-host/kept" ] || { echo "FAIL: the host install was deleted"; failures=$((failures + 1)); }
echo "kokkos=3.4.00 backend=host" > "$deps/install-host/.tridiag-stamp"
expect 1 "building Kokkos 3.4.01 (host)" bash "$build_kokkos" --backend host --deps "$deps" --jobs 1
expect 2 "--deps needs a value" bash "$build_kokkos" --deps
expect 2 "unsupported --arch 'sm_99'" bash "$build_kokkos" --backend cuda --arch sm_99 --deps "$deps"
expect 2 "unknown backend 'gpu'" bash "$build_kokkos" --backend gpu --deps "$deps"


expect 2 "OMP_NUM_THREADS must be a positive number, not '0'" env OMP_NUM_THREADS=0 bash "$test"

# The CUDA development scripts' options: a missing value is a usage error before any work.
expect 2 "compile_check.sh: --arch needs a value" bash "$here/cuda/compile_check.sh" --arch
expect 2 "prepare_device_binaries.sh: --tests needs a value" bash "$here/cuda/prepare_device_binaries.sh" --tests

# setup.sh --help prints its comment block and nothing of the code after it.
help=$(bash "$setup" --help 2>&1) || true
if [[ $help != *"usage: scripts/setup.sh"* || $help == *"set -euo"* || $help == *"repo="* ]]; then
  echo "FAIL: setup.sh --help:"; echo "$help" | sed 's/^/  | /'; failures=$((failures + 1))
else
  echo "ok: setup.sh --help"
fi

# debian_mirror.sh (fetch_kokkos_source.sh's mirror): one-line sources with options before the
# URI, security mirrors passed over, deb822 files.
mirror=$here/deps/debian_mirror.sh
printf 'deb [arch=amd64 signed-by=/x.gpg] http://ftp.de.debian.org/debian bookworm main\n' > "$work/options.list"
printf 'deb http://security.debian.org/debian-security bookworm-security main\ndeb [trusted=yes] http://b.example/debian bookworm main\n' > "$work/security.list"
printf 'Types: deb\nURIs: http://deb.example/debian\nSuites: bookworm\n' > "$work/debian.sources"
expect 0 "http://ftp.de.debian.org/debian" bash "$mirror" "$work/options.list"
expect 0 "http://b.example/debian" bash "$mirror" "$work/security.list"
expect 0 "http://deb.example/debian" bash "$mirror" "$work/missing.list" "$work/debian.sources" "$work/options.list"
if [ -n "$(bash "$mirror" "$work/missing.list")" ]; then
  echo "FAIL: debian_mirror.sh printed a mirror for no source"; failures=$((failures + 1))
fi

((failures == 0)) || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
