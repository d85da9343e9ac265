#!/usr/bin/env python3
# scripts/ptx_diff_cases.py — the differential test's cases: one PTX module with a kernel per
# instruction form (every opcode, type and modifier the PTX interpreter runs), and the inputs
# each of its threads reads, chosen to hit the edges (signed zeros, denormals, infinities,
# NaNs with payloads, the largest and smallest values, halfway cases of each rounding, the
# integers' extremes) and then random bits from a seed fixed per case.
#
#   scripts/ptx_diff_cases.py OUT_DIR    writes OUT_DIR/ptx_diff.ptx and OUT_DIR/ptx_diff.cases
#
# The output is the same on every run (the seeds come from the case names, never from
# Python's per-process string hash), so the GPU's results recorded once in
# tests/ptx/fixtures/diff/ stay valid until a case itself changes; each case carries a hash
# of its kernel text and inputs so that a changed case is told apart from an unchanged one.
#
# A kernel reads its thread's operands from in[tid * ins] (64-bit slots, each read at its
# type's width), runs the form, and writes every destination to out[tid * outs] (predicates
# as a 32-bit 0 or 1; 8-bit destinations as the 16-bit register that holds them). The
# `.cases` file names, for each case: its kernel, threads, operand and result types, the
# tolerance (exact unless the PTX ISA states a bound for an .approx form), and one line of
# inputs per thread.
import hashlib
import math
import random
import struct
import sys
import zlib

# ---- values --------------------------------------------------------------------------------


