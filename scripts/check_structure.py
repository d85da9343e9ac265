#!/usr/bin/env python3
"""scripts/check_structure.py — the structure docs/architecture.md describes, checked
against the code, so the document stays true by construction.

  check_structure.py layers        every #include between source folders of src/, tools/,
                                   kernels/ and bench/ is one the document's table allows,
                                   and every header of src/ and tools/ is named in it
  check_structure.py layers --plant FROM:INCLUDE
                                   the same with one extra include planted in file FROM;
                                   exits 0 only when the planted include is refused (the
                                   test that the check can fail)
  check_structure.py sizes         no function in src/ or tools/ longer than 120 lines, no
                                   file longer than 900 (kernels and tests aside); function
                                   extents from universal-ctags
  check_structure.py matrix        prints the includes between folders as they are

The table is the one under the heading "## Layers" in docs/architecture.md: a row per
folder, its allowed folders in the second column as `code` spans. A file belongs to the
deepest folder of the table that holds it.
"""
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
SCANNED = ["src", "tools", "kernels", "bench"]
# Where the build looks for a quoted include, after the including file's own folder
# (CMakeLists.txt: ws_trace and the tools PUBLIC src/, ws_catalog PUBLIC kernels/).
INCLUDE_DIRS = ["src", "kernels", "tools"]
SOURCE_EXT = (".h", ".hpp", ".cpp", ".c", ".cu", ".cuh", ".def", ".inc")
MAX_FUNCTION = 120
MAX_FILE = 900
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def fail(msg):
    print(msg)
    return 1


def read_table():
    """{folder: set(allowed folders)} from the document's "## Layers" table."""
    text = open(DOC, encoding="utf-8").read()
    m = re.search(r"^## Layers\b.*?$(.*?)(?=^## )", text, re.S | re.M)
    if not m:
        raise SystemExit("docs/architecture.md has no '## Layers' section with the table of allowed includes")
    table = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        folder = cells[0].strip("`").rstrip("/")
        allowed = set(a.rstrip("/") for a in re.findall(r"`([^`]+)`", cells[1]))
        table[folder] = allowed
    if not table:
        raise SystemExit("docs/architecture.md: the '## Layers' table has no rows")
    return table


def source_files():
    for top in SCANNED:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    yield os.path.relpath(os.path.join(dirpath, f), ROOT)


def folder_of(path, folders):
    """The deepest folder of the table holding `path` (None: none does)."""
    best = None
    for f in folders:
        if path.startswith(f + "/") and (best is None or len(f) > len(best)):
            best = f
    return best


def resolve(includer, name):
    """The repository path a quoted include names, or None (a system or generated header)."""
    for base in [os.path.dirname(includer)] + INCLUDE_DIRS:
        p = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, p)):
            return p
    return None


def includes(plant=None):
    """(includer, included) pairs between repository files."""
    for f in source_files():
        names = INCLUDE_RE.findall(open(os.path.join(ROOT, f), encoding="utf-8", errors="replace").read())
        if plant and plant[0] == f:
            names.append(plant[1])
        for n in names:
            target = resolve(f, n)
            if target:
                yield f, target, n


def check_layers(plant=None):
    table = read_table()
    folders = list(table)
    bad = []
    for f, target, name in includes(plant):
        a, b = folder_of(f, folders), folder_of(target, folders)
        if a is None:
            bad.append(f"{f}: its folder is not in the table of docs/architecture.md")
            continue
        if b is None or a == b:
            continue
        if b not in table[a]:
            bad.append(f'{f}: #include "{name}" goes from {a} to {b}, which the table does not allow')
    doc = open(DOC, encoding="utf-8").read()
    for f in source_files():
        if f.startswith(("src/", "tools/")) and f.endswith((".h", ".cuh", ".def")):
            if os.path.basename(f) not in doc:
                bad.append(f"{f}: a header docs/architecture.md does not name")
    for line in sorted(set(bad)):
        print(line)
    return sorted(set(bad))


def matrix():
    table = read_table()
    pairs = {}
    for f, target, _ in includes():
        a, b = folder_of(f, list(table)), folder_of(target, list(table))
        if a and b and a != b:
            pairs.setdefault(a, set()).add(b)
    for a in sorted(pairs):
        print(f"{a}: {', '.join(sorted(pairs[a]))}")


def check_sizes():
    bad = []
    for f in source_files():
        if not f.startswith(("src/", "tools/")):
            continue
        n = sum(1 for _ in open(os.path.join(ROOT, f), encoding="utf-8", errors="replace"))
        if n > MAX_FILE:
            bad.append(f"{f}: {n} lines (at most {MAX_FILE})")
    ctags = shutil.which("ctags-universal") or shutil.which("ctags") or "ctags"
    try:
        out = subprocess.run(
            [ctags, "-R", "--languages=C++,CUDA", "--kinds-C++=f", "--kinds-CUDA=f", "--fields=+ne",
             "-x", "--_xformat=%{end} %{line} %F %N", "src", "tools"],
            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        return fail(f"check_structure: universal-ctags is needed to measure functions ({e})")
    for row in out.splitlines():
        parts = row.split(" ", 3)
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        length = int(parts[0]) - int(parts[1]) + 1
        if length > MAX_FUNCTION:
            bad.append(f"{parts[2]}:{parts[1]}: {parts[3]} is {length} lines (at most {MAX_FUNCTION})")
    for line in bad:
        print(line)
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "layers":
        if len(argv) == 4 and argv[2] == "--plant":
            src, _, inc = argv[3].partition(":")
            bad = check_layers((src, inc))
            planted = [b for b in bad if b.startswith(src + ":") and f'"{inc}"' in b]
            if planted:
                print("the planted include is refused, as it must be")
                return 0
            return fail(f"check_structure: the planted include {inc} in {src} was not refused")
        return 1 if check_layers() else 0
    if len(argv) == 2 and argv[1] == "sizes":
        return check_sizes()
    if len(argv) == 2 and argv[1] == "matrix":
        matrix()
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
