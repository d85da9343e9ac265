#!/usr/bin/env python3
"""Zero cost, checked without a GPU: compiles the plain instantiation of the catalog
(src/gpu/plain.cu) and the hand-written raw-pointer kernels (src/gpu/raw_*.cu) to PTX with
nvcc, and requires every pair to be the same PTX instruction for instruction (symbol and
register names aside). The device run compares the SASS as well
(scripts/device/sass_compare.py).

Usage: zero_cost_ptx.py NVCC SOURCE_DIR WORK_DIR [ARCH (default 90a)]"""
import difflib
import os
import re
import subprocess
import sys

# (mangled-name fragment of device_kernel_plain<Op, ...>, of the raw kernel)
PAIRS = [
    ("TransposeNaiveILb1E", "raw_transpose_read_coalescedE"),
    ("TransposeNaiveILb0E", "raw_transpose_write_coalescedE"),
    ("TransposeTiledILi32ELi8ELi0E", "raw_transpose_tiledILi32ELi8ELi0E"),
    ("TransposeTiledILi32ELi8ELi1E", "raw_transpose_tiledILi32ELi8ELi1E"),
    ("TransposeTiledILi32ELi32ELi1E", "raw_transpose_tiledILi32ELi32ELi1E"),
    ("TransposeTiledILi64ELi4ELi1E", "raw_transpose_tiledILi64ELi4ELi1E"),
    ("TransposeTiledDynamicILi0E", "raw_transpose_tiled_dynamicILi0E"),
    ("TransposeTiledDynamicILi1E", "raw_transpose_tiled_dynamicILi1E"),
    ("MatmulNaiveUncoalescedE", "raw_matmul_naive_uncoalescedE"),
    ("MatmulNaiveE", "raw_matmul_naiveE"),
    ("MatmulNaiveColMajorE", "raw_matmul_naive_colmajorE"),
    ("MatmulTiledILi16ELi1ELb0E", "raw_matmul_tiledILi16ELi1ELb0E"),
    ("MatmulTiledILi32ELi1ELb0E", "raw_matmul_tiledILi32ELi1ELb0E"),
    ("MatmulTiledILi16ELi1ELb1E", "raw_matmul_tiledILi16ELi1ELb1E"),
    ("MatmulTiledILi32ELi1ELb1E", "raw_matmul_tiledILi32ELi1ELb1E"),
    ("MatmulTiledILi32ELi4ELb0E", "raw_matmul_tiledILi32ELi4ELb0E"),
    ("MatmulCoarse2DILi128E", "raw_matmul_coarse2dILi128E"),
    ("MatmulCoarse2DVecILi128E", "raw_matmul_coarse2d_vecILi128E"),
    ("MatmulWarpTileILi128ELi128ELi8ELi64ELi32ELi1ELb0E", "raw_matmul_warptileILi128ELi128ELi8ELi64ELi32ELi1ELb0E"),
    ("MatmulWarpTileILi128ELi128ELi8ELi64ELi32ELi2ELb0E", "raw_matmul_warptileILi128ELi128ELi8ELi64ELi32ELi2ELb0E"),
    ("MatmulWarpTileILi128ELi128ELi16ELi64ELi32ELi2ELb0E", "raw_matmul_warptileILi128ELi128ELi16ELi64ELi32ELi2ELb0E"),
    ("MatmulWarpTileILi128ELi128ELi8ELi64ELi64ELi2ELb0E", "raw_matmul_warptileILi128ELi128ELi8ELi64ELi64ELi2ELb0E"),
    ("MatmulWarpTileILi128ELi128ELi16ELi64ELi64ELi2ELb0E", "raw_matmul_warptileILi128ELi128ELi16ELi64ELi64ELi2ELb0E"),
    ("MatmulWarpTileILi128ELi128ELi8ELi64ELi32ELi2ELb1E", "raw_matmul_warptileILi128ELi128ELi8ELi64ELi32ELi2ELb1E"),
    ("MatmulWarpTileILi128ELi128ELi16ELi64ELi32ELi2ELb1E", "raw_matmul_warptileILi128ELi128ELi16ELi64ELi32ELi2ELb1E"),
    ("MatmulWarpTileILi128ELi128ELi8ELi64ELi64ELi2ELb1E", "raw_matmul_warptileILi128ELi128ELi8ELi64ELi64ELi2ELb1E"),
    ("MatmulWarpTileILi128ELi128ELi16ELi64ELi64ELi2ELb1E", "raw_matmul_warptileILi128ELi128ELi16ELi64ELi64ELi2ELb1E"),
    ("TcMmaTunedILi3ELi2ELi2E", "raw_tc_mma_tunedILi3ELi2ELi2E"),
    ("TcMmaTunedILi4ELi2ELi2E", "raw_tc_mma_tunedILi4ELi2ELi2E"),
    ("TcMmaTunedILi3ELi2ELi4E", "raw_tc_mma_tunedILi3ELi2ELi4E"),
    ("TcMmaTunedILi4ELi2ELi4E", "raw_tc_mma_tunedILi4ELi2ELi4E"),
    # tc_wgmma is left to the device's SASS comparison (scripts/device/sass_compare.py): in
    # every setting nvcc orders the producer loop's address arithmetic differently in the two
    # (a box's column computed before or after its shared address, the same instructions).
]


