# Sourced by setup.sh and test.sh: where each backend's build tree, Kokkos prefix and tridiag
# install prefix live (CUDA: one of each per --arch, as each links its own arch's Kokkos).
tridiag_build_dir() {  # repo backend arch
  if [ "$2" = cuda ]; then echo "$1/build-cuda-$3"; else echo "$1/build"; fi
}
tridiag_kokkos_prefix() {  # repo backend arch
  if [ "$2" = cuda ]; then echo "$1/.deps/install-cuda-$3"; else echo "$1/.deps/install-host"; fi
}
tridiag_install_prefix() {  # repo backend arch
  if [ "$2" = cuda ]; then echo "$1/.deps/tridiag-cuda-$3"; else echo "$1/.deps/tridiag-host"; fi
}
