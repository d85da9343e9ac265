#!/usr/bin/env python3
"""Zero cost, instruction by instruction: for each single-source kernel instantiated with
PlainCtx and its hand-written raw-pointer twin, counts the memory instructions in the
SASS (`cuobjdump -sass`) by opcode with its width modifiers (LDG.E.128, LDS.64, ...),
says whether the two issue the same ones, and whether the whole instruction sequence
(opcodes in order) is the same. When the binary holds the published kernels (a build with
WARPSCOPE_PUBLISHED_DIR), a second table does the same for each faithful entry and the
source's own kernel.  Usage: sass_compare.py SASS.txt"""
import collections
import re
import shutil
import subprocess
import sys

PAIRS = [  # (name inside PlainCtx's device_kernel_plain<...>, raw kernel)
    ("TransposeNaive<true>", "raw_transpose_read_coalesced"),
    ("TransposeNaive<false>", "raw_transpose_write_coalesced"),
    ("TransposeTiled<32,8,0>", "raw_transpose_tiled<32,8,0>"),
    ("TransposeTiled<32,8,1>", "raw_transpose_tiled<32,8,1>"),
    ("TransposeTiled<32,32,1>", "raw_transpose_tiled<32,32,1>"),
    ("TransposeTiled<64,4,1>", "raw_transpose_tiled<64,4,1>"),
    ("TransposeTiledDynamic<0>", "raw_transpose_tiled_dynamic<0>"),
    ("TransposeTiledDynamic<1>", "raw_transpose_tiled_dynamic<1>"),
    ("MatmulNaiveUncoalesced", "raw_matmul_naive_uncoalesced"),
    ("MatmulNaive", "raw_matmul_naive"),
    ("MatmulNaiveColMajor", "raw_matmul_naive_colmajor"),
    ("MatmulTiled<16,1,false>", "raw_matmul_tiled<16,1,false>"),
    ("MatmulTiled<32,1,false>", "raw_matmul_tiled<32,1,false>"),
    ("MatmulTiled<16,1,true>", "raw_matmul_tiled<16,1,true>"),
    ("MatmulTiled<32,1,true>", "raw_matmul_tiled<32,1,true>"),
    ("MatmulTiled<32,4,false>", "raw_matmul_tiled<32,4,false>"),
    ("MatmulCoarse2D<128>", "raw_matmul_coarse2d<128>"),
    ("MatmulCoarse2DVec<128>", "raw_matmul_coarse2d_vec<128>"),
    ("MatmulWarpTile<128,128,8,64,32,1,false>", "raw_matmul_warptile<128,128,8,64,32,1,false>"),
    ("MatmulWarpTile<128,128,8,64,32,2,false>", "raw_matmul_warptile<128,128,8,64,32,2,false>"),
    ("MatmulWarpTile<128,128,16,64,32,2,false>", "raw_matmul_warptile<128,128,16,64,32,2,false>"),
    ("MatmulWarpTile<128,128,8,64,64,2,false>", "raw_matmul_warptile<128,128,8,64,64,2,false>"),
    ("MatmulWarpTile<128,128,16,64,64,2,false>", "raw_matmul_warptile<128,128,16,64,64,2,false>"),
    ("MatmulWarpTile<128,128,8,64,32,2,true>", "raw_matmul_warptile<128,128,8,64,32,2,true>"),
    ("MatmulWarpTile<128,128,16,64,32,2,true>", "raw_matmul_warptile<128,128,16,64,32,2,true>"),
    ("MatmulWarpTile<128,128,8,64,64,2,true>", "raw_matmul_warptile<128,128,8,64,64,2,true>"),
    ("MatmulWarpTile<128,128,16,64,64,2,true>", "raw_matmul_warptile<128,128,16,64,64,2,true>"),
    ("TcMmaTuned<3,2,2>", "raw_tc_mma_tuned<3,2,2>"),
    ("TcMmaTuned<4,2,2>", "raw_tc_mma_tuned<4,2,2>"),
    ("TcMmaTuned<3,2,4>", "raw_tc_mma_tuned<3,2,4>"),
    ("TcMmaTuned<4,2,4>", "raw_tc_mma_tuned<4,2,4>"),
    ("TcWgmma<256,4>", "raw_tc_wgmma<256,4>"),
    ("TcWgmma<256,3>", "raw_tc_wgmma<256,3>"),
    ("TcWgmma<128,4>", "raw_tc_wgmma<128,4>"),
    ("TcWgmma<128,3>", "raw_tc_wgmma<128,3>"),  # the last three: PTX ordered differently (zero_cost_ptx.py)
]
PUBLISHED = [  # (faithful entry's kernel in PlainCtx, the published kernel it reproduces)
    ("MatmulSiboehm5<128>", "sgemm2DBlocktiling<128,128,8,8,8>"),
    ("MatmulSiboehm6<128>", "sgemmVectorize<128,128,8,8,8>"),
    ("MatmulXgemm6", "coarse_2d_vec_mat_mul_kernel"),
]
MEMORY = re.compile(r"^(LDG|STG|LDS|STS|LDSM|LDGSTS|LD|ST|LDL|STL|ATOM|ATOMS|ATOMG|RED|REDG)(\.|$)")
LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")


