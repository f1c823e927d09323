#!/usr/bin/env bash
# Installs the Debian packages tridiag builds and tests with (by name, from the archive only).
# Skips apt entirely when everything is already present, so a second setup run costs nothing.
set -euo pipefail
packages=(build-essential cmake ninja-build git pkg-config dpkg-dev
          libgtest-dev libgmock-dev
          liblapacke-dev liblapack-dev libopenblas-dev
          python3-matplotlib python3-neuron)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "[tridiag] Debian packages: all present"
  exit 0
fi
echo "[tridiag] installing Debian packages: ${missing[*]}"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
