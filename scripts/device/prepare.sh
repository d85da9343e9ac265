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
strip build-device/test_gpu build-device/ws_gpu_tool build-device/warpscope 2>/dev/null || true
# The three are about 85 MB, and a device run carries 64 MiB with the tracked files (25 MB):
# packed with xz, whose window holds all three, so that the GPU code they share is stored
# once (about 20 MB; with xz's default window each is packed alone, 56 MB in all).
# run_all.sh unpacks the pack where it finds it.
tar -C build-device -cf - test_gpu ws_gpu_tool warpscope | xz -T1 --lzma2=preset=9,dict=192MiB >build-device/bins.tar.xz
rm build-device/test_gpu build-device/ws_gpu_tool build-device/warpscope
git rev-parse HEAD >build-device/commit  # what they were built from (uncommitted changes aside)
ls -la build-device