def demangle(names):
    tool = shutil.which("cu++filt") or shutil.which("c++filt")
    if not tool or not names:
        return {n: n for n in names}
    out = subprocess.run([tool], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def normalise(name):
    name = name.replace("(bool)1", "true").replace("(bool)0", "false")
    name = re.sub(r"\((?:int|bool|unsigned int)\)", "", name)
    return name.replace(" ", "")


seqs = {}  # function -> its opcodes in order


def functions(text):
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = collections.Counter()
            seqs[cur] = []
            continue
        if cur is None:
            continue
        m = LINE.search(line)
        if m:
            funcs[cur]["(all)"] += 1
            seqs[cur].append(m.group(1))
            if MEMORY.match(m.group(1)):
                funcs[cur][m.group(1)] += 1
    return funcs


def find(funcs, names, want, plain):
    for mangled, counts in funcs.items():
        n = normalise(names[mangled])
        if plain:
            if ("device_kernel_plain<" in n or "device_kernel_plain_bounded<" in n) and ("::" + want + ",") in n:
                return mangled
        elif re.search(r"(^|::|\s|void)" + re.escape(want) + r"(\(|$)", n):
            return mangled
    return None


def table(funcs, names, pairs, head):
    print(head)
    print("|---|---|---|---|---|")
    same = total = identical = 0
    for plain, raw in pairs:
        ma, mb = find(funcs, names, normalise(plain), True), find(funcs, names, normalise(raw), False)
        if ma is None or mb is None:
            print(f"| {plain} | {'missing' if ma is None else ''} | {'missing' if mb is None else ''} | ? | ? |")
            continue
        a, b = funcs[ma], funcs[mb]
        mem = lambda c: {k: v for k, v in c.items() if k != "(all)"}
        fmt = lambda c: (", ".join(f"{k}×{v}" for k, v in sorted(mem(c).items())) or "none") + f"; {c['(all)']} instructions"
        ok = mem(a) == mem(b)
        seq = seqs[ma] == seqs[mb]
        total += 1
        same += ok
        identical += seq
        print(f"| {plain} | {fmt(a)} | {fmt(b)} | {'yes' if ok else 'NO'} | {'yes' if seq else 'no'} |")
    print()
    return same, total, identical


def main():
    funcs = functions(open(sys.argv[1]).read())
    names = demangle(list(funcs))
    if any(find(funcs, names, normalise(q), False) for _, q in PUBLISHED):
        s, t, i = table(funcs, names, PUBLISHED, "| entry | memory instructions, entry (PlainCtx) | published kernel | "
                        "same memory instructions | same instruction sequence |")
        print(f"faithful SASS: {s} of {t} entries issue the memory instructions of the published kernel they "
              f"reproduce, {i} of {t} its instruction sequence")
        print()
    same, total, identical = table(funcs, names, PAIRS, "| kernel | memory instructions, single source (PlainCtx) | "
                                   "hand-written raw | same memory instructions | same instruction sequence |")
    print(f"zero-cost SASS: {same} of {total} kernel pairs issue identical memory instructions, "
          f"{identical} of {total} the identical instruction sequence")


if __name__ == "__main__":
    main()
