#!/usr/bin/env bash
# Installs what warpscope needs, builds it, and opens the desktop app on the default
# lesson (the transpose lesson). With no display, it renders the same window off-screen
# and writes it to a PNG instead, saying where. Extra arguments go to the app.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec build/warpscope gui "$@"
fi
mkdir -p out
fig=$PWD/out/warpscope-default-lesson.png
echo "warpscope: no display: rendering the default lesson off-screen"
xvfb-run -a -s "-screen 0 1600x1000x24" build/warpscope gui --config-dir none \
  --screenshot "$fig" --frames 8 "$@"
echo "warpscope: wrote $fig"
echo "warpscope: the command line works without a display, e.g."
echo "  build/warpscope report --kernel transpose_tiled --size 64"