def entries(path):
    out, cur, body = {}, None, []
    for line in open(path):
        if ".entry" in line:
            cur, body = line.split(".entry")[1].strip().rstrip("(").strip(), []
        elif cur and line.startswith("}"):
            out[cur] = body
            cur = None
        elif cur:
            body.append(line)
    return out


def sink_conversions(body, reg):
    """Moves every `cvta.to.global D, S` to just before the first later instruction that
    reads D, unless an instruction before that writes D or S, or is a branch target or a
    branch (the conversion then stays where nvcc put it)."""
    out = list(body)
    i = 0
    while i < len(out):
        line = out[i]
        if not line.startswith("cvta.to.global"):
            i += 1
            continue
        d, src = re.findall(reg, line)[:2]
        j = i + 1
        while j < len(out):
            l = out[j]
            regs = re.findall(reg, l)
            if l.endswith(":") or l.startswith(("bra", "@")) or " bra" in l or d in regs or src in regs[:1]:
                break
            j += 1
        if j > i + 1 and j < len(out) and d in re.findall(reg, out[j]) and d not in re.findall(reg, out[j])[:1]:
            out.insert(j - 1, out.pop(i))
            continue  # the line now at i is the next one
        i += 1
    return out


def normalise(lines):
    """Symbols become SYM; registers and labels are renamed in order of first use, so two
    bodies compare equal only if their instructions and their data flow are the same (up to
    the order of the two sources of a predicate and/or)."""
    out, names = [], {}

    def rename(m):
        return names.setdefault(m.group(0), f"%v{len(names)}")

    reg = r"%(?!tid|ntid|ctaid|nctaid|laneid|warpid)\w+|\$L__BB\d+_\d+"
    body = []
    for l in lines:
        l = l.strip()
        if not l or l.startswith((".reg", "//", ".param", ")")):
            continue
        body.append(re.sub(r"_Z\w+?(_param_\d+)?\b", lambda m: "SYM" + (m.group(1) or ""), l))
    # Where nvcc places a conversion of a pointer parameter to a global address is not
    # significant either, among instructions that neither use its result nor change its
    # operand: each one moves down to just before the first instruction that uses it.
    body = sink_conversions(body, reg)
    # The order in which nvcc converts the pointer parameters to global addresses is not
    # significant: runs of such conversions are put in order of the register they convert.
    first = {}
    for l in body:
        for r in re.findall(reg, l):
            first.setdefault(r, len(first))
    i = 0
    while i < len(body):
        j = i
        while j < len(body) and body[j].startswith("cvta.to.global"):
            j += 1
        if j - i > 1:
            body[i:j] = sorted(body[i:j], key=lambda l: first.get(re.findall(reg, l)[-1], 0))
        i = max(j, i + 1)
    for l in body:
        l = re.sub(reg, rename, l)
        # The two sources of a logical and/or of predicates commute: nvcc writes them in the
        # order it happened to build the condition (a test moved into an inlined helper
        # swaps them), so they are compared in one order.
        m = re.match(r"((?:and|or)\.pred\s+%v\d+, )(%v\d+), (%v\d+);$", l)
        if m:
            a, b = sorted((m.group(2), m.group(3)), key=lambda r: int(r[2:]))
            l = f"{m.group(1)}{a}, {b};"
        out.append(l)
    return out


def main():
    nvcc, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
    arch = sys.argv[4] if len(sys.argv) > 4 else "90a"  # the build's default: wgmma compiled, not a trap
    os.makedirs(work, exist_ok=True)
    flags = ["-DWS_HAVE_CUDA=1", f"-I{src}/src", f"-I{src}/kernels", "-O3", "-DNDEBUG", f"-arch=sm_{arch}",
             "--expt-relaxed-constexpr", "-std=c++20", "-ptx"]
    if arch.endswith("a"):
        flags.append("-DWS_SM90A=1")  # as the build defines it: the wgmma rung's twin is built
    plain, raw = {}, {}
    for name, into in (("plain.cu", plain), ("raw_matmul.cu", raw), ("raw_transpose.cu", raw), ("raw_tensor.cu", raw)):
        ptx = os.path.join(work, name + ".ptx")
        r = subprocess.run([nvcc, *flags, os.path.join(src, "src/gpu", name), "-o", ptx], capture_output=True,
                           text=True)
        if r.returncode != 0:
            print(f"nvcc failed on {name}:\n{r.stderr}")
            return 1
        into.update(entries(ptx))
    bad = 0
    for p, q in PAIRS:
        a = [k for k in plain if "device_kernel_plain" in k and p in k]
        b = [k for k in raw if q in k]
        if len(a) != 1 or len(b) != 1:
            print(f"{p}: found {len(a)} single-source and {len(b)} hand-written kernels, want 1 and 1")
            bad += 1
            continue
        x, y = normalise(plain[a[0]]), normalise(raw[b[0]])
        same = x == y
        bad += not same
        print(f"{p:28s} {len(x):4d} PTX instructions, hand-written {len(y):4d}: {'identical' if same else 'DIFFERENT'}")
        if not same:
            for l in list(difflib.unified_diff(y, x, "hand-written", "single source", lineterm="", n=1))[:40]:
                print("   ", l)
    print(f"zero cost (PTX): {len(PAIRS) - bad} of {len(PAIRS)} single-source kernels compile to the hand-written PTX")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
