#!/usr/bin/env bash
# Installs the Debian packages warpscope builds and tests with. Safe to run again: it only
# asks apt for what is missing. The CUDA toolkit is optional (the GPU backend is built
# when /usr/local/cuda/bin/nvcc exists).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libzstd-dev nlohmann-json3-dev libcli11-dev doctest-dev
      libimgui-dev libstb-dev libglfw3-dev libepoxy-dev
      libcairo2-dev libfreetype-dev libgif-dev libwebp-dev
      xvfb xauth libgl1-mesa-dri fonts-dejavu-core fonts-jetbrains-mono python3
      universal-ctags clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "warpscope: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "warpscope: CUDA toolkit found ($(/usr/local/cuda/bin/nvcc --version | tail -1)); the GPU backend will be built"
else
  echo "warpscope: no CUDA toolkit at /usr/local/cuda: building without the GPU backend (emulator + replay pack)"
fi