def f32b(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f64b(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


F32_EDGES = [
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
    0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7fc12345,
    0xffc00001, 0x7f800001, 0x3f000000, 0x3fc00000, 0x40200000, 0xc0200000, 0x3dcccccd, 0x40490fdb,
    0x3f800001, 0x4b800000, 0x4b000001, 0xcf000000, 0x4f000000, 0x5f000000, 0x00400000, 0x34000000,
]
F64_EDGES = [
    0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000, 0x0000000000000001,
    0x8000000000000001, 0x000fffffffffffff, 0x0010000000000000, 0x7fefffffffffffff, 0xffefffffffffffff,
    0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000, 0x7ff8000000012345, 0xfff8000000000001,
    0x7ff0000000000001, 0x3fe0000000000000, 0x3ff8000000000000, 0x4004000000000000, 0xc004000000000000,
    0x3fb999999999999a, 0x400921fb54442d18, 0x3ff0000000000001, 0x41e0000000000000, 0xc1e0000000000000,
    0x43e0000000000000, 0x43f0000000000000, 0x47efffffe0000000, 0x36a0000000000000, 0x3810000000000000,
    0x41dfffffffc00000, 0x3ca0000000000000,
]
F16_EDGES = [
    0x0000, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
    0x7e00, 0x7e55, 0xfe01, 0x7c01, 0x3800, 0x3e00, 0x4100, 0xc100, 0x2e66, 0x4248, 0x3c01, 0x6800,
]
INT_EDGES = {  # by width in bits
    8: [0, 1, 0xff, 0x80, 0x7f, 2, 0xfe, 0x81],
    16: [0, 1, 0xffff, 0x8000, 0x7fff, 2, 0xfffe, 0x8001, 0x00ff, 0xff00, 0x0080],
    32: [0, 1, 0xffffffff, 0x80000000, 0x7fffffff, 2, 0xfffffffe, 0x80000001, 0x0000ffff, 0xffff0000,
         0x00008000, 0xffff8000, 0x00ffffff, 0x00800000, 0xff800000, 31, 32, 33],
    64: [0, 1, (1 << 64) - 1, 1 << 63, (1 << 63) - 1, 2, (1 << 64) - 2, (1 << 63) + 1, 0xffffffff,
         0x80000000, 0x7fffffff, 0xffffffff00000000, 0xffffffff80000000, 0x100000000, 63, 64, 65],
}

WIDTH = {'pred': 32, 'u8': 8, 's8': 8, 'b16': 16, 'f16': 16, 'bf16': 16, 'b32': 32, 'f32': 32,
         'b64': 64, 'f64': 64}


def store_type(t):
    """The storage class of a PTX type: how a kernel loads and stores it."""
    if t in ('pred', 'u8', 's8', 'f16', 'bf16', 'f32', 'f64'):
        return t
    if t in ('f16x2', 'bf16x2'):
        return 'b32'
    bits = int(t[1:])
    if bits == 8:
        return 'u8' if t[0] in 'ub' else 's8'
    return 'b%d' % bits


def random_float(rng, t):
    """A finite float of moderate exponent with random mantissa bits: inexact under every
    operation, so the four roundings give different answers."""
    if t == 'f32':
        return (rng.getrandbits(1) << 31) | (rng.randint(100, 154) << 23) | rng.getrandbits(23)
    if t == 'f64':
        return (rng.getrandbits(1) << 63) | (rng.randint(990, 1058) << 52) | rng.getrandbits(52)
    if t == 'bf16':
        return (rng.getrandbits(1) << 15) | (rng.randint(110, 145) << 7) | rng.getrandbits(7)
    return (rng.getrandbits(1) << 15) | (rng.randint(8, 22) << 10) | rng.getrandbits(10)


def pool(t, kind, rng, n, k):
    """n values for operand k of type t: edges first (rotated by k so that operands meet
    different partners), then random values. `kind` narrows the range where the operation
    needs it (shift counts, bit positions, angles)."""
    st = store_type(t)
    w = WIDTH[st]
    if t in ('f16x2', 'bf16x2'):  # two halves, each from the half's own pool
        half = t[:-2]
        lo, hi = pool(half, kind, rng, n, k), pool(half, kind, rng, n, k + 1)
        return [a | (b << 16) for a, b in zip(lo, hi)]
    if kind == 'shift':
        edges = [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 255, 256, 0xffffffff, 0x80000000]
        return [edges[(i + 3 * k) % len(edges)] if i < n // 2 else rng.randint(0, 70) for i in range(n)]
    if kind == 'lane':  # a bit or lane position, 0..31
        return [i % 32 if i < 32 else rng.randint(0, 31) for i in range(n)]
    if kind == 'small':  # a small signed count, around zero
        return [(rng.randint(-34, 34)) & 0xffffffff for _ in range(n)]
    if kind == 'few':  # values that repeat across the warp
        return [rng.choice([0, 1, 0xffffffff, 0x80000000]) for _ in range(n)]
    if kind == 'pred':
        return [rng.getrandbits(1) if i >= 4 else (i >> k) & 1 for i in range(n)]
    if kind == 'angle':  # sin/cos: their bound holds in [-pi, pi]; beyond, only NaN and infinities are compared
        vals = [0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0x3f800000, 0x40490fdb,
                0xc0490fdb, 0x3fc90fdb, 0x00000001, 0x43fb53d1, 0xc3fb53d1]
        while len(vals) < n:
            vals.append(f32b(rng.uniform(-314.0, 314.0)))
        return vals[:n]
    if kind == 'toint':  # around integers and the integer types' limits
        specials = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, 1e-30, -1e-30, 127.5, 128.0,
                    -128.5, -129.0, 255.5, 256.0, 32767.5, 32768.0, -32768.5, 65535.5, 65536.0,
                    2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0,
                    9.2233715e18, 9.223372036854776e18, -9.223372036854776e18, 1.8446743e19,
                    1.8446744073709552e19, float('inf'), float('-inf'), float('nan')]
        conv = f32b if st == 'f32' else f64b
        vals = [conv(v) for v in specials]
        while len(vals) < n:
            vals.append(conv(rng.uniform(-70000.0, 70000.0)))
        return [vals[(i + 5 * k) % len(vals)] if i < len(specials) else vals[i] for i in range(n)]
    if st in ('f32', 'f64', 'f16', 'bf16'):
        edges = {'f32': F32_EDGES, 'f64': F64_EDGES, 'f16': F16_EDGES, 'bf16': [e >> 16 for e in F32_EDGES]}[st]
        m = min(len(edges), n // 2)
        out = [edges[(i * (2 * k + 1) + 7 * k) % len(edges)] for i in range(m)]
        while len(out) < n:
            out.append(random_float(rng, st) if rng.random() < 0.75 else rng.getrandbits(w))
        return out
    if st == 'pred':
        return [rng.getrandbits(1) for _ in range(n)]
    edges = INT_EDGES[w]
    m = min(len(edges), n // 2)
    out = [edges[(i * (2 * k + 1) + 5 * k) % len(edges)] for i in range(m)]
    while len(out) < n:
        r = rng.random()
        out.append(rng.getrandbits(w) if r < 0.6 else rng.randint(0, 40) if r < 0.8 else
                   ((1 << w) - rng.randint(1, 40)))
    return out


def rounding_pairs(t):
    """Operand pairs whose exact sum or product lies halfway between two floats, or just off
    it: where rn, rz, rm and rp part ways, and rn's ties-to-even shows."""
    if t == 'f32':
        one, half_ulp = 1.0, 2.0 ** -24
        conv = f32b
    else:
        one, half_ulp = 1.0, 2.0 ** -53
        conv = f64b
    pairs = [(one, half_ulp), (one, 3 * half_ulp), (-one, -half_ulp), (-one, -3 * half_ulp),
             (one + 2 * half_ulp, half_ulp), (one, half_ulp * 1.5), (-one, half_ulp * 0.5),
             (one, -half_ulp * 0.5)]
    return [(conv(a), conv(b)) for a, b in pairs]


# ---- cases ---------------------------------------------------------------------------------

REG = {'pred': '%p', 'u8': '%h', 's8': '%h', 'b16': '%h', 'f16': '%h', 'bf16': '%h', 'b32': '%r', 'f32': '%f',
       'b64': '%rd', 'f64': '%fd'}
LOAD = {'u8': 'u8', 's8': 's8', 'b16': 'b16', 'f16': 'b16', 'bf16': 'b16', 'b32': 'b32', 'f32': 'f32',
        'b64': 'b64', 'f64': 'f64'}


class Case:
    def __init__(self, name, ins, outs, body, kinds=None, threads=32, tol='exact', inputs=None, extra='',
                 setup=None):
        self.name = name
        self.ins = ins            # PTX types of the operands read from `in`
        self.outs = outs          # PTX types of the destinations written to `out`
        self.body = body          # PTX lines with {a0}.. {d0}.. placeholders
        self.kinds = kinds or ['any'] * len(ins)
        self.threads = threads
        self.tol = tol
        self.inputs = inputs      # explicit rows (lists), else drawn from the pools
        self.extra = extra        # module-level text the kernel needs (a .func)
        self.setup = setup        # 'shared' / 'local': the scratch slot %rd30 / %rd31 addresses


CASES = []


def case(*a, **k):
    CASES.append(Case(*a, **k))


def ftype_forms(op, t, rnds, ftz=True, sat=True):
    """Every spelling of op with the rounding, .ftz and .sat combinations PTX allows."""
    forms = []
    for r in rnds:
        for f in ([False, True] if ftz and t == 'f32' else [False]):
            for s in ([False, True] if sat and t == 'f32' else [False]):
                forms.append('.'.join([op] + ([r] if r else []) + (['ftz'] if f else []) + (['sat'] if s else []) + [t]))
    return forms


RND = ['rn', 'rz', 'rm', 'rp']
INTS = ['u16', 's16', 'u32', 's32', 'u64', 's64']


def arithmetic():
    for op in ['add', 'sub']:
        for t in INTS:
            case('%s.%s' % (op, t), [t, t], [t], ['%s.%s {d0}, {a0}, {a1};' % (op, t)])
        case('%s.sat.s32' % op, ['s32', 's32'], ['s32'], ['%s.sat.s32 {d0}, {a0}, {a1};' % op])
    for op in ['add', 'sub', 'mul']:
        for t in ['f32', 'f64']:
            for form in ftype_forms(op, t, [''] + RND):
                case(form, [t, t], [t], [form + ' {d0}, {a0}, {a1};'], threads=64,
                     inputs=None if op == 'mul' else 'rounding')
    for t in INTS:
        for m in ['lo', 'hi'] + (['wide'] if t[1:] != '64' else []):
            dt = t[0] + str(2 * int(t[1:])) if m == 'wide' else t
            case('mul.%s.%s' % (m, t), [t, t], [dt], ['mul.%s.%s {d0}, {a0}, {a1};' % (m, t)])
            case('mad.%s.%s' % (m, t), [t, t, dt], [dt], ['mad.%s.%s {d0}, {a0}, {a1}, {a2};' % (m, t)])
    case('mad.hi.sat.s32', ['s32'] * 3, ['s32'], ['mad.hi.sat.s32 {d0}, {a0}, {a1}, {a2};'])
    for op in ['fma', 'mad']:
        for t in ['f32', 'f64']:
            for form in ftype_forms(op, t, RND):
                case(form, [t, t, t], [t], [form + ' {d0}, {a0}, {a1}, {a2};'], threads=64)
    for t in INTS:
        case('div.%s' % t, [t, t], [t], ['div.%s {d0}, {a0}, {a1};' % t])
        case('rem.%s' % t, [t, t], [t], ['rem.%s {d0}, {a0}, {a1};' % t])
    for f in ['', '.ftz']:
        case('div.approx%s.f32' % f, ['f32', 'f32'], ['f32'], ['div.approx%s.f32 {d0}, {a0}, {a1};' % f],
             threads=64, tol='ulp:2:divisor')
        case('div.full%s.f32' % f, ['f32', 'f32'], ['f32'], ['div.full%s.f32 {d0}, {a0}, {a1};' % f],
             threads=64, tol='ulp:2')
    for t in ['f32', 'f64']:
        for form in ftype_forms('div', t, RND, sat=False):
            case(form, [t, t], [t], [form + ' {d0}, {a0}, {a1};'], threads=64)
    for op in ['min', 'max']:
        for t in INTS:
            case('%s.%s' % (op, t), [t, t], [t], ['%s.%s {d0}, {a0}, {a1};' % (op, t)])
        for form in ['%s.f32', '%s.ftz.f32', '%s.NaN.f32', '%s.ftz.NaN.f32', '%s.f64']:
            f = form % op
            t = f[-3:]
            case(f, [t, t], [t], [f + ' {d0}, {a0}, {a1};'], threads=64)
    for op in ['neg', 'abs']:
        for t in ['s16', 's32', 's64']:
            case('%s.%s' % (op, t), [t], [t], ['%s.%s {d0}, {a0};' % (op, t)])
        for f in ['%s.f32', '%s.ftz.f32', '%s.f64']:
            f = f % op
            case(f, [f[-3:]], [f[-3:]], [f + ' {d0}, {a0};'])
    for op in ['mul24', 'mad24']:
        for m in ['lo', 'hi']:
            for t in ['u32', 's32']:
                n = 2 if op == 'mul24' else 3
                srcs = ', '.join('{a%d}' % i for i in range(n))
                case('%s.%s.%s' % (op, m, t), [t] * n, [t], ['%s.%s.%s {d0}, %s;' % (op, m, t, srcs)])
    case('mad24.hi.sat.s32', ['s32'] * 3, ['s32'], ['mad24.hi.sat.s32 {d0}, {a0}, {a1}, {a2};'])
    for t in INTS:
        case('sad.%s' % t, [t] * 3, [t], ['sad.%s {d0}, {a0}, {a1}, {a2};' % t])


def functions():
    one = lambda f, t, tol='exact', kind='any', threads=64: case(
        f, [t], [t], [f + ' {d0}, {a0};'], kinds=[kind], tol=tol, threads=threads)
    for f in ['', '.ftz']:
        one('rcp.approx%s.f32' % f, 'f32', 'ulp:1')
        one('sqrt.approx%s.f32' % f, 'f32', 'rel:-23')
        one('rsqrt.approx%s.f32' % f, 'f32', 'rel:-22.9')
        one('ex2.approx%s.f32' % f, 'f32', 'ulp:2')
        one('lg2.approx%s.f32' % f, 'f32', 'abs:-22|ulp:2')
        one('sin.approx%s.f32' % f, 'f32', 'abs:-20.5:angle', 'angle')
        one('cos.approx%s.f32' % f, 'f32', 'abs:-20.5:angle', 'angle')
    for op in ['rcp', 'sqrt']:
        for form in ftype_forms(op, 'f32', RND, sat=False) + ftype_forms(op, 'f64', RND, sat=False):
            one(form, form[-3:])
    one('rcp.approx.ftz.f64', 'f64', 'rel:-20')
    one('rsqrt.approx.f64', 'f64', 'rel:-20')
    one('rsqrt.approx.ftz.f64', 'f64', 'rel:-20')
    for t in ['f32', 'f64']:
        case('copysign.' + t, [t, t], [t], ['copysign.%s {d0}, {a0}, {a1};' % t], threads=64)
        for test in ['finite', 'infinite', 'number', 'notanumber', 'normal', 'subnormal']:
            case('testp.%s.%s' % (test, t), [t], ['pred'], ['testp.%s.%s {d0}, {a0};' % (test, t)])


def logic():
    for op in ['and', 'or', 'xor']:
        for t in ['b16', 'b32', 'b64']:
            case('%s.%s' % (op, t), [t, t], [t], ['%s.%s {d0}, {a0}, {a1};' % (op, t)])
        case('%s.pred' % op, ['pred', 'pred'], ['pred'], ['%s.pred {d0}, {a0}, {a1};' % op], kinds=['pred', 'pred'])
    for t in ['b16', 'b32', 'b64']:
        case('not.' + t, [t], [t], ['not.%s {d0}, {a0};' % t])
        case('cnot.' + t, [t], [t], ['cnot.%s {d0}, {a0};' % t])
    case('not.pred', ['pred'], ['pred'], ['not.pred {d0}, {a0};'], kinds=['pred'])
    for t in ['b16', 'b32', 'b64']:
        case('shl.' + t, [t, 'u32'], [t], ['shl.%s {d0}, {a0}, {a1};' % t], kinds=['any', 'shift'])
    for t in ['b16', 'u16', 's16', 'b32', 'u32', 's32', 'b64', 'u64', 's64']:
        case('shr.' + t, [t, 'u32'], [t], ['shr.%s {d0}, {a0}, {a1};' % t], kinds=['any', 'shift'])
    for t in ['u32', 's32', 'u64', 's64']:
        case('bfe.' + t, [t, 'u32', 'u32'], [t], ['bfe.%s {d0}, {a0}, {a1}, {a2};' % t],
             kinds=['any', 'shift', 'shift'], threads=64)
        for s in ['', '.shiftamt']:
            case('bfind%s.%s' % (s, t), [t], ['u32'], ['bfind%s.%s {d0}, {a0};' % (s, t)])
    for t in ['b32', 'b64']:
        case('bfi.' + t, [t, t, 'u32', 'u32'], [t], ['bfi.%s {d0}, {a0}, {a1}, {a2}, {a3};' % t],
             kinds=['any', 'any', 'shift', 'shift'], threads=64)
        for op in ['popc', 'clz']:
            case('%s.%s' % (op, t), [t], ['u32'], ['%s.%s {d0}, {a0};' % (op, t)])
        case('brev.' + t, [t], [t], ['brev.%s {d0}, {a0};' % t])
    for mode in ['', '.f4e', '.b4e', '.rc8', '.ecl', '.ecr', '.rc16']:
        case('prmt.b32' + mode, ['b32', 'b32', 'b32'], ['b32'], ['prmt.b32%s {d0}, {a0}, {a1}, {a2};' % mode])


FCMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu', 'gtu', 'geu', 'num', 'nan']
SCMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge']
UCMP = ['eq', 'ne', 'lt', 'le', 'gt', 'ge', 'lo', 'ls', 'hi', 'hs']


def comparisons():
    for c in FCMP:
        for t in ['f32', 'ftz.f32', 'f64']:
            ty = t[-3:]
            case('setp.%s.%s' % (c, t), [ty, ty], ['pred', 'pred'],
                 ['setp.%s.%s {d0}|{d1}, {a0}, {a1};' % (c, t)], threads=64)
    for t in INTS + ['b16', 'b32', 'b64']:
        for c in (SCMP if t[0] == 's' else UCMP if t[0] == 'u' else ['eq', 'ne']):
            case('setp.%s.%s' % (c, t), [t, t], ['pred', 'pred'], ['setp.%s.%s {d0}|{d1}, {a0}, {a1};' % (c, t)])
    for b in ['and', 'or', 'xor']:
        for neg in ['', '!']:
            case('setp.lt.%s.s32 %sp' % (b, neg), ['s32', 's32', 'pred'], ['pred', 'pred'],
                 ['setp.lt.%s.s32 {d0}|{d1}, {a0}, {a1}, %s{a2};' % (b, neg)], kinds=['any', 'any', 'pred'])
        case('setp.gtu.%s.f32' % b, ['f32', 'f32', 'pred'], ['pred', 'pred'],
             ['setp.gtu.%s.f32 {d0}|{d1}, {a0}, {a1}, {a2};' % b], kinds=['any', 'any', 'pred'])
    for dt in ['u32', 's32', 'f32']:
        for st, cmps in [('f32', ['lt', 'equ', 'nan']), ('s32', ['lt', 'ge']), ('u64', ['hi'])]:
            for c in cmps:
                f = 'set.%s.%s.%s' % (c, dt, st)
                case(f, [st, st], [dt], [f + ' {d0}, {a0}, {a1};'])
    case('set.lt.and.u32.s32', ['s32', 's32', 'pred'], ['u32'], ['set.lt.and.u32.s32 {d0}, {a0}, {a1}, {a2};'],
         kinds=['any', 'any', 'pred'])
    case('set.eq.ftz.f32.f32', ['f32', 'f32'], ['f32'], ['set.eq.ftz.f32.f32 {d0}, {a0}, {a1};'])
    for t in ['b16', 'b32', 'b64', 'f32', 'f64', 's32']:
        case('selp.' + t, [t, t, 'pred'], [t], ['selp.%s {d0}, {a0}, {a1}, {a2};' % t], kinds=['any', 'any', 'pred'])
    case('selp.b32 !p', ['b32', 'b32', 'pred'], ['b32'], ['selp.b32 {d0}, {a0}, {a1}, !{a2};'],
         kinds=['any', 'any', 'pred'])
    for t in ['b32', 'f32']:
        case('slct.%s.s32' % t, [t, t, 's32'], [t], ['slct.%s.s32 {d0}, {a0}, {a1}, {a2};' % t])
    case('slct.ftz.f32.f32', ['f32', 'f32', 'f32'], ['f32'], ['slct.ftz.f32.f32 {d0}, {a0}, {a1}, {a2};'])


CVT_INTS = ['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64']


def conversions():
    def rng_of(t):
        b = int(t[1:])
        return (-(1 << (b - 1)), (1 << (b - 1)) - 1) if t[0] == 's' else (0, (1 << b) - 1)

    for d in CVT_INTS:
        for s in CVT_INTS:
            # .sat only where the destination cannot hold every source value (ptxas refuses it
            # elsewhere).
            wider = rng_of(d)[0] <= rng_of(s)[0] and rng_of(s)[1] <= rng_of(d)[1]
            for sat in [''] if wider else ['', '.sat']:
                f = 'cvt%s.%s.%s' % (sat, d, s)
                case(f, [s], [d], [f + ' {d0}, {a0};'])
    for d in ['f32', 'f64']:
        for s in CVT_INTS:
            for r in RND:
                f = 'cvt.%s.%s.%s' % (r, d, s)
                case(f, [s], [d], [f + ' {d0}, {a0};'])
    for s in ['f32', 'f64']:
        for d in CVT_INTS:
            for r in ['rni', 'rzi', 'rmi', 'rpi']:
                for ftz in (['', '.ftz'] if s == 'f32' and r == 'rzi' else ['']):
                    f = 'cvt.%s%s.%s.%s' % (r, ftz, d, s)
                    case(f, [s], [d], [f + ' {d0}, {a0};'], kinds=['toint'])
            f = 'cvt.rzi.sat.%s.%s' % (d, s)
            case(f, [s], [d], [f + ' {d0}, {a0};'], kinds=['toint'])
    for r in RND:
        for ftz in ['', '.ftz']:
            for sat in ['', '.sat']:
                f = 'cvt.%s%s%s.f32.f64' % (r, ftz, sat)
                case(f, ['f64'], ['f32'], [f + ' {d0}, {a0};'])
    for ftz in ['', '.ftz']:
        for sat in ['', '.sat']:
            f = 'cvt%s%s.f64.f32' % (ftz, sat)
            case(f, ['f32'], ['f64'], [f + ' {d0}, {a0};'])
    for t in ['f32', 'f64']:
        for r in ['rni', 'rzi', 'rmi', 'rpi']:
            for ftz in (['', '.ftz'] if t == 'f32' else ['']):
                f = 'cvt.%s%s.%s.%s' % (r, ftz, t, t)
                case(f, [t], [t], [f + ' {d0}, {a0};'], kinds=['toint'])
    case('cvt.ftz.sat.f32.f32', ['f32'], ['f32'], ['cvt.ftz.sat.f32.f32 {d0}, {a0};'])
    case('cvt.sat.f32.f32', ['f32'], ['f32'], ['cvt.sat.f32.f32 {d0}, {a0};'])
    # The tensor cores' tf32: an f32 rounded to 10 fraction bits, kept in a 32-bit register.
    case('cvt.rna.tf32.f32', ['f32'], ['u32'], ['cvt.rna.tf32.f32 {d0}, {a0};'])


def movement():
    for t in ['b16', 'b32', 'b64', 'u32', 'f32', 'f64']:
        case('mov.' + t, [t], [t], ['mov.%s {d0}, {a0};' % t])
    case('mov.pred', ['pred'], ['pred'], ['mov.pred {d0}, {a0};'], kinds=['pred'])
    case('mov.b64 pack', ['b32', 'b32'], ['b64'], ['mov.b64 {d0}, {{{a0}, {a1}}};'])
    case('mov.b64 unpack', ['b64'], ['b32', 'b32'], ['mov.b64 {{{d0}, {d1}}}, {a0};'])
    case('mov.b32 pack', ['b16', 'b16'], ['b32'], ['mov.b32 {d0}, {{{a0}, {a1}}};'])
    case('mov.u32 %laneid', [], ['u32'], ['mov.u32 {d0}, %laneid;'])
    case('mov.u32 %lanemask', [], ['u32'] * 4,
         ['mov.u32 {d0}, %lanemask_lt;', 'mov.u32 {d1}, %lanemask_le;', 'mov.u32 {d2}, %lanemask_gt;',
          'mov.u32 {d3}, %lanemask_ge;'])
    # ld and st of each width, through shared memory (st there, ld back at another width).
    for t in ['u8', 's8', 'u16', 's16', 'u32', 's32', 'u64', 's64', 'f32', 'f64', 'b16', 'b32', 'b64']:
        wide = 'b64'
        case('ld.shared.' + t, [wide], [store_type(t) if t not in ('u8', 's8') else 'b32'],
             ['st.shared.b64 [%rd30], {a0};',
              'ld.shared.%s {d0}, [%%rd30+%d];' % (t, 0 if t[1:] in ('64',) else 2 if t in ('u8', 's8', 'u16', 's16', 'b16') else 4)],
             setup='shared')
    case('ld.shared.v2.u32', ['b64'], ['b32', 'b32'], ['st.shared.b64 [%rd30], {a0};', 'ld.shared.v2.u32 {{{d0}, {d1}}}, [%rd30];'],
         setup='shared')
    case('st.shared.v4.b16', ['b16'] * 4, ['b64'], ['st.shared.v4.b16 [%rd30], {{{a0}, {a1}, {a2}, {a3}}};',
                                                   'ld.shared.b64 {d0}, [%rd30];'], setup='shared')
    case('ld.local.b32', ['b32'], ['b32'], ['st.local.b32 [%rd31], {a0};', 'ld.local.b32 {d0}, [%rd31];'],
         setup='local')
    case('cvta.shared', ['b32'], ['b32'], ['cvta.shared.u64 %rd34, %rd30;', 'st.b32 [%rd34], {a0};',
                                           'ld.shared.b32 {d0}, [%rd30];'], setup='shared')
    case('cvta.to.shared', ['b32'], ['b32'], ['cvta.shared.u64 %rd34, %rd30;', 'cvta.to.shared.u64 %rd35, %rd34;',
                                              'st.shared.b32 [%rd35], {a0};', 'ld.b32 {d0}, [%rd34];'],
         setup='shared')


def warp_ops():
    for mode in ['up', 'down', 'bfly', 'idx']:
        for b, c in [(1, 0), (3, 0x1f), (17, 0x1c1f), (0, 0x1f)]:
            f = 'shfl.sync.%s.b32 %d %x' % (mode, b, c)
            case(f, ['b32', 'b32'], ['b32', 'pred'],
                 ['shfl.sync.%s.b32 {d0}|{d1}, {a0}, %d, 0x%x, 0xffffffff;' % (mode, b, c)])
        case('shfl.sync.%s.b32 lane' % mode, ['b32', 'u32'], ['b32', 'pred'],
             ['shfl.sync.%s.b32 {d0}|{d1}, {a0}, {a1}, 0x1f, 0xffffffff;' % mode], kinds=['any', 'shift'])
    for mode in ['all', 'any', 'uni']:
        case('vote.sync.%s.pred' % mode, ['pred'], ['pred'], ['vote.sync.%s.pred {d0}, {a0}, 0xffffffff;' % mode],
             kinds=['pred'])
        case('vote.sync.%s.pred uniform' % mode, ['pred'], ['pred'],
             ['vote.sync.%s.pred {d0}, {a0}, 0xffffffff;' % mode], inputs='uniform-pred')
    case('vote.sync.ballot.b32', ['pred'], ['b32'], ['vote.sync.ballot.b32 {d0}, {a0}, 0xffffffff;'], kinds=['pred'])
    case('activemask.b32', [], ['b32'], ['activemask.b32 {d0};'])


ATOM = [('add', ['u32', 's32', 'u64', 'f32', 'f64']), ('min', ['u32', 's32', 'u64', 's64']),
        ('max', ['u32', 's32', 'u64', 's64']), ('exch', ['b32', 'b64']), ('and', ['b32', 'b64']),
        ('or', ['b32', 'b64']), ('xor', ['b32', 'b64']), ('inc', ['u32']), ('dec', ['u32'])]


def atomics():
    """Each thread owns its address, so the outcome does not depend on the order the GPU
    serves the threads in: the old value returned, then the value left in memory."""
    for space, base in [('global', '%rd2'), ('shared', '%rd30')]:
        for op, types in ATOM:
            for t in types:
                st = store_type(t)
                case('atom.%s.%s.%s' % (space, op, t), [t, t], [t, t],
                     ['st.%s.%s [%s], {a0};' % (space, LOAD[st], base),
                      'atom.%s.%s.%s {d0}, [%s], {a1};' % (space, op, t, base),
                      'ld.%s.%s {d1}, [%s];' % (space, LOAD[st], base)],
                     setup='shared' if space == 'shared' else None, threads=32 if 'f' not in t else 64)
        for t in ['b32', 'b64']:
            case('atom.%s.cas.%s' % (space, t), [t, t, t], [t, t],
                 ['st.%s.%s [%s], {a0};' % (space, t, base), 'atom.%s.cas.%s {d0}, [%s], {a1}, {a2};' % (space, t, base),
                  'ld.%s.%s {d1}, [%s];' % (space, t, base)], setup='shared' if space == 'shared' else None,
                 inputs='cas')
        case('red.%s.add.u32' % space, ['u32', 'u32'], ['u32'],
             ['st.%s.u32 [%s], {a0};' % (space, base), 'red.%s.add.u32 [%s], {a1};' % (space, base),
              'ld.%s.u32 {d0}, [%s];' % (space, base)], setup='shared' if space == 'shared' else None)
    case('red.global.max.s32', ['s32', 's32'], ['s32'],
         ['st.global.s32 [%rd2], {a0};', 'red.global.max.s32 [%rd2], {a1};', 'ld.global.s32 {d0}, [%rd2];'])


FUNC = """.func (.param .b32 ret) twice_plus(.param .b32 x, .param .b32 y)
{
  .reg .b32 %t<3>;
  ld.param.b32 %t0, [x];
  ld.param.b32 %t1, [y];
  mad.lo.s32 %t2, %t0, 2, %t1;
  st.param.b32 [ret], %t2;
  ret;
}
"""


def control():
    # Lanes part ways on their input and meet again: each path leaves its mark in d0.
    case('bra divergent', ['b32'], ['b32'],
         ['and.b32 %r5, {a0}, 3;', 'setp.eq.u32 %p5, %r5, 0;', 'mov.u32 {d0}, 100;', '@%p5 bra $L_zero;',
          'setp.eq.u32 %p6, %r5, 1;', '@%p6 bra.uni $L_one;', 'add.u32 {d0}, {d0}, {a0};', 'bra $L_join;',
          '$L_one:', 'mul.lo.u32 {d0}, {d0}, {a0};', 'bra $L_join;', '$L_zero:', 'sub.u32 {d0}, {d0}, {a0};',
          '$L_join:', 'add.u32 {d0}, {d0}, 1;'])
    case('call.uni', ['b32', 'b32'], ['b32'],
         ['{{', '.param .b32 arg0;', '.param .b32 arg1;', '.param .b32 rv;', 'st.param.b32 [arg0], {a0};',
          'st.param.b32 [arg1], {a1};', 'call.uni (rv), twice_plus, (arg0, arg1);', 'ld.param.b32 {d0}, [rv];', '}}'],
         )
    # A barrier between a store to shared memory and the load of it by a thread of the other warp.
    for bar in ['bar.sync 0', 'barrier.sync 0', 'bar.sync 0, 64', 'barrier.sync.aligned 0']:
        case(bar, ['b32'], ['b32'],
             ['st.shared.b32 [%rd30], {a0};', bar + ';', 'xor.b32 %r5, %r1, 33;', 'mul.wide.u32 %rd32, %r5, 8;',
              'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;', 'ld.shared.b32 {d0}, [%rd32];'],
             setup='shared', threads=64)
    case('bar.warp.sync', ['b32'], ['b32'], ['bar.warp.sync 0xffffffff;', 'not.b32 {d0}, {a0};'])
    # Lanes that leave early (exit, trap's spelling aside) keep what they stored before.
    case('exit', ['b32'], ['b32'], ['mov.u32 {d0}, {a0};', 'st.global.b32 [%rd2], {d0};', 'and.b32 %r5, %r1, 1;',
                                    'setp.eq.u32 %p5, %r5, 1;', '@%p5 exit;', 'add.u32 {d0}, {d0}, 5;'])
    case('ret', ['b32'], ['b32'], ['mov.u32 {d0}, {a0};', 'st.global.b32 [%rd2], {d0};', 'and.b32 %r5, %r1, 2;',
                                   'setp.ne.u32 %p5, %r5, 0;', '@%p5 ret;', 'add.u32 {d0}, {d0}, 9;'])
    # Instructions with no effect on results: the value passes through untouched.
    for f in ['membar.gl', 'membar.cta', 'fence.sc.gpu', 'fence.acq_rel.cta', 'nanosleep.u32 0',
              'prefetch.global.L1 [%rd1]', 'prefetchu.L1 [%rd1]', 'pmevent 1']:
        case(f, ['b32'], ['b32'], [f + ';', 'mov.b32 {d0}, {a0};'])



# ---- the half-precision forms, and every word of the memory and comparison forms ---------

HALVES = ['f16', 'bf16', 'f16x2', 'bf16x2']


def halves():
    for t in HALVES:
        n = 64 if 'x2' not in t else 32
        for op in ['add', 'sub', 'mul']:
            for r in ['', '.rn']:
                f = '%s%s.%s' % (op, r, t)
                case(f, [t, t], [t], [f + ' {d0}, {a0}, {a1};'], threads=n, inputs='rounding' if t == 'f16' else None)
        case('fma.rn.' + t, [t, t, t], [t], ['fma.rn.%s {d0}, {a0}, {a1}, {a2};' % t], threads=n)
        for op in ['min', 'max']:
            case('%s.%s' % (op, t), [t, t], [t], ['%s.%s {d0}, {a0}, {a1};' % (op, t)], threads=n)
        for op in ['neg', 'abs']:
            case('%s.%s' % (op, t), [t], [t], ['%s.%s {d0}, {a0};' % (op, t)])
    for t in ['f16', 'bf16']:
        for c in FCMP:  # one destination: ptxas takes no p|q for the half types
            case('setp.%s.%s' % (c, t), [t, t], ['pred'], ['setp.%s.%s {d0}, {a0}, {a1};' % (c, t)])
        for b in ['and', 'or', 'xor']:
            case('setp.lt.%s.%s' % (b, t), [t, t, 'pred'], ['pred'],
                 ['setp.lt.%s.%s {d0}, {a0}, {a1}, {a2};' % (b, t)], kinds=['any', 'any', 'pred'])
        for f in ['f32', 'f64']:
            case('cvt.%s.%s' % (f, t), [t], [f], ['cvt.%s.%s {d0}, {a0};' % (f, t)])
            for r in RND:
                case('cvt.%s.%s.%s' % (r, t, f), [f], [t], ['cvt.%s.%s.%s {d0}, {a0};' % (r, t, f)], threads=64)
        for s2 in ['f16', 'bf16']:
            # Within a type only the integral roundings; across the two only the others.
            for r in (['rni', 'rzi', 'rmi', 'rpi'] if s2 == t else RND):
                f = 'cvt.%s.%s.%s' % (r, t, s2)
                case(f, [s2], [t], [f + ' {d0}, {a0};'], kinds=['toint'] if r[-1] == 'i' else None)
        for i in (CVT_INTS if t == 'f16' else [i for i in CVT_INTS if i[1:] != '8']):  # bf16: no 8-bit
            for r in (RND if i == 's32' else ['rn']):
                f = 'cvt.%s.%s.%s' % (r, t, i)
                case(f, [i], [t], [f + ' {d0}, {a0};'])
            for r in (['rni', 'rzi', 'rmi', 'rpi'] if i == 's32' else ['rni']):
                f = 'cvt.%s.%s.%s' % (r, i, t)
                case(f, [t], [i], [f + ' {d0}, {a0};'])
    for t in ['f16x2', 'bf16x2']:
        for r in ['rn', 'rz']:
            f = 'cvt.%s.%s.f32' % (r, t)
            case(f, ['f32', 'f32'], [t], [f + ' {d0}, {a0}, {a1};'], threads=64)
    for f in ['cvt.rn.sat.f32.s32', 'cvt.rn.ftz.f32.s32', 'cvt.rz.sat.f64.u32']:
        case(f, [f.split('.')[-1]], [f.split('.')[-2]], [f + ' {d0}, {a0};'])


CACHE = ['ca', 'cg', 'cs', 'lu', 'cv', 'wb', 'wt', 'nc', 'L1::evict_normal', 'L1::evict_unchanged', 'L1::evict_first',
         'L1::evict_last', 'L1::no_allocate', 'L2::evict_normal', 'L2::evict_first', 'L2::evict_last', 'L2::64B',
         'L2::128B', 'L2::256B']
ORDER = ['volatile', 'weak', 'relaxed.cta', 'relaxed.gpu', 'relaxed.sys', 'relaxed.cluster', 'acquire.gpu',
         'release.gpu', 'mmio.relaxed.sys']
# Words ptxas refuses on these opcodes (or, for L2::evict_*, takes only with 256-bit vectors).
LD_NOT_PTX = ['wb', 'wt', 'release.gpu', 'L2::evict_normal', 'L2::evict_first', 'L2::evict_last']
ST_NOT_PTX = ['ca', 'lu', 'cv', 'nc', 'acquire.gpu', 'L2::64B', 'L2::128B', 'L2::256B', 'L2::evict_normal',
              'L2::evict_first', 'L2::evict_last']
MEMT = ['b8', 'b16', 'b32', 'b64', 'u8', 'u16', 'u32', 'u64', 's8', 's16', 's32', 's64', 'f32', 'f64']
CONST = """.const .align 8 .b8 cst[16] = {1, 2, 3, 4, 5, 6, 7, 136, 9, 10, 11, 12, 13, 14, 15, 255};
"""


def memory_forms():
    """The words of ld, st and cvta: a plain value through each, a few threads each (what
    these cases check is that each spelling reads and writes the bytes it names)."""
    n = 8
    for t in ['u16', 's16', 's32', 'u64', 's64']:
        case('mov.' + t, [t], [t], ['mov.%s {d0}, {a0};' % t], threads=n)
    reg_t = lambda t: {'b8': 'u8'}.get(t, t)
    for t in MEMT:
        out = 'b32' if t[1:] == '8' else t
        case('ld.global.' + t, ['b64'], [out], ['ld.global.%s {d0}, [%%rd1+%d];' % (t, 1 if t[1:] == '8' else 0)],
             threads=n)
        case('ldu.global.' + t, ['b64'], [out], ['ldu.global.%s {d0}, [%%rd1];' % t], threads=n)
        case('st.global.' + t, [reg_t(t) if t[1:] != '8' else 'b16'], ['b64'],
             ['mov.b64 %rd36, 0;', 'st.global.b64 [%rd2], %rd36;',
              'st.global.%s [%%rd2+1], {a0};' % t if t[1:] == '8' else 'st.global.%s [%%rd2], {a0};' % t,
              'ld.global.b64 {d0}, [%rd2];'], threads=n)
    for w in CACHE + ORDER:
        if w not in LD_NOT_PTX:
            f = 'ld.%s.global.u32' % w if w in ORDER else 'ld.global.%s.u32' % w
            case(f, ['b32'], ['b32'], [f + ' {d0}, [%rd1];'], threads=n)
        if w not in ST_NOT_PTX:
            f = 'st.%s.global.u32' % w if w in ORDER else 'st.global.%s.u32' % w
            case(f, ['b32'], ['b32'], [f + ' [%rd2], {a0};', 'ld.global.u32 {d0}, [%rd2];'], threads=n)
    case('ld.global.v4.u32', ['b32'] * 4, ['b32'] * 4, ['ld.global.v4.u32 {{{d0}, {d1}, {d2}, {d3}}}, [%rd1];'],
         threads=n, inputs=None)
    case('ldu.global.v2.u32', ['b64'], ['b32', 'b32'], ['ldu.global.v2.u32 {{{d0}, {d1}}}, [%rd1];'], threads=n)
    case('ldu.global.v4.u16', ['b64'], ['b16'] * 4, ['ldu.global.v4.u16 {{{d0}, {d1}, {d2}, {d3}}}, [%rd1];'],
         threads=n)
    case('st.global.v2.u32', ['b32', 'b32'], ['b64'], ['st.global.v2.u32 [%rd2], {{{a0}, {a1}}};',
                                                       'ld.global.b64 {d0}, [%rd2];'], threads=n)
    case('ld.shared::cta.u32', ['b32'], ['b32'], ['st.shared::cta.u32 [%rd30], {a0};', 'ld.shared::cta.u32 {d0}, [%rd30];'],
         setup='shared', threads=n)
    case('st.shared::cta.u32', ['b32'], ['b32'], ['st.shared::cta.u32 [%rd30], {a0};', 'ld.shared.u32 {d0}, [%rd30];'],
         setup='shared', threads=n)
    case('st.local.u32', ['b32'], ['b32'], ['st.local.u32 [%rd31], {a0};', 'ld.local.u32 {d0}, [%rd31];'],
         setup='local', threads=n)
    for k, (t, off) in enumerate([('u32', 4), ('s8', 7), ('u8', 15), ('b64', 8)]):
        out = 'b32' if t[1:] == '8' else t
        case('ld.const.%s +%d' % (t, off), [], [out], ['ld.const.%s {d0}, [cst%d+%d];' % (t, k, off)],
             extra=CONST.replace('cst', 'cst%d' % k), threads=n)
    # The kernel's own parameter, and then the word it points at.
    for sp in ['param', 'param::entry']:
        case('ld.%s.u64' % sp, [], ['b32'], ['ld.%s.u64 %%rd36, [pin];' % sp, 'cvta.to.global.u64 %rd36, %rd36;',
                                             'ld.global.b32 {d0}, [%rd36];'], threads=n, inputs=None)
    for sp in ['param', 'param::func']:
        case('st.%s.b32' % sp, ['b32', 'b32'], ['b32'],
             ['{{', '.param .b32 arg0;', '.param .b32 arg1;', '.param .b32 rv;', 'st.%s.b32 [arg0], {a0};' % sp,
              'st.%s.b32 [arg1], {a1};' % sp, 'call.uni (rv), twice_plus, (arg0, arg1);',
              'ld.%s.b32 {d0}, [rv];' % sp, '}}'], threads=n)
    case('ld.param::func.b32', ['b32', 'b32'], ['b32'],
         ['{{', '.param .b32 arg0;', '.param .b32 arg1;', '.param .b32 rv;', 'st.param.b32 [arg0], {a0};',
          'st.param.b32 [arg1], {a1};', 'call.uni (rv), twice_plus_func, (arg0, arg1);',
          'ld.param::func.b32 {d0}, [rv];', '}}'],
         extra=FUNC.replace('twice_plus', 'twice_plus_func').replace('ld.param.b32', 'ld.param::func.b32'), threads=n)
    # cvta of each space: a generic address made and used, or taken back and used.
    for sp, setup, addr in [('global', None, '%rd1'), ('shared', 'shared', '%rd30'), ('shared::cta', 'shared', '%rd30'),
                            ('local', 'local', '%rd31')]:
        fill = [] if sp == 'global' else ['st.%s.b32 [%s], {a0};' % (sp.split('::')[0], addr)]
        case('cvta.%s.u64' % sp, ['b32'], ['b32'], fill + ['cvta.%s.u64 %%rd34, %s;' % (sp, addr), 'ld.b32 {d0}, [%rd34];'],
             setup=setup, threads=n)
        case('cvta.to.%s.u64' % sp, ['b32'], ['b32'],
             fill + ['cvta.%s.u64 %%rd34, %s;' % (sp, addr), 'cvta.to.%s.u64 %%rd35, %%rd34;' % sp,
                     'ld.%s.b32 {d0}, [%%rd35];' % sp.split('::')[0]], setup=setup, threads=n)
    case('cvta.const.u64', [], ['b32'], ['mov.u64 %rd36, cst9;', 'cvta.const.u64 %rd34, %rd36;', 'ld.b32 {d0}, [%rd34+4];'],
         extra=CONST.replace('cst', 'cst9'), threads=n)
    case('cvta.param.u64', [], ['b32'], ['mov.u64 %rd36, pin;', 'cvta.param.u64 %rd34, %rd36;', 'ld.u64 %rd35, [%rd34];',
                                         'cvta.to.global.u64 %rd35, %rd35;', 'ld.global.b32 {d0}, [%rd35];'], threads=n)
    # Control words and the instructions with no effect.
    case('bra.uni', ['b32'], ['b32'], ['mov.u32 {d0}, {a0};', 'bra.uni $L_skip;', 'not.b32 {d0}, {d0};', '$L_skip:',
                                       'add.u32 {d0}, {d0}, 1;'], threads=n)
    case('ret.uni', ['b32'], ['b32'], ['mov.u32 {d0}, {a0};', 'st.global.b32 [%rd2], {d0};', 'ret.uni;'], threads=n)
    for bar in ['bar.cta.sync 0', 'barrier.cta.sync 0', 'barrier.cta.sync.aligned 0']:
        case(bar, ['b32'], ['b32'],
             ['st.shared.b32 [%rd30], {a0};', bar + ';', 'xor.b32 %r5, %r1, 33;', 'mul.wide.u32 %rd32, %r5, 8;',
              'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;', 'ld.shared.b32 {d0}, [%rd32];'],
             setup='shared', threads=64)
    # Named barriers for part of the block: warp 0 writes and arrives without waiting, warp 1
    # waits and reads what warp 0 wrote; a barrier one warp completes alone.
    for arrive, sync in [('bar.arrive 1, 64', 'bar.sync 1, 64'), ('barrier.arrive 2, 64', 'barrier.sync 2, 64'),
                         ('barrier.arrive.aligned 3, 64', 'barrier.sync.aligned 3, 64'),
                         ('bar.cta.arrive 4, 64', 'bar.cta.sync 4, 64')]:
        case(arrive, ['b32'], ['b32'],
             ['st.shared.b32 [%rd30], {a0};', 'setp.lt.u32 %p6, %r1, 32;', '@%p6 bra $L_prod;', sync + ';',
              'xor.b32 %r5, %r1, 32;', 'mul.wide.u32 %rd32, %r5, 8;', 'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;',
              'ld.shared.b32 {d0}, [%rd32];', 'bra.uni $L_end;', '$L_prod:', arrive + ';', 'mov.b32 {d0}, {a0};', '$L_end:'],
             setup='shared', threads=64)
    case('bar.sync 5, 32', ['b32'], ['b32'],
         ['st.shared.b32 [%rd30], {a0};', 'bar.sync 5, 32;', 'xor.b32 %r5, %r1, 1;', 'mul.wide.u32 %rd32, %r5, 8;',
          'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;', 'ld.shared.b32 {d0}, [%rd32];'], setup='shared', threads=64)
    # Block-wide reductions of a predicate (__syncthreads_count / _and / _or), across both warps.
    for sp in ['bar.red', 'barrier.red', 'bar.cta.red', 'barrier.cta.red.aligned']:
        case('%s.popc.u32' % sp, ['pred'], ['u32'], ['%s.popc.u32 {d0}, 0, {a0};' % sp], kinds=['pred'], threads=64)
        for op in ['and', 'or']:
            case('%s.%s.pred' % (sp, op), ['pred'], ['pred'], ['%s.%s.pred {d0}, 0, {a0};' % (sp, op)],
                 kinds=['pred'], threads=64)
            case('%s.%s.pred uniform' % (sp, op), ['pred'], ['pred'], ['%s.%s.pred {d0}, 0, {a0};' % (sp, op)],
                 inputs='uniform-pred', threads=64)
    for f in ['membar.sys', 'fence.sc.sys', 'fence.acq_rel.cluster', 'fence.sc.cta', 'fence.acq_rel.gpu',
              'prefetch.global.L2 [%rd1]', 'prefetch.global.L2::evict_last [%rd1]',
              'prefetch.global.L2::evict_normal [%rd1]', 'prefetch.local.L1 [%rd31]', 'prefetch.L1 [%rd1]',
              'pmevent.mask 1']:
        case(f, ['b32'], ['b32'], [f + ';', 'mov.b32 {d0}, {a0};'], setup='local' if 'local' in f else None, threads=n)


def comparison_forms():
    """set and selp: every comparison word, every source type, the boolean combinations."""
    for st in ['b16', 'b32', 'b64', 's16', 's64', 'u16', 'u32']:
        f = 'set.ne.u32.' + st
        case(f, [st, st], ['u32'], [f + ' {d0}, {a0}, {a1};'])
    for c in UCMP:
        f = 'set.%s.s32.u32' % c
        case(f, ['u32', 'u32'], ['s32'], [f + ' {d0}, {a0}, {a1};'])
    for c in FCMP:
        for st in ['f32', 'f64']:
            f = 'set.%s.f32.%s' % (c, st)
            case(f, [st, st], ['f32'], [f + ' {d0}, {a0}, {a1};'])
    for b in ['and', 'or', 'xor']:
        for st in ['u32', 'f32', 'f64']:
            f = 'set.gt.%s.s32.%s' % (b, st)
            if f == 'set.lt.and.u32.s32':
                continue
            case(f, [st, st, 'pred'], ['s32'], [f + ' {d0}, {a0}, {a1}, {a2};'], kinds=['any', 'any', 'pred'])
    for t in ['s16', 's64', 'u16', 'u32', 'u64']:
        case('selp.' + t, [t, t, 'pred'], [t], ['selp.%s {d0}, {a0}, {a1}, {a2};' % t], kinds=['any', 'any', 'pred'])
    # every type of red, and the half-precision atomics.
    for t in HALVES:
        st = store_type(t)
        f = 'atom.global.add.noftz.' + t
        case(f, [t, t], [t, t], ['st.global.b%d [%%rd2], {a0};' % WIDTH[st], f + ' {d0}, [%rd2], {a1};',
                                 'ld.global.b%d {d1}, [%%rd2];' % WIDTH[st]], threads=64)
        f = 'red.global.add.noftz.' + t
        case(f, [t, t], [t], ['st.global.b%d [%%rd2], {a0};' % WIDTH[st], f + ' [%rd2], {a1};',
                              'ld.global.b%d {d0}, [%%rd2];' % WIDTH[st]], threads=64)
    red = [('add', ['u64', 's32', 'f32', 'f64']), ('min', ['u32', 's64']), ('max', ['u64']),
           ('and', ['b32', 'b64']), ('or', ['b32', 'b64']), ('xor', ['b64', 'b32']), ('inc', ['u32']), ('dec', ['u32'])]
    for op, types in red:
        for t in types:
            st = store_type(t)
            ld = LOAD[st]
            f = 'red.global.%s.%s' % (op, t)
            case(f, [t, t], [t], ['st.global.%s [%%rd2], {a0};' % ld, f + ' [%rd2], {a1};',
                                  'ld.global.%s {d0}, [%%rd2];' % ld], threads=32 if 'f' not in t else 64)


def atomic_forms():
    """Each atom and red form with every memory-order, scope and space word (PTX refuses
    red.acquire and red.acq_rel)."""
    forms = [('add', 'u32'), ('inc', 'u32'), ('add', 'f32'), ('add.noftz', 'f16'), ('add.noftz', 'bf16x2')]
    words = [('relaxed.cta', 'shared'), ('acquire.gpu', 'global'), ('release.sys', 'global'),
             ('acq_rel.gpu', 'shared::cta'), ('relaxed.cluster', 'shared::cluster')]
    for op, t in forms:
        st = store_type(t)
        ld = 'b%d' % WIDTH[st]
        for order, space in words:
            base = '%rd2' if space == 'global' else '%rd30'
            plain = space.split('::')[0]
            setup = None if space == 'global' else 'shared'
            f = 'atom.%s.%s.%s.%s' % (order, space, op, t)
            case(f, [t, t], [t, t], ['st.%s.%s [%s], {a0};' % (plain, ld, base), f + ' {d0}, [%s], {a1};' % base,
                                     'ld.%s.%s {d1}, [%s];' % (plain, ld, base)], setup=setup, threads=8)
            if order.split('.')[0] in ('acquire', 'acq_rel'):
                continue
            f = 'red.%s.%s.%s.%s' % (order, space, op, t)
            case(f, [t, t], [t], ['st.%s.%s [%s], {a0};' % (plain, ld, base), f + ' [%s], {a1};' % base,
                                  'ld.%s.%s {d0}, [%s];' % (plain, ld, base)], setup=setup, threads=8)
        f = 'red.relaxed.gpu.shared::cta.%s.%s' % (op, t)
        case(f, [t, t], [t], ['st.shared.%s [%%rd30], {a0};' % ld, f + ' [%rd30], {a1};', 'ld.shared.%s {d0}, [%%rd30];' % ld],
             setup='shared', threads=8)


def newer_forms():
    """tanh, funnel shifts, find-nth-set, dot products, warp reductions and matches."""
    case('tanh.approx.f32', ['f32'], ['f32'], ['tanh.approx.f32 {d0}, {a0};'], threads=64, tol='rel:-10.9')
    for d in ['l', 'r']:
        for m in ['wrap', 'clamp']:
            f = 'shf.%s.%s.b32' % (d, m)
            case(f, ['b32', 'b32', 'u32'], ['b32'], [f + ' {d0}, {a0}, {a1}, {a2};'], kinds=['any', 'any', 'shift'])
    case('fns.b32', ['b32', 'u32', 's32'], ['b32'], ['fns.b32 {d0}, {a0}, {a1}, {a2};'], kinds=['any', 'lane', 'small'],
         threads=64)
    for a in ['u32', 's32']:
        for b in ['u32', 's32']:
            ct = 'u32' if a == b == 'u32' else 's32'
            f = 'dp4a.%s.%s' % (a, b)
            case(f, [a, b, ct], [ct], [f + ' {d0}, {a0}, {a1}, {a2};'])
            for m in ['lo', 'hi']:
                f = 'dp2a.%s.%s.%s' % (m, a, b)
                case(f, [a, b, ct], [ct], [f + ' {d0}, {a0}, {a1}, {a2};'])
    for op, t in [('add', 'u32'), ('add', 's32'), ('min', 'u32'), ('min', 's32'), ('max', 'u32'), ('max', 's32'),
                  ('and', 'b32'), ('or', 'b32'), ('xor', 'b32')]:
        f = 'redux.sync.%s.%s' % (op, t)
        case(f, [t], [t], [f + ' {d0}, {a0}, 0xffffffff;'])
    for t in ['b32', 'b64']:
        case('match.any.sync.' + t, [t], ['b32'], ['match.any.sync.%s {d0}, {a0}, 0xffffffff;' % t], kinds=['few'])
        case('match.all.sync.' + t, [t], ['b32', 'pred'], ['match.all.sync.%s {d0}|{d1}, {a0}, 0xffffffff;' % t],
             kinds=['few'])
        case('match.all.sync.%s uniform' % t, [t], ['b32', 'pred'],
             ['match.all.sync.%s {d0}|{d1}, {a0}, 0xffffffff;' % t], inputs='uniform')
    # The f64 comparisons combined with a predicate, and set's f64 source.
    for b in ['and', 'or', 'xor']:
        f = 'setp.gtu.%s.f64' % b
        case(f, ['f64', 'f64', 'pred'], ['pred', 'pred'], [f + ' {d0}|{d1}, {a0}, {a1}, {a2};'], kinds=['any', 'any', 'pred'])
    for dt in ['u32', 's32']:
        f = 'set.lt.%s.f64' % dt
        case(f, ['f64', 'f64'], [dt], [f + ' {d0}, {a0}, {a1};'])


def async_forms():
    """cp.async, its groups and waits, the mbarrier's phases and the bulk copy. Each thread
    copies its own operands into its own 16-byte shared slot (%rd32) and reads them back
    after the wait that lands them; each thread's mbarrier is its own (%rd34), so that no
    result depends on the order the warps run in. A read before the wait is a race on the
    GPU and is not compared here (tests/ptx/test_async.cpp holds it)."""
    n = 32

    def spelled(names, *a, **k):  # one kernel per instruction spelling the body holds
        for name in names:
            case(name, *a, **k)
    slots = ['mul.wide.u32 %rd32, %r1, 16;', 'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;',
             'mul.wide.u32 %rd34, %r1, 8;', 'add.u64 %rd34, %rd33, %rd34;', 'add.u64 %rd34, %rd34, 512;']
    for words, size in [('ca.shared.global', 4), ('ca.shared::cta.global', 4), ('ca.shared.global.L2::64B', 4),
                        ('ca.shared.global', 8), ('ca.shared.global.L2::128B', 8), ('cg.shared.global', 16),
                        ('cg.shared.global.L2::256B', 16)]:
        t = {4: ['b32'], 8: ['b64'], 16: ['b64', 'b64']}[size]
        ld = ['ld.shared.%s {d0}, [%%rd32];' % t[0]] + (['ld.shared.b64 {d1}, [%rd32+8];'] if size == 16 else [])
        spelled(['cp.async.%s %d' % (words, size)] + (['cp.async.commit_group'] if size == 4 and words == 'ca.shared.global' else []), t, t,
             slots + ['cp.async.%s [%%rd32], [%%rd1], %d;' % (words, size), 'cp.async.commit_group;',
                      'cp.async.wait_group 0;'] + ld, threads=n)
    # src-size: the bytes past it are zeros (a constant, then each thread's own: tid % 16);
    # ignore-src: none read, all zeros (odd threads).
    spelled(['cp.async.cg.shared.global 16 src-size', 'cp.async.wait_all'], ['b64', 'b64'], ['b64', 'b64'],
         slots + ['cp.async.cg.shared.global [%rd32], [%rd1], 16, 5;', 'cp.async.wait_all;',
                  'ld.shared.b64 {d0}, [%rd32];', 'ld.shared.b64 {d1}, [%rd32+8];'], threads=n)
    case('cp.async.cg.shared.global 16 src-size register', ['b64', 'b64'], ['b64', 'b64'],
         slots + ['and.b32 %r5, %r1, 15;', 'cp.async.cg.shared.global [%rd32], [%rd1], 16, %r5;', 'cp.async.wait_all;',
                  'ld.shared.b64 {d0}, [%rd32];', 'ld.shared.b64 {d1}, [%rd32+8];'], threads=n)
    case('cp.async.ca.shared.global 8 ignore-src', ['b64'], ['b64'],
         slots + ['and.b32 %r5, %r1, 1;', 'setp.eq.u32 %p4, %r5, 1;', 'cp.async.ca.shared.global [%rd32], [%rd1], 8, %p4;',
                  'cp.async.wait_all;', 'ld.shared.b64 {d0}, [%rd32];'], threads=n)
    # wait_group 1: the older group has landed (the newer one is not read).
    case('cp.async.wait_group', ['b32', 'b32'], ['b32'],
         slots + ['cp.async.ca.shared.global [%rd32], [%rd1], 4;', 'cp.async.commit_group;',
                  'cp.async.ca.shared.global [%rd32+4], [%rd1+8], 4;', 'cp.async.commit_group;',
                  'cp.async.wait_group 1;', 'ld.shared.b32 {d0}, [%rd32];', 'cp.async.wait_all;'], threads=n)
    # The copies tied to an mbarrier: landed by its phase (noinc: the thread's arrival).
    case('cp.async.mbarrier.arrive.noinc.shared.b64', ['b32'], ['b32'],
         slots + ['mbarrier.init.shared.b64 [%rd34], 1;', 'cp.async.ca.shared.global [%rd32], [%rd1], 4;',
                  'cp.async.mbarrier.arrive.noinc.shared.b64 [%rd34];', '$L_wait:',
                  'mbarrier.try_wait.parity.shared.b64 %p5, [%rd34], 0;', '@!%p5 bra $L_wait;',
                  'ld.shared.b32 {d0}, [%rd32];'], threads=n)
    case('cp.async.mbarrier.arrive.shared::cta.b64', ['b32'], ['b32'],
         slots + ['mbarrier.init.shared::cta.b64 [%rd34], 1;', 'cp.async.ca.shared.global [%rd32], [%rd1], 4;',
                  'cp.async.mbarrier.arrive.shared::cta.b64 [%rd34];', 'mbarrier.arrive.shared::cta.b64 %rd36, [%rd34];',
                  '$L_wait:', 'mbarrier.try_wait.shared::cta.b64 %p5, [%rd34], %rd36;', '@!%p5 bra $L_wait;',
                  'ld.shared.b32 {d0}, [%rd32];'], threads=n)
    # Phases: arrivals with counts, transaction bytes, waits by state and by parity.
    spelled(['mbarrier.init.shared.b64', 'mbarrier.arrive.release.cta.shared.b64', 'mbarrier.test_wait.acquire.cta.shared.b64',
             'mbarrier.inval.shared.b64', 'mbarrier.pending_count.b64'], [], ['pred', 'pred', 'pred', 'pred', 'b32'],
         slots + ['mbarrier.init.shared.b64 [%rd34], 3;', 'mbarrier.arrive.shared.b64 %rd36, [%rd34];',
                  'mbarrier.test_wait.shared.b64 {d0}, [%rd34], %rd36;',
                  'mbarrier.arrive.release.cta.shared.b64 %rd37, [%rd34], 2;',
                  'mbarrier.test_wait.acquire.cta.shared.b64 {d1}, [%rd34], %rd36;',
                  'mbarrier.test_wait.parity.shared.b64 {d2}, [%rd34], 0;',
                  'mbarrier.test_wait.parity.shared.b64 {d3}, [%rd34], 1;', 'mbarrier.inval.shared.b64 [%rd34];',
                  'mbarrier.pending_count.b64 {d4}, %rd36;'],
         threads=n)
    spelled(['mbarrier.arrive.expect_tx.shared.b64', 'mbarrier.complete_tx.relaxed.cta.shared.b64'], [], ['pred'],
         slots + ['mbarrier.init.shared.b64 [%rd34], 1;', 'mbarrier.expect_tx.relaxed.cta.shared.b64 [%rd34], 16;',
                  'mbarrier.arrive.expect_tx.shared.b64 %rd37, [%rd34], 16;',
                  'mbarrier.complete_tx.relaxed.cta.shared.b64 [%rd34], 32;',
                  'mbarrier.test_wait.shared.b64 {d0}, [%rd34], %rd37;'], threads=n)
    spelled(['mbarrier.init.shared::cta.b64', 'mbarrier.expect_tx.relaxed.cta.shared::cta.b64',
             'mbarrier.arrive.expect_tx.release.cta.shared::cta.b64', 'mbarrier.arrive.noComplete.shared::cta.b64',
             'mbarrier.try_wait.parity.shared::cta.b64', 'mbarrier.inval.shared::cta.b64'], [], ['pred', 'pred'],
         slots + ['mbarrier.init.shared::cta.b64 [%rd34], 2;',
                  'mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%rd34], 32;',
                  'mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd36, [%rd34], 16;',
                  'mbarrier.arrive.noComplete.shared::cta.b64 %rd36, [%rd34], 1;',
                  'mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 {d0}, [%rd34], 0;',
                  'mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%rd34], 48;',
                  'mbarrier.try_wait.parity.shared::cta.b64 {d1}, [%rd34], 0;',
                  'mbarrier.inval.shared::cta.b64 [%rd34];'], threads=n)
    spelled(['mbarrier.arrive_drop.shared.b64', 'mbarrier.arrive_drop.noComplete.release.cta.shared::cta.b64'], [], ['pred', 'pred', 'pred'],
         slots + ['mbarrier.init.shared.b64 [%rd34], 3;', 'mbarrier.arrive_drop.shared.b64 %rd36, [%rd34];',
                  'mbarrier.arrive_drop.noComplete.release.cta.shared::cta.b64 %rd37, [%rd34], 1;',
                  'mbarrier.arrive.shared.b64 %rd37, [%rd34];',
                  'mbarrier.test_wait.shared.b64 {d0}, [%rd34], %rd36;',
                  'mbarrier.arrive.shared.b64 %rd38, [%rd34];',
                  'mbarrier.test_wait.parity.shared.b64 {d1}, [%rd34], 0;',
                  'mbarrier.test_wait.parity.shared.b64 {d2}, [%rd34], 1;'], threads=n)
    # The bulk copy: 16 bytes a thread onto its own barrier's transaction bytes.
    case('cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes', ['b64', 'b64'], ['b64', 'b64'],
         slots + ['mbarrier.init.shared.b64 [%rd34], 1;', 'cvt.u32.u64 %r6, %rd32;', 'cvt.u32.u64 %r7, %rd34;',
                  'mbarrier.arrive.expect_tx.shared::cta.b64 %rd36, [%rd34], 16;',
                  'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd1], 16, [%r7];',
                  '$L_wait:', 'mbarrier.try_wait.shared.b64 %p5, [%rd34], %rd36;', '@!%p5 bra $L_wait;',
                  'ld.shared.b64 {d0}, [%rd32];', 'ld.shared.b64 {d1}, [%rd32+8];'], threads=n)
    # The bulk copies the other way (bulk_group): each thread's 16 bytes from its shared slot
    # to its own output slot (%rd2), read back after the wait that lands them; a reduction
    # first stores two operands there, then combines the other two (the same 16 bytes read
    # as elements of its type) into them.
    own = ['st.shared.b64 [%rd32], {a0};', 'st.shared.b64 [%rd32+8], {a1};', 'fence.proxy.async.shared::cta;',
           'cvt.u32.u64 %r6, %rd32;']
    back = ['ld.global.b64 {d0}, [%rd2];', 'ld.global.b64 {d1}, [%rd2+8];']
    spelled(['cp.async.bulk.global.shared::cta.bulk_group', 'cp.async.bulk.commit_group', 'cp.async.bulk.wait_group'],
            ['b64', 'b64'], ['b64', 'b64'],
            slots + own + ['cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r6], 16;', 'cp.async.bulk.commit_group;',
                           'cp.async.bulk.wait_group 0;'] + back, threads=n)
    spelled(['cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint', 'cp.async.bulk.wait_group.read'],
            ['b64', 'b64'], ['b64', 'b64'],
            slots + own + ['mov.u64 %rd39, 0x1000000000000000;',
                           'cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd2], [%r6], 16, %rd39;',
                           'cp.async.bulk.commit_group;', 'cp.async.bulk.wait_group.read 0;',
                           'cp.async.bulk.wait_group 0;'] + back, threads=n)
    reductions = [('and', 'b32'), ('or', 'b32'), ('xor', 'b64'), ('and', 'b64'), ('add', 'u32'), ('add', 's32'),
                  ('add', 'u64'), ('min', 'u32'), ('max', 's32'), ('min', 'u64'), ('max', 's64'), ('inc', 'u32'),
                  ('dec', 'u32'), ('add', 'f32'), ('add', 'f64'), ('add.noftz', 'f16'), ('add.noftz', 'bf16'),
                  ('min', 'f16'), ('max', 'bf16')]
    hinted = [('or', 'b32'), ('add', 'u32'), ('min', 'u32'), ('inc', 'u32'), ('add', 'f32'), ('add.noftz', 'f16')]
    for op, t in reductions:
        hint = (op, t) in hinted
        f = 'cp.reduce.async.bulk.global.shared::cta.bulk_group%s.%s.%s' % ('.L2::cache_hint' if hint else '', op, t)
        hint = ', %rd39' if hint else ''
        case(f, ['b64'] * 4, ['b64', 'b64'],
             slots + ['st.global.b64 [%rd2], {a0};', 'st.global.b64 [%rd2+8], {a1};',
                      'st.shared.b64 [%rd32], {a2};', 'st.shared.b64 [%rd32+8], {a3};', 'fence.proxy.async.shared::cta;',
                      'cvt.u32.u64 %r6, %rd32;', 'mov.u64 %rd39, 0x1000000000000000;',
                      '%s [%%rd2], [%%r6], 16%s;' % (f, hint), 'cp.async.bulk.commit_group;',
                      'cp.async.bulk.wait_group 0;'] + back, threads=n)
    for f in ['fence.proxy.async', 'fence.proxy.async.shared::cta', 'fence.proxy.async.shared::cluster',
              'fence.proxy.async.global', 'fence.mbarrier_init.release.cluster',
              'fence.proxy.tensormap::generic.release.cta', 'fence.proxy.tensormap::generic.release.cluster',
              'fence.proxy.tensormap::generic.release.gpu', 'fence.proxy.tensormap::generic.release.sys',
              'fence.proxy.tensormap::generic.acquire.gpu [%rd36], 128']:  # %rd36: a 128-byte aligned address
        case(f, ['b32'], ['b32'], ['and.b64 %rd36, %rd1, -128;', f + ';', 'mov.b32 {d0}, {a0};'], threads=n)

def cluster_forms():
    """The cluster's forms in the one CTA a case launches (a cluster of one, as every launch
    without clusters is): its own shared memory through shared::cluster addresses and mapa
    to rank 0, the cluster barrier, an arrive on an mbarrier through its shared::cluster
    address. Several CTAs, multicast included: tests/programs/cluster_dsmem.cu, whose
    dump is held to the GPU's."""
    n = 64
    mine = ['st.shared.b32 [%rd30], {a0};', 'cvt.u32.u64 %r6, %rd30;']
    case('mapa.shared::cluster.u32', ['b32'], ['b32'],
         mine + ['mapa.shared::cluster.u32 %r7, %r6, 0;', 'ld.shared::cluster.b32 {d0}, [%r7];'], setup='shared', threads=n)
    case('mapa.shared::cluster.u64', ['b32'], ['b32'],
         mine + ['mapa.shared::cluster.u64 %rd35, %rd30, 0;', 'st.shared::cluster.b32 [%rd35+4], {a0};',
                 'ld.shared::cluster.b32 {d0}, [%rd35];'], setup='shared', threads=n)
    case('mapa.u64', ['b32'], ['b32'],
         mine + ['cvta.shared.u64 %rd34, %rd30;', 'mapa.u64 %rd35, %rd34, 0;', 'ld.b32 {d0}, [%rd35];'],
         setup='shared', threads=n)
    # getctarank: the rank of the CTA an address names (0 here), from a shared::cta offset,
    # mapa's shared::cluster address and a generic one, added to the input.
    case('getctarank.shared::cluster.u32', ['b32'], ['b32'],
         mine + ['mapa.shared::cluster.u32 %r7, %r6, 0;', 'getctarank.shared::cluster.u32 %r8, %r7;',
                 'getctarank.shared::cluster.u32 %r9, %r6;', 'add.u32 %r8, %r8, %r9;', 'add.u32 {d0}, %r8, {a0};'],
         setup='shared', threads=n)
    case('getctarank.shared::cluster.u64', ['b32'], ['b32'],
         mine + ['mapa.shared::cluster.u64 %rd35, %rd30, 0;', 'getctarank.shared::cluster.u64 %r8, %rd35;',
                 'add.u32 {d0}, %r8, {a0};'], setup='shared', threads=n)
    case('getctarank.u64', ['b32'], ['b32'],
         mine + ['cvta.shared.u64 %rd34, %rd30;', 'mapa.u64 %rd35, %rd34, 0;', 'getctarank.u64 %r8, %rd35;',
                 'getctarank.u64 %r9, %rd34;', 'add.u32 %r8, %r8, %r9;', 'add.u32 {d0}, %r8, {a0};'],
         setup='shared', threads=n)
    case('ld.shared::cluster.u32', ['b32'], ['b32'],
         ['st.shared.u32 [%rd30], {a0};', 'ld.shared::cluster.u32 {d0}, [%rd30];'], setup='shared', threads=n)
    case('st.shared::cluster.u32', ['b32'], ['b32'],
         ['st.shared::cluster.u32 [%rd30], {a0};', 'ld.shared::cluster.u32 {d0}, [%rd30];'], setup='shared', threads=n)
    case('cvta.shared::cluster.u64', ['b32'], ['b32'],
         mine + ['cvta.shared::cluster.u64 %rd34, %rd30;', 'ld.b32 {d0}, [%rd34];'], setup='shared', threads=n)
    case('cvta.to.shared::cluster.u64', ['b32'], ['b32'],
         mine + ['cvta.shared::cluster.u64 %rd34, %rd30;', 'cvta.to.shared::cluster.u64 %rd35, %rd34;',
                 'ld.shared::cluster.b32 {d0}, [%rd35];'], setup='shared', threads=n)
    # The cluster barrier orders the CTA's shared memory as a block barrier does: each thread
    # reads another warp's word after it.
    other = ['xor.b32 %r5, %r1, 33;', 'mul.wide.u32 %rd32, %r5, 8;', 'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;',
             'ld.shared.b32 {d0}, [%rd32];']
    for arrive, wait in [('barrier.cluster.arrive', 'barrier.cluster.wait'),
                         ('barrier.cluster.arrive.release.aligned', 'barrier.cluster.wait.acquire.aligned'),
                         ('barrier.cluster.arrive.aligned', 'barrier.cluster.wait.aligned')]:
        for name in (arrive, wait):
            case(name, ['b32'], ['b32'], ['st.shared.b32 [%rd30], {a0};', arrive + ';', wait + ';'] + other,
                 setup='shared', threads=n)
    case('barrier.cluster.arrive.relaxed.aligned', ['b32'], ['b32'],
         ['barrier.cluster.arrive.relaxed.aligned;', 'barrier.cluster.wait.aligned;', 'mov.b32 {d0}, {a0};'],
         setup='shared', threads=n)
    # mbarriers through their shared::cluster address (an arrive with no state: `_`) and at
    # cluster scope; each thread's own.
    slots = ['mul.wide.u32 %rd32, %r1, 16;', 'mov.u64 %rd33, sh;', 'add.u64 %rd32, %rd33, %rd32;',
             'mul.wide.u32 %rd34, %r1, 8;', 'add.u64 %rd34, %rd33, %rd34;', 'add.u64 %rd34, %rd34, 512;',
             'cvt.u32.u64 %r7, %rd34;', 'mapa.shared::cluster.u32 %r8, %r7, 0;']
    for name in ['mbarrier.arrive.release.cluster.shared::cluster.b64', 'mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64',
                 'mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64', 'mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64',
                 'mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64', 'mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64']:
        case(name, [], ['pred', 'pred', 'pred'],
             slots + ['mbarrier.init.shared::cta.b64 [%rd34], 2;',
                      'mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r8];',
                      'mbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 {d0}, [%rd34], 0;',
                      'mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [%r8], 32;',
                      'mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r8], 16;',
                      'mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%r8], 32;',
                      'mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 {d1}, [%rd34], 0;',
                      'mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [%r8], 16;',
                      'mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 {d2}, [%rd34], 0;'], threads=32)
    # The bulk copy with a cache policy (CUTLASS's evict-normal word).
    case('cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint', ['b64', 'b64'], ['b64', 'b64'],
         slots[:6] + ['mbarrier.init.shared.b64 [%rd34], 1;', 'cvt.u32.u64 %r6, %rd32;', 'cvt.u32.u64 %r7, %rd34;',
                      'mov.u64 %rd39, 0x1000000000000000;',
                      'mbarrier.arrive.expect_tx.shared::cta.b64 %rd36, [%rd34], 16;',
                      'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r6], [%rd1], 16, [%r7], %rd39;',
                      '$L_wait:', 'mbarrier.try_wait.shared.b64 %p5, [%rd34], %rd36;', '@!%p5 bra $L_wait;',
                      'ld.shared.b64 {d0}, [%rd32];', 'ld.shared.b64 {d1}, [%rd32+8];'], threads=32)


# ---- the module ----------------------------------------------------------------------------

HEADER = """//
// Generated by scripts/ptx_diff_cases.py: the PTX interpreter's differential test (the GPU's
// results are in tests/ptx/fixtures/diff/). Do not edit: change the script.
//
.version 8.4
.target sm_90a
.address_size 64

.shared .align 8 .b8 sh[1024];
.shared .align 1024 .b8 wg[10240];
"""


def kernel_text(c, kname):
    regs = {'%p': 0, '%h': 0, '%r': 0, '%f': 0, '%rd': 0, '%fd': 0}
    names = {}
    lines = ['.visible .entry %s(.param .u64 pin, .param .u64 pout)' % kname, '{',
             '  .reg .pred %p<12>;', '  .reg .b16 %h<40>;', '  .reg .b32 %%r<%d>;' % max(40, 21 + len(c.outs)),
             '  .reg .f32 %%f<%d>;' % max(40, 21 + len(c.outs)),
             '  .reg .b64 %rd<40>;', '  .reg .f64 %fd<40>;']
    if getattr(c, 'setup', None) == 'local':
        lines.append('  .local .align 8 .b8 scratch[8];')
    lines += ['  ld.param.u64 %rd3, [pin];', '  ld.param.u64 %rd4, [pout];', '  cvta.to.global.u64 %rd3, %rd3;',
              '  cvta.to.global.u64 %rd4, %rd4;', '  mov.u32 %r1, %tid.x;',
              '  mul.wide.u32 %%rd5, %%r1, %d;' % (8 * max(1, len(c.ins))), '  add.s64 %rd1, %rd3, %rd5;',
              '  mul.wide.u32 %%rd5, %%r1, %d;' % (8 * len(c.outs)), '  add.s64 %rd2, %rd4, %rd5;']
    if getattr(c, 'setup', None) == 'shared':
        lines += ['  mul.wide.u32 %rd5, %r1, 8;', '  mov.u64 %rd6, sh;', '  add.u64 %rd30, %rd6, %rd5;']
    if getattr(c, 'setup', None) == 'local':
        lines += ['  mov.u64 %rd31, scratch;']
    for i, t in enumerate(c.ins):
        st = store_type(t)
        if st == 'pred':
            lines.append('  ld.global.u32 %%r%d, [%%rd1+%d];' % (30 + i, 8 * i))
            lines.append('  setp.ne.u32 %%p%d, %%r%d, 0;' % (1 + i, 30 + i))
            names['a%d' % i] = '%%p%d' % (1 + i)
        else:
            r = '%s%d' % (REG[st], 10 + i)
            lines.append('  ld.global.%s %s, [%%rd1+%d];' % (LOAD[st], r, 8 * i))
            names['a%d' % i] = r
    for i, t in enumerate(c.outs):
        st = store_type(t)
        names['d%d' % i] = '%%p%d' % (6 + i) if st == 'pred' else '%s%d' % (REG[st], 20 + i)
    for ln in c.body:
        text = ln.format(**names)
        lines.append(text if text.endswith(':') else '  ' + text)
    for i, t in enumerate(c.outs):
        st = store_type(t)
        if st == 'pred':
            lines.append('  selp.u32 %%r%d, 1, 0, %%p%d;' % (35 + i, 6 + i))
            lines.append('  st.global.u32 [%%rd2+%d], %%r%d;' % (8 * i, 35 + i))
        else:
            w = {'u8': 'b16', 's8': 'b16'}.get(st, LOAD[st])
            lines.append('  st.global.%s [%%rd2+%d], %s;' % (w, 8 * i, names['d%d' % i]))
    lines += ['  ret;', '}', '']
    return '\n'.join(lines)


def out_type(t):
    st = store_type(t)
    return 'b16' if st in ('u8', 's8') else st


def inputs_of(c):
    rng = random.Random(zlib.crc32(c.name.encode()))
    n = c.threads
    if isinstance(c.inputs, list):  # explicit rows, one a thread
        return c.inputs
    if c.inputs == 'rounding':
        t = c.ins[0]
        cols = [pool(t, 'any', rng, n, k) for k in range(2)]
        for i, (a, b) in enumerate(rounding_pairs(t)):
            j = n // 2 + i
            cols[0][j], cols[1][j] = a, b
        return [list(r) for r in zip(*cols)]
    if c.inputs == 'uniform':  # every thread the same operands
        row = [pool(t, kind, rng, 1, k)[0] for k, (t, kind) in enumerate(zip(c.ins, c.kinds))]
        return [list(row) for _ in range(n)]
    if c.inputs == 'uniform-pred':
        return [[1 if i < 32 else 0] for i in range(n)] if n > 32 else [[1]] * n
    if c.inputs == 'cas':
        cols = [pool(t, 'any', rng, n, k) for k, t in enumerate(c.ins)]
        for i in range(0, n, 2):  # half the threads compare equal
            cols[1][i] = cols[0][i]
        return [list(r) for r in zip(*cols)]
    cols = [pool(t, kind, rng, n, k) for k, (t, kind) in enumerate(zip(c.ins, c.kinds))]
    return [list(r) for r in zip(*cols)] if cols else [[] for _ in range(n)]


def half_bits(rng, bf):
    """A normal f16 (or bf16) of exponent -8..7 and a random significand, as its bits."""
    sign = rng.getrandbits(1)
    e = rng.randint(-8, 7)
    if bf:
        return (sign << 15) | ((e + 127) << 7) | rng.getrandbits(7)
    return (sign << 15) | ((e + 15) << 10) | rng.getrandbits(10)


def wgmma_case(n, dtype='f32', ab='f16', swizzle=0, a_regs=False, accumulate=False, copies=False, mn=False):
    """wgmma.mma_async m64{n}k16 over 128 threads: each thread stores its b64 operands into the
    shared buffer `wg` (A first, B 8 KiB or 2 KiB on), the descriptors of the layout `swizzle`
    (0: 8x16-byte core matrices, LBO 128, SBO 256; 1: the 128-byte swizzle, SBO 1024) read
    them back, and every accumulator is a result. Inputs: normal halves of exponent -8..7.
    `mn`: both operands transposed (MN-major): 8 K rows of 16 bytes along MN a core matrix
    (LBO 128 to the next 8 K, SBO 256 to the next 8 rows), or 128-byte swizzled rows of 64
    along MN (SBO 1024 to the next 8 K, LBO 2048 to the next 64 rows)."""
    seed = 'wgmma%d%s%s%d%d%d' % (n, dtype, ab, swizzle, a_regs, accumulate) + ('mn' if mn else '')
    rng = random.Random(zlib.crc32(seed.encode()))
    a_bytes = 8192 if swizzle and not mn else 2048
    b_bytes = (n // 8) * (1024 if swizzle else 256)
    if mn and swizzle:
        b_bytes = -(-n // 64) * 2048
    words = -(-(a_bytes + b_bytes) // 1024)  # b64 words each thread stores (the whole of both operands)
    outs = n // 2 if dtype == 'f32' else n // 4
    ins = ['b64'] * words + (['b32'] * 4 if a_regs else [])
    rows = []
    for _ in range(128):
        row = [sum(half_bits(rng, ab == 'bf16') << (16 * j) for j in range(4)) for _ in range(words)]
        row += [half_bits(rng, ab == 'bf16') | (half_bits(rng, ab == 'bf16') << 16) for _ in range(4)] if a_regs else []
        rows.append(row)
    lbo, sbo = (16, 1024) if swizzle else (128, 256)  # swizzled K-major: LBO 16 bytes, as CUTLASS sets it
    if mn:
        lbo, sbo = (2048, 1024) if swizzle else (128, 256)
    flags = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (swizzle << 62)
    body = ['mov.u64 %rd21, wg;', 'mul.wide.u32 %rd22, %r1, 8;', 'add.u64 %rd23, %rd21, %rd22;']
    if copies:
        # As CuTe's Hopper tutorial does: each thread copies its part with cp.async and waits
        # for its own copies alone; the wgmma, which starts once the warpgroup's four warps
        # reach it, is what orders them (no barrier).
        body += ['cp.async.ca.shared.global [%%rd23+%d], [%%rd1+%d], 8;' % (1024 * i, 8 * i) for i in range(words)]
        body += ['cp.async.wait_all;', 'fence.proxy.async.shared::cta;']
    else:
        body += ['st.shared.b64 [%%rd23+%d], {a%d};' % (1024 * i, i) for i in range(words)]
        # The stores are the generic proxy's; the tensor core reads through the async proxy.
        body += ['fence.proxy.async.shared::cta;', 'bar.sync 0;']
    body += ['cvt.u32.u64 %r2, %rd21;', 'shr.u32 %r3, %r2, 4;', 'and.b32 %r3, %r3, 16383;',
             'cvt.u64.u32 %rd24, %r3;', 'or.b64 %%rd24, %%rd24, %d;' % flags, 'add.u64 %%rd25, %%rd24, %d;' % (a_bytes >> 4),
             'setp.ne.u32 %p5, %r1, %r1;', 'setp.eq.u32 %p6, %r1, %r1;', 'wgmma.fence.sync.aligned;']
    d = '{{' + ', '.join('{d%d}' % i for i in range(outs)) + '}}'
    a = '{{' + ', '.join('{a%d}' % (words + i) for i in range(4)) + '}}' if a_regs else '%rd24'
    form = 'wgmma.mma_async.sync.aligned.m64n%dk16.%s.%s.%s' % (n, dtype, ab, ab)
    imms = '1, 1, 0' if a_regs else '1, 1, 1, 1' if mn else '1, 1, 0, 0'
    body.append('%s %s, %s, %%rd25, %%p5, %s;' % (form, d, a, imms))
    if accumulate:  # the same product again into the accumulators: D = A.B + A.B, summed as the tensor core sums
        body.append('%s %s, %s, %%rd25, %%p6, %s;' % (form, d, a, imms))
    body += ['wgmma.commit_group.sync.aligned;', 'wgmma.wait_group.sync.aligned 0;']
    name = form + ('.a_regs' if a_regs else '') + ('.sw128' if swizzle else '') + ('.acc' if accumulate else '') + \
        ('.cp_async' if copies else '') + ('.mn_major' if mn else '')
    case(name, ins, [dtype if dtype == 'f32' else 'b32'] * outs, body, threads=128, inputs=rows)


def core_matrix_operands(words, a_bytes):
    """The body's first lines for a wgmma of 32 bytes along K a row: each thread stores its
    `words` b64 inputs into `wg` (word i at byte 1024 i + 8 t), the stores fenced for the
    async proxy; %rd24 and %rd25 the descriptors of A (at 0) and B (at a_bytes) in 8 x 16-byte
    core matrices, two along K (LBO 128, SBO 256); %p5 false and %p6 true (scale-d)."""
    flags = ((128 >> 4) << 16) | ((256 >> 4) << 32)
    body = ['mov.u64 %rd21, wg;', 'mul.wide.u32 %rd22, %r1, 8;', 'add.u64 %rd23, %rd21, %rd22;']
    body += ['st.shared.b64 [%%rd23+%d], {a%d};' % (1024 * i, i) for i in range(words)]
    body += ['fence.proxy.async.shared::cta;', 'bar.sync 0;']
    body += ['cvt.u32.u64 %r2, %rd21;', 'shr.u32 %r3, %r2, 4;', 'and.b32 %r3, %r3, 16383;',
             'cvt.u64.u32 %rd24, %r3;', 'or.b64 %%rd24, %%rd24, %d;' % flags, 'add.u64 %%rd25, %%rd24, %d;' % (a_bytes >> 4),
             'setp.ne.u32 %p5, %r1, %r1;', 'setp.eq.u32 %p6, %r1, %r1;']
    return body


def wgmma_int_case(n, at='s8', bt='s8', a_regs=False, start_d=False, satfinite=False):
    """wgmma.mma_async m64{n}k32 of s8 / u8 into s32 over 128 threads, the operands laid out
    as wgmma_case lays them without swizzle (a row's 32 bytes are two 16-byte core-matrix
    rows: LBO 128, SBO 256), every byte random. `start_d`: D starts from the inputs (values
    near the ends of the s32 range) and the product adds to it, wrapping or, `satfinite`,
    clamped."""
    seed = 'wgmma_int%d%s%s%d%d%d' % (n, at, bt, a_regs, start_d, satfinite)
    rng = random.Random(zlib.crc32(seed.encode()))
    a_bytes, b_bytes = 2048, (n // 8) * 256
    words = -(-(a_bytes + b_bytes) // 1024)
    outs = n // 2
    ins = ['b64'] * words + (['b32'] * 4 if a_regs else []) + (['b32'] * outs if start_d else [])
    rows = []
    for _ in range(128):
        row = [rng.getrandbits(64) for _ in range(words)]
        row += [rng.getrandbits(32) for _ in range(4)] if a_regs else []
        if start_d:  # within two million of either end of the s32 range
            row += [(0x7fffffff - rng.randint(0, 2000000)) if rng.getrandbits(1) else (0x80000000 + rng.randint(0, 2000000))
                    for _ in range(outs)]
        rows.append(row)
    body = core_matrix_operands(words, a_bytes)
    first_d = words + (4 if a_regs else 0)
    if start_d:
        body += ['mov.b32 {d%d}, {a%d};' % (i, first_d + i) for i in range(outs)]
    body.append('wgmma.fence.sync.aligned;')
    d = '{{' + ', '.join('{d%d}' % i for i in range(outs)) + '}}'
    a = '{{' + ', '.join('{a%d}' % (words + i) for i in range(4)) + '}}' if a_regs else '%rd24'
    form = 'wgmma.mma_async.sync.aligned.m64n%dk32%s.s32.%s.%s' % (n, '.satfinite' if satfinite else '', at, bt)
    body.append('%s %s, %s, %%rd25, %s;' % (form, d, a, '%p6' if start_d else '%p5'))
    body += ['wgmma.commit_group.sync.aligned;', 'wgmma.wait_group.sync.aligned 0;']
    name = form + ('.a_regs' if a_regs else '') + ('.from_d' if start_d else '')
    case(name, ins, ['b32'] * outs, body, threads=128, inputs=rows)


def wide_value_bytes(rng, t, count):
    """`count` bytes of random elements of type t: tf32 (an f32 of exponent -8..7, its low 13
    bits random too: the tensor core does not read them), e4m3 / e5m2 (any finite byte)."""
    out = b''
    while len(out) < count:
        if t == 'tf32':
            v = (rng.getrandbits(1) << 31) | ((rng.randint(-8, 7) + 127) << 23) | rng.getrandbits(23)
            out += v.to_bytes(4, 'little')
        else:
            while True:
                v = rng.getrandbits(8)
                if t == 'e4m3' and v & 0x7f != 0x7f:
                    break
                if t == 'e5m2' and (v >> 2) & 0x1f != 0x1f:
                    break
            out += bytes([v])
    return out


def wgmma_wide_case(n, dtype, at, bt, a_regs=False, accumulate=False, neg_a=False):
    """wgmma.mma_async of tf32 (m64{n}k8) or 8-bit floats (m64{n}k32) over 128 threads, laid out
    as wgmma_int_case lays them (32 bytes of a row along K: LBO 128, SBO 256), every element
    random; `accumulate`: the same product twice into D, as the tensor core sums it."""
    seed = 'wgmma_wide%d%s%s%s%d%d%d' % (n, dtype, at, bt, a_regs, accumulate, neg_a)
    rng = random.Random(zlib.crc32(seed.encode()))
    k = 8 if at == 'tf32' else 32
    a_bytes, b_bytes = 2048, (n // 8) * 256
    words = -(-(a_bytes + b_bytes) // 1024)
    outs = n // 2 if dtype == 'f32' else n // 4
    ins = ['b64'] * words + (['b32'] * 4 if a_regs else [])
    # The buffer as the threads store it: word i of thread t at byte 1024 i + 8 t.
    buf = wide_value_bytes(rng, at, a_bytes) + wide_value_bytes(rng, bt, words * 1024 - a_bytes)
    rows = []
    for t in range(128):
        row = [int.from_bytes(buf[1024 * i + 8 * t:1024 * i + 8 * t + 8], 'little') for i in range(words)]
        row += [int.from_bytes(wide_value_bytes(rng, at, 4), 'little') for _ in range(4)] if a_regs else []
        rows.append(row)
    body = core_matrix_operands(words, a_bytes) + ['wgmma.fence.sync.aligned;']
    d = '{{' + ', '.join('{d%d}' % i for i in range(outs)) + '}}'
    a = '{{' + ', '.join('{a%d}' % (words + i) for i in range(4)) + '}}' if a_regs else '%rd24'
    form = 'wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s' % (n, k, dtype, at, bt)
    imms = '-1, 1' if neg_a else '1, 1'
    body.append('%s %s, %s, %%rd25, %%p5, %s;' % (form, d, a, imms))
    if accumulate:
        body.append('%s %s, %s, %%rd25, %%p6, %s;' % (form, d, a, imms))
    body += ['wgmma.commit_group.sync.aligned;', 'wgmma.wait_group.sync.aligned 0;']
    name = form + ('.a_regs' if a_regs else '') + ('.acc' if accumulate else '') + ('.neg_a' if neg_a else '')
    case(name, ins, [dtype if dtype == 'f32' else 'b32'] * outs, body, threads=128, inputs=rows)


def hopper_forms():
    # elect.sync: the lowest lane of the mask leads.
    case('elect.sync', [], ['b32', 'pred'], ['elect.sync {d0}|{d1}, 0xffffffff;'])
    # Lanes outside the mask that run it anyway (undefined by the PTX ISA): the H200 elects
    # the lowest lane that runs it.
    case('elect.sync.mask', [], ['b32', 'pred'], ['elect.sync {d0}|{d1}, 0xfffffff0;'])
    # The defined use: only the mask's lanes run it.
    case('elect.sync.guarded', [], ['b32', 'pred'], ['mov.b32 {d0}, 77;', 'setp.ne.u32 {d1}, %r1, %r1;',
                                                     'setp.ge.u32 %p9, %r1, 4;', '@%p9 elect.sync {d0}|{d1}, 0xfffffff0;'])
    # wgmma: every shape from descriptors without swizzle, then the other types, the
    # 128-byte swizzle, A from registers, and an accumulation.
    for f in ['wgmma.fence.sync.aligned', 'wgmma.commit_group.sync.aligned', 'wgmma.wait_group.sync.aligned']:
        case(f, ['b32'], ['b32'], [f + (' 0;' if 'wait' in f else ';'), 'mov.b32 {d0}, {a0};'], threads=128)
    for n in range(8, 257, 8):
        wgmma_case(n)
    wgmma_case(16, ab='bf16')
    wgmma_case(16, dtype='f16')
    wgmma_case(16, swizzle=1)
    wgmma_case(16, a_regs=True)
    wgmma_case(8, accumulate=True)
    wgmma_case(64, copies=True)
    wgmma_case(16, mn=True)
    wgmma_case(16, swizzle=1, mn=True)
    wgmma_case(128, swizzle=1, mn=True)
    wgmma_case(64, ab='bf16', swizzle=1, mn=True)
    # s8 / u8 into s32 (K 32): every pairing of signs, a wide N, A from registers, and D
    # starting near the ends of the s32 range, wrapping and clamped.
    for n in [8, 16, 24, 32] + list(range(48, 225, 16)):
        wgmma_int_case(n, 's8', 's8')
    for at, bt in [('u8', 'u8'), ('s8', 'u8'), ('u8', 's8')]:
        wgmma_int_case(16, at, bt)
    wgmma_int_case(16, 's8', 's8', a_regs=True)
    wgmma_int_case(16, 'u8', 'u8', start_d=True)
    wgmma_int_case(16, 'u8', 'u8', start_d=True, satfinite=True)
    wgmma_int_case(32, 'u8', 'u8', satfinite=True)  # (the word alone, where nothing overflows)
    # tf32 (K 8) and the 8-bit floats (K 32): every shape, every pairing, f16 accumulators,
    # A from registers, an accumulation, a negated A.
    for n in range(8, 257, 8):
        wgmma_wide_case(n, 'f32', 'tf32', 'tf32')
        wgmma_wide_case(n, 'f32', 'e4m3', 'e4m3')
    for at, bt in [('e4m3', 'e5m2'), ('e5m2', 'e4m3'), ('e5m2', 'e5m2')]:
        wgmma_wide_case(16, 'f32', at, bt)
    wgmma_wide_case(16, 'f16', 'e4m3', 'e4m3')
    wgmma_wide_case(16, 'f16', 'e5m2', 'e5m2')
    wgmma_wide_case(16, 'f32', 'tf32', 'tf32', a_regs=True)
    wgmma_wide_case(16, 'f32', 'e4m3', 'e4m3', a_regs=True)
    wgmma_wide_case(16, 'f32', 'tf32', 'tf32', accumulate=True)
    wgmma_wide_case(16, 'f32', 'e4m3', 'e5m2', accumulate=True, neg_a=True)
    wgmma_wide_case(16, 'f16', 'e4m3', 'e4m3', accumulate=True)
    wgmma_int_case(16, 's8', 's8', a_regs=True, start_d=True, satfinite=True)


def fp8_values(rng, n, e5m2):
    """f32 bits for conversions to an 8-bit float: its edges (zeros, the smallest subnormal
    and halfway below it, the largest finite value and the ties around it, infinities, NaN),
    exact ties of every binade, then random values across its range and beyond."""
    mb, bias, top = (2, 15, 57344.0) if e5m2 else (3, 7, 448.0)
    tiny = 2.0 ** (1 - bias - mb)
    specials = [0.0, -0.0, tiny, -tiny, tiny / 2, tiny * 0.75, tiny * 1.5, top, -top, top * 1.03, top * 1.0715,
                top * 1.2, -top * 1.2, 1e30, float('inf'), float('-inf'), float('nan'), 1.0, -1.0, 0.5]
    vals = [f32b(v) for v in specials] + [0x7fffffff, 0xffc00000]
    for e in range(1 - bias - mb, 16 if e5m2 else 9):  # a tie: an odd number of half quanta
        q = 2.0 ** max(e - mb, 1 - bias - mb)
        vals.append(f32b((2 ** mb + rng.randrange(2 ** mb)) * 2.0 ** (e - mb) + q / 2) if e >= 1 - bias else
                    f32b(rng.randrange(1, 2 ** mb) * q + q / 2))
    while len(vals) < n:
        e = rng.randint(-bias - mb - 3, 18 if e5m2 else 10)
        vals.append((rng.getrandbits(1) << 31) | ((e + 127) << 23) | rng.getrandbits(23))
    return vals[:n]


def fp8_forms():
    """cvt with 8-bit floats, two to a 16-bit register: every byte pair to halves; f32 and
    half pairs to them, rounded and saturated; with and without .relu."""
    for f8 in ['e4m3x2', 'e5m2x2']:
        e5m2 = f8 == 'e5m2x2'
        every = [[i | ((255 - i) << 8)] for i in range(256)]  # every byte, in both places
        for relu in ['', '.relu']:
            f = 'cvt.rn%s.f16x2.%s' % (relu, f8)
            case(f, ['b16'], ['f16x2'], [f + ' {d0}, {a0};'], threads=256, inputs=every)
            f = 'cvt.rn.satfinite%s.%s.f32' % (relu, f8)
            rng = random.Random(zlib.crc32(f.encode()))
            a, b = fp8_values(rng, 256, e5m2), fp8_values(rng, 256, e5m2)
            case(f, ['f32', 'f32'], ['b16'], [f + ' {d0}, {a0}, {a1};'], threads=256,
                 inputs=[[x, y] for x, y in zip(a, b[::-1])])
            f = 'cvt.rn.satfinite%s.%s.f16x2' % (relu, f8)
            case(f, ['f16x2'], ['b16'], [f + ' {d0}, {a0};'], threads=256)


def build():
    for part in [arithmetic, functions, logic, comparisons, conversions, movement, warp_ops, atomics, control,
                 halves, memory_forms, comparison_forms, atomic_forms, newer_forms, async_forms, hopper_forms, cluster_forms,
                 fp8_forms]:
        part()
    # A form two groups both spell (set.lt.f32.f32) is kept once; one name for two
    # different kernels is a mistake.
    seen, kept = {}, []
    for c in CASES:
        key = (c.ins, c.outs, c.body, c.threads, c.kinds, c.inputs, c.setup, c.extra)
        if c.name in seen:
            if seen[c.name] != key:
                raise SystemExit('two different cases named ' + c.name)
            continue
        seen[c.name] = key
        kept.append(c)
    return kept


def main(argv):
    if len(argv) != 2:
        print('usage: ptx_diff_cases.py OUT_DIR', file=sys.stderr)
        return 2
    out = argv[1]
    ptx = [HEADER, FUNC]
    cases = ['# The PTX differential test\'s cases, generated by scripts/ptx_diff_cases.py (see the PTX',
             '# module beside this file). One block per case: its header line, then per thread the',
             '# thread index and the operands in hex.']
    for i, c in enumerate(build()):
        kname = 'diff_%04d' % i
        text = kernel_text(c, kname)
        rows = inputs_of(c)
        hex_rows = []
        for tid, row in enumerate(rows):
            vals = ['%0*x' % (max(1, WIDTH[store_type(t)] // 4), v & ((1 << WIDTH[store_type(t)]) - 1))
                    for t, v in zip(c.ins, row)]
            hex_rows.append(' '.join([str(tid)] + vals))
        h = hashlib.sha256((c.extra + text.replace(kname, 'K') + '\n'.join(hex_rows)).encode()).hexdigest()[:16]
        ptx.append('// ---- case %s\n%s%s' % (c.name, c.extra, text))
        cases.append('case %s | kernel=%s threads=%d in=%s out=%s tol=%s hash=%s' % (
            c.name, kname, c.threads, ','.join(store_type(t) for t in c.ins) or '-',
            ','.join(out_type(t) for t in c.outs), c.tol, h))
        cases += hex_rows
    with open(out + '/ptx_diff.ptx', 'w') as f:
        f.write('\n'.join(ptx))
    with open(out + '/ptx_diff.cases', 'w') as f:
        f.write('\n'.join(cases) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
