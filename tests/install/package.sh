#!/usr/bin/env bash
# The .deb as a user gets it: built by CPack from this build tree, its contents and its
# dependencies checked, unpacked into a temporary root and run from there, from another
# working directory: --version, a report, the lessons, the replay pack, the man page, a user
# program where nvcc exists, and the app under Xvfb where it was built.
#   package.sh BUILD_DIR PNG_CHECK
# (The release package comes from scripts/package.sh; this one is built from the test
# build, sanitizers and all, with quick compression: the same layout and dependencies.)
set -euo pipefail
build=$1 check=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

(cd "$build" && cpack -G DEB -B "$tmp/pkg" -D CPACK_DEBIAN_COMPRESSION_TYPE=gzip -D CPACK_STRIP_FILES=OFF \
  >"$tmp/cpack.log" 2>&1) || { cat "$tmp/cpack.log"; fail "cpack did not build the package"; }
deb=$(ls "$tmp"/pkg/*.deb)
echo "package: $(basename "$deb"), $(du -h "$deb" | cut -f1)"

# Its files, where a desktop program keeps them.
dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./||' >"$tmp/contents"
for f in usr/bin/warpscope usr/lib/warpscope/libcudart.so.13 usr/share/warpscope/lessons/basics.json \
         usr/share/warpscope/decks usr/share/warpscope/replay/bench.json usr/share/warpscope/examples/transpose.cu \
         usr/share/applications/warpscope.desktop usr/share/icons/hicolor/scalable/apps/warpscope.svg \
         usr/share/mime/packages/warpscope.xml usr/share/man/man1/warpscope.1.gz usr/share/doc/warpscope/README.md; do
  grep -qx "$f/\?" "$tmp/contents" || fail "the package has no $f"
done
if [ -x "$build/warpscope-app" ]; then grep -qx "usr/bin/warpscope-app" "$tmp/contents" || fail "no warpscope-app"; fi
# Debian packages only: nothing from the CUDA toolkit, which is suggested, not required.
deps=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $deps"
echo "$deps" | grep -Eiq "cuda|cublas|nvidia" && fail "the package depends on CUDA: $deps"
echo "$deps" | grep -q "fonts-dejavu-core" || fail "the package does not depend on its font"
for p in $(echo "$deps" | tr ',' '\n' | sed 's/(.*//; s/|.*//' | tr -d ' '); do
  dpkg-query -W "$p" >/dev/null 2>&1 || fail "dependency $p is not an installed Debian package"
done
dpkg-deb -x "$deb" "$tmp/root"
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$tmp/root/usr/share/applications/warpscope.desktop" || fail "the desktop entry"
fi
ws="$tmp/root/usr/bin/warpscope"
# No NVIDIA library is needed to start, GPU backend or not: cudart is linked in, cuBLAS and
# CUPTI are opened when a GPU asks for them.
if readelf -d "$ws" | grep -Eq "NEEDED.*(libcuda|libcublas|libcudart|libcupti|libnvperf)"; then
  fail "the binary links NVIDIA's libraries: $(readelf -d "$ws" | grep -Eo '(libcu|libnv)[a-zA-Z]*\.so[.0-9]*' | sort -u | tr '\n' ' ')"
fi
cd /
"$ws" --version | grep -Eq "^warpscope [0-9.]+ \(commit [0-9a-f]{7,}(-dirty)?\)$|\(commit unknown\)$" ||
  fail "--version: $("$ws" --version)"
"$ws" report --kernel transpose_tiled --set pad=1 >"$tmp/report.txt" || fail "report"
grep -q "no conflict" "$tmp/report.txt" || fail "report: $(head -3 "$tmp/report.txt")"
"$ws" lesson >"$tmp/lessons.txt" || fail "lesson"
grep -q "^  basics" "$tmp/lessons.txt" || fail "the installed lessons are not found"
"$ws" bench >"$tmp/bench.txt" 2>&1 || fail "bench: $(head -3 "$tmp/bench.txt")"
grep -q "$tmp/root/usr/share/warpscope/replay/bench.json" "$tmp/bench.txt" ||
  fail "the replay pack is not the installed one: $(head -1 "$tmp/bench.txt")"
zcat "$tmp/root/usr/share/man/man1/warpscope.1.gz" | grep -q "^\.TH WARPSCOPE 1" || fail "man page"
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  out=$("$ws" run "$tmp/root/usr/share/warpscope/examples/transpose.cu" 2>&1) || fail "run: $out"
  echo "$out" | grep -q "launch" || fail "run printed no launch: $out"
  echo "run: the installed emulated runtime ran examples/transpose.cu"
fi
# A machine without CUDA: the toolkit hidden behind empty folders in a mount namespace of
# this test's own (root only), PATH without nvcc. The CLI and the emulated kernels run; a
# user program is refused in one line naming nvcc.
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  nocuda=$(unshare -m bash -c 'for d in /usr/local/cuda /usr/local/cuda-*; do [ -d "$d" ] && mount -t tmpfs none "$d"; done
    export PATH=/usr/bin:/bin; unset CUDA_HOME LD_LIBRARY_PATH; cd /
    [ -e /usr/local/cuda/bin/nvcc ] && echo "the toolkit is still visible"
    "$1" report --kernel transpose_tiled --set pad=1 | grep -q "no conflict" || echo "report failed"
    "$1" bench >/dev/null 2>&1 || echo "bench failed"
    "$1" run "$2" 2>&1; echo "run rc=$?"' _ "$ws" "$tmp/root/usr/share/warpscope/examples/transpose.cu" 2>&1)
  echo "$nocuda" | grep -q "still visible\|report failed\|bench failed" && fail "without CUDA: $nocuda"
  echo "$nocuda" | grep -q "nvcc was not found" || fail "without CUDA, run did not name nvcc: $nocuda"
  echo "$nocuda" | grep -q "run rc=0" && fail "without CUDA, run succeeded: $nocuda"
  echo "no CUDA: report, bench (replay pack) and a refused run ($(echo "$nocuda" | grep -m1 nvcc | cut -c1-80))"
else
  echo "note: not root or no mount namespaces: the run without CUDA was skipped"
fi
if [ -x "$tmp/root/usr/bin/warpscope-app" ] && command -v xvfb-run >/dev/null 2>&1; then
  cfg=$(mktemp -d)
  timeout 300 xvfb-run -a -s "-screen 0 1280x720x24" "$tmp/root/usr/bin/warpscope-app" --config-dir "$cfg" \
    --kernel transpose_tiled --set pad=0 --step 2 --screenshot "$tmp/app.png" --windows-json "$tmp/app.json" \
    --frames 4 || fail "the installed app did not run under Xvfb"
  rm -rf "$cfg"
  [ -n "$check" ] && { "$check" "$tmp/app.png" "$tmp/app.json" --expect request.max_way=32 || fail "app screenshot"; }
  echo "app: the installed warpscope-app drew transpose_tiled under Xvfb"
fi
echo "package: ok"
