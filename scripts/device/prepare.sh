#!/bin/sh
# Builds the GPU binaries on this machine (nvcc, sm_90a) and stages them in build-device/,
# the folder the device run carries (git-ignored; packed to stay under the 64 MiB it may take).
#   scripts/device/prepare.sh            then, carrying build-device, PREBUILT=1 run_all.sh there
set -eu
cd "$(dirname "$0")/../.."
cmake -S . -B build-gpu -G Ninja -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF >/dev/null
ninja -j"${JOBS:-2}" -C build-gpu test_gpu ws_gpu_tool warpscope
mkdir -p build-device
cp build-gpu/tests/test_gpu build-gpu/tests/ws_gpu_tool build-gpu/warpscope build-device/
strip --strip-debug build-device/test_gpu build-device/ws_gpu_tool build-device/warpscope 2>/dev/null || true
# The three are about 87 MB, more than a device run carries (64 MiB): packed with xz (about
# 56 MB), which run_all.sh unpacks where it finds the pack.
tar -C build-device -cf - test_gpu ws_gpu_tool warpscope | xz -T"${JOBS:-2}" -6 >build-device/bins.tar.xz
rm build-device/test_gpu build-device/ws_gpu_tool build-device/warpscope
git rev-parse HEAD >build-device/commit  # what they were built from (uncommitted changes aside)
ls -la build-device
