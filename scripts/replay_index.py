#!/usr/bin/env python3
"""The replay pack's index of program traces: which committed program each SASS trace of
assets/replay/sass/ was recorded from, with the hash of its sources and flags
(program::source_hash, src/program/identity.cpp: the same canonical text, comments aside,
FNV-1a 64).
warpscope attaches a trace to a program only when the hashes are equal, so a program of
another name never gets these figures, and an edited file loses them.

    scripts/replay_index.py [SASS_DIR]      # writes SASS_DIR/programs.json

Each NAME.wstrace is matched to tests/programs/NAME.cu or examples/NAME.cu, built with the
nvcc flags in NAME.flags beside it (scripts/device/trace_programs.sh writes them; none where
there is no such file)."""
import json
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
INCLUDE = re.compile(rb'[ \t]*#[ \t]*include[ \t]*"([^"]+)"')
SOURCE_EXT = ('.cu', '.cpp', '.cc', '.cxx', '.c', '.o', '.a', '.so')


def without_comments(t):
    """The text as the compiler reads it: comments dropped, their line breaks kept, blanks
    at a line's end dropped."""
    out, i, n = bytearray(), 0, len(t)
    while i < n:
        c = t[i]
        if c in (0x22, 0x27):  # a literal, escapes included, to its closing quote or line end
            out.append(c)
            i += 1
            while i < n and t[i] != c and t[i] != 0x0a:
                if t[i] == 0x5c and i + 1 < n:
                    out.append(t[i]); i += 1
                out.append(t[i]); i += 1
            if i < n:
                out.append(t[i])
        elif c == 0x2f and i + 1 < n and t[i + 1] == 0x2f:
            while i + 1 < n and t[i + 1] != 0x0a:
                i += 1
        elif c == 0x2f and i + 1 < n and t[i + 1] == 0x2a:
            i += 2
            while i < n and not (t[i] == 0x2a and i + 1 < n and t[i + 1] == 0x2f):
                if t[i] == 0x0a:
                    out.append(0x0a)
                i += 1
            i += 1
        else:
            out.append(c)
        i += 1
    # Nor does the blank a trailing comment leaves at the end of its line.
    return b'\n'.join(line.rstrip(b' \t\r') for line in bytes(out).split(b'\n'))


def add_file(path, dirs, seen, out):
    key = os.path.realpath(path)
    if key in seen:
        return
    seen.add(key)
    try:
        text = open(path, 'rb').read()
    except OSError:
        return
    code = without_comments(text)
    out.append(b'file %d\n' % len(code) + code + b'\n')
    for line in text.split(b'\n'):
        m = INCLUDE.match(line)
        if not m:
            continue
        name = m.group(1).decode('latin-1')
        for where in [os.path.join(os.path.dirname(path), name)] + [os.path.join(d, name) for d in dirs]:
            if os.path.isfile(where):
                add_file(where, dirs, seen, out)
                break


def source_hash(source, flags=()):
    out = [b'warpscope source hash 1\n']
    files = [source]
    for w in flags:
        if w and w[0] != '-' and os.path.splitext(w)[1] in SOURCE_EXT and os.path.isfile(w):
            files.append(w)
        else:
            out.append(b'flag ' + w.encode() + b'\n')
    if not os.path.isfile(source):
        return ''
    dirs, i = [], 0
    while i < len(flags):
        if flags[i] == '-I' and i + 1 < len(flags):
            dirs.append(flags[i + 1]); i += 1
        elif flags[i].startswith('-I') and len(flags[i]) > 2:
            dirs.append(flags[i][2:])
        i += 1
    seen = set()
    for f in files:
        add_file(f, dirs, seen, out)
    h = 14695981039346656037
    for c in b''.join(out):
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return '%016x' % h


def main():
    sass = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, 'assets/replay/sass')
    os.chdir(ROOT)
    entries = []
    for f in sorted(os.listdir(sass)):
        if not f.endswith('.wstrace'):
            continue
        stem = f[:-len('.wstrace')]
        src = next((p for p in ('tests/programs/%s.cu' % stem, 'examples/%s.cu' % stem) if os.path.isfile(p)), None)
        if not src:
            print('%s: no committed program of that name, left out' % f, file=sys.stderr)
            continue
        flags = []  # the nvcc flags it was built with, where trace_programs.sh wrote them beside it
        if os.path.isfile(os.path.join(sass, stem + '.flags')):
            flags = open(os.path.join(sass, stem + '.flags')).read().split()
        entries.append({'trace': f, 'source': src, 'flags': flags, 'hash': source_hash(src, flags)})
    index = {'about': 'the program each SASS trace here was recorded from, and the hash of its sources and flags '
                      '(scripts/replay_index.py)', 'programs': entries}
    with open(os.path.join(sass, 'programs.json'), 'w') as o:
        json.dump(index, o, indent=1)
        o.write('\n')
    print('%d programs indexed' % len(entries))


if __name__ == '__main__':
    main()
