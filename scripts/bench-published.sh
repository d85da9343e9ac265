#!/bin/bash
# Times the catalog on this machine's GPU with the published kernels it reproduces beside
# it, in one command:
#   scripts/bench-published.sh [DIR] [warpscope bench options...]
# DIR (default .sources/, ignored by git) must hold checkouts of SGEMM_CUDA and xGeMM; where
# they are missing and the network can be reached, they are cloned at the commits the
# catalog was checked against. Their code is compiled into build-published/ only, never
# into the repository. Prints `warpscope bench` (every rung with its % of cuBLAS or of the
# copy) and then each published kernel beside the entry that reproduces it.
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-.sources}
[ $# -gt 0 ] && shift
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
fetch() {  # name url commit
  [ -d "$DIR/$1" ] && return 0
  echo "warpscope: cloning $2 into $DIR/$1" >&2
  git clone -q "$2" "$DIR/$1" && git -C "$DIR/$1" checkout -q "$3" ||
    { echo "warpscope: error: $DIR/$1 is missing and could not be cloned from $2" >&2; exit 2; }
}
fetch SGEMM_CUDA https://github.com/siboehm/SGEMM_CUDA 60cba6f9b20a198116c76f18de8047f44df8c8b8
fetch xGeMM https://github.com/tgautam03/xGeMM 75395fe6e8370606e751dc49ac51a2ad92c6f58a
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d '.')
[ "$arch" = 90 ] && arch=90a  # Hopper: its own target, which the wgmma rung needs
gen=; command -v ninja >/dev/null && gen="-G Ninja"
cmake -S . -B build-published $gen -DCMAKE_BUILD_TYPE=Release -DWARPSCOPE_CUDA=ON -DWARPSCOPE_GUI=OFF \
  -DWARPSCOPE_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES="${arch:-90a}" -DWARPSCOPE_PUBLISHED_DIR="$DIR" >/dev/null
cmake --build build-published --target warpscope -j"$(nproc)" >/dev/null
exec build-published/warpscope bench "$@"
