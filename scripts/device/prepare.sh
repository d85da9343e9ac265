#!/bin/sh
# Builds the GPU binaries on this machine (nvcc, sm_90a) and stages them in build-device/,
# the folder the device run carries (git-ignored, well under the 64 MiB it may take).
#   scripts/device/prepare.sh            then run_all.sh on the GPU machine
set -eu
cd "$(dirname "$0")/../.."
cmake -S . -B build-gpu -G Ninja -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF >/dev/null
ninja -j"${JOBS:-2}" -C build-gpu test_gpu ws_gpu_tool warpscope
mkdir -p build-device
cp build-gpu/tests/test_gpu build-gpu/tests/ws_gpu_tool build-gpu/warpscope build-device/
strip --strip-debug build-device/test_gpu build-device/ws_gpu_tool build-device/warpscope 2>/dev/null || true
ls -la build-device
