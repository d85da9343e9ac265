#!/usr/bin/env bash
# Builds the release .deb: Release, without the GPU backend (its CUDA libraries are not
# Debian packages, so the package runs on any Debian 12 machine; `warpscope run` finds nvcc
# at run time where the CUDA toolkit is installed), the emulated CUDA runtime included.
#   scripts/package.sh [BUILD_DIR]      -> BUILD_DIR/warpscope_<version>_amd64.deb
# Install it with `sudo apt install ./warpscope_<version>_amd64.deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
build=${1:-build-package}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=OFF -DWARPSCOPE_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
(cd "$build" && cpack -G DEB)
deb=$(ls -t "$build"/warpscope_*.deb | head -1)
echo "warpscope: package $deb"
dpkg-deb -f "$deb" Package Version Depends
