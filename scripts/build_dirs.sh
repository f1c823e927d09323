# Sourced by setup.sh and test.sh: where each backend's build tree and Kokkos prefix live.
tridiag_build_dir() {  # repo backend arch
  if [ "$2" = cuda ]; then echo "$1/build-cuda-$3"; else echo "$1/build"; fi
}
tridiag_kokkos_prefix() {  # repo backend arch
  if [ "$2" = cuda ]; then echo "$1/.deps/install-cuda-$3"; else echo "$1/.deps/install-host"; fi
}
