#!/usr/bin/env bash
# Walks the bad-input table of docs/reliability.md: makes the files its FIX/ column names,
# runs every row's command with this build's warpscope, and checks that its message is on
# standard error and its exit status is the one listed.
#   bad_input.sh WARPSCOPE SOURCE_DIR
set -u
ws=$1 src=$2
cd "$src" || exit 1
fix=$(mktemp -d)
trap 'rm -rf "$fix"' EXIT

# The files the table's rows open.
: >"$fix/empty.wstrace"
head -c 4096 /dev/urandom >"$fix/random.wstrace"
head -c 100 assets/replay/matmul_tiled.wstrace >"$fix/truncated.wstrace"
printf '{"format": "warpscope deck", "version": 2, "slides": [\n' >"$fix/broken.wsdeck"
printf '{"x": \n' >"$fix/broken_lesson.json"
deck() { printf '{"format": "warpscope deck", "version": 2, "title": "t", "slides": [%s]}\n' "$1"; }
deck '{"kernel": "nope", "view": "memory", "step": 1, "caption": "x"}' >"$fix/unknown_kernel.wsdeck"
deck '{"program": {"source": "prog.cu"}, "view": "memory", "step": 1, "caption": "x"}' >"$fix/program.wsdeck"

have_nvcc=0
{ command -v nvcc || [ -x /usr/local/cuda/bin/nvcc ] || [ -n "${CUDA_HOME:-}" ] && [ -x "${CUDA_HOME:-}/bin/nvcc" ]; } \
  >/dev/null 2>&1 && have_nvcc=1
have_gpu=0
nvidia-smi -L >/dev/null 2>&1 && have_gpu=1
have_gui=0
"$ws" gui --help >/dev/null 2>&1 && have_gui=1

rows=0 ran=0 failed=0
# The rows of the one table after the marker comment: the page's other tables are not walked.
in_table=0
while IFS= read -r line; do
  if [[ $line == "<!-- bad-input table"* ]]; then in_table=1; continue; fi
  ((in_table)) || continue
  if [[ $line != "|"* ]]; then
    ((rows)) && break
    continue
  fi
  [[ $line == "| "* ]] || continue
  IFS='|' read -r _ input cmd needs msg want _ <<<"$line"
  cmd=$(echo "$cmd" | sed 's/^ *`//; s/` *$//')
  msg=$(echo "$msg" | sed 's/^ *`//; s/` *$//')
  needs=$(echo "$needs" | tr -d ' ')
  want=$(echo "$want" | tr -d ' ')
  input=$(echo "$input" | sed 's/^ *//; s/ *$//')
  [[ $want =~ ^[0-9]+$ ]] || continue  # the header and its rule
  rows=$((rows + 1))
  case $needs in
    nvcc) ((have_nvcc)) || { echo "skip ($needs): $input"; continue; } ;;
    no-gpu) ((have_gpu)) && { echo "skip ($needs): $input"; continue; } ;;
    gui) ((have_gui)) || { echo "skip ($needs): $input"; continue; } ;;
  esac
  cmd=${cmd//FIX/$fix}
  cmd=${cmd//PROGRAMS/$src/tests/programs}
  msg=${msg//FIX/$fix}
  ran=$((ran + 1))
  # shellcheck disable=SC2086
  env -u DISPLAY -u WAYLAND_DISPLAY timeout 300 "$ws" $cmd >"$fix/out.txt" 2>"$fix/err.txt" </dev/null
  got=$?
  if [ "$got" != "$want" ] || ! grep -qF -- "$msg" "$fix/err.txt"; then
    failed=$((failed + 1))
    echo "FAIL: $input: warpscope $cmd"
    echo "  exit $got (want $want); standard error:"
    head -5 "$fix/err.txt" | sed 's/^/    /'
    echo "  want it to contain: $msg"
  else
    echo "ok: $input (exit $got)"
  fi
done <docs/reliability.md
echo "bad-input table: $rows rows, $ran run, $failed failed"
[ "$rows" -ge 25 ] || { echo "FAIL: the table in docs/reliability.md was not found"; exit 1; }
[ "$failed" -eq 0 ]
