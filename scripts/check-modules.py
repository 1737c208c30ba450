#!/usr/bin/env python3
"""Checks the Rust core's module layout: no import cycle between modules, no oversized file.

Two levels are checked. The core's top-level modules: a module is `x.rs` or the folder `x/` with
everything in it (`x/mod.rs`, `x/y.rs`, tests included) counted as one; lib.rs (the crate root,
which declares the modules) is not a module. And the modules inside each folder module: in
`engine/`, each file (`engine/index.rs`) or subfolder is a module, and the folder's root
(`engine/mod.rs`, or `engine.rs` beside the folder), which declares them, is not; test modules
(`tests.rs`, `*_tests.rs`, a `tests/` folder) are left out there: they depend on what they test
and nothing depends on them.

Module `a` depends on module `b` when code in `a` names `b` by a path: `crate::b`, `super::b`,
`self::b` (resolved from where the path is written, inline `mod x { ... }` blocks included), in a
`use` (groups like `use super::{b, c::d}` too) or in code; comments and strings are ignored.
Calls of methods defined in another module's `impl` block are not paths, and not counted.

Prints the dependency graphs, then fails (exit 1) on any cycle (a strongly connected component
of more than one module), and on any source file over the line limit (test files, `tests.rs`,
`*_tests.rs` and those in a `tests/` folder, are excepted).

Usage: scripts/check-modules.py [--src crate/src] [--max-lines 600] [--quiet]
"""

import argparse
import re
import sys
from pathlib import Path

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
# A path from the crate root or relative to the current module: its segments, and whether a
# `{` group follows.
PATH = re.compile(rf"(?<![\w$:])\$?((?:crate|self|super)(?:\s*::\s*{IDENT})*)(\s*::\s*\{{)?")
INLINE_MOD = re.compile(rf"\bmod\s+({IDENT})\s*\{{")
RAW = re.compile(r'b?r(#*)"')


def strip(code: str) -> str:
    """The code with comments removed and the contents of string and char literals emptied."""
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if code.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif code.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
            out.append(" ")
        elif c in "br" and (m := RAW.match(code, i)) and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            end = code.find('"' + m.group(1), m.end())
            i = n if end < 0 else end + 1 + len(m.group(1))
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and code[i] != '"':
                i += 2 if code[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'":
            if code.startswith("\\", i + 1):
                end = code.find("'", i + 3)
                i = n if end < 0 else end + 1
                out.append("' '")
            elif i + 2 < n and code[i + 2] == "'":
                i += 3
                out.append("' '")
            else:
                out.append(c)  # a lifetime or a label
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def group_items(code: str, start: int) -> list[list[str]]:
    """The paths (as segments) of the `{...}` group opening at `start`, nested groups expanded."""
    items: list[list[str]] = []
    depth, i, buf = 0, start, ""
    tops: list[str] = []
    while i < len(code):
        c = code[i]
        if c == "{":
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                tops.append(buf)
                break
        elif c == "," and depth == 1:
            tops.append(buf)
            buf = ""
            i += 1
            continue
        buf += c
        i += 1
    for t in tops:
        t = t.strip()
        m = re.match(rf"((?:{IDENT})(?:\s*::\s*{IDENT})*)(\s*::\s*\{{)?", t)
        if not m:
            continue
        segs = [s.strip() for s in m.group(1).split("::")]
        if m.group(2):
            for sub in group_items(t, m.end() - 1):
                items.append(segs + sub)
        else:
            items.append(segs)
    return items


def resolve(segs: list[str], here: list[str]) -> list[str] | None:
    """The absolute path (from the crate root) of `segs`, written in module `here`."""
    base: list[str]
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] == "self":
        base, segs = list(here), segs[1:]
    else:
        base = list(here)
    while segs and segs[0] == "super":
        if not base:
            return None
        base, segs = base[:-1], segs[1:]
    return base + [s for s in segs if s != "self"]


def file_module(src: Path, file: Path) -> list[str]:
    """The module path of a file, by its place: lib.rs [], x.rs and x/mod.rs [x], x/y.rs [x, y]."""
    parts = list(file.relative_to(src).parts)
    parts[-1] = parts[-1].removesuffix(".rs")
    if parts[-1] in ("mod", "lib") and (len(parts) > 1 or parts[-1] == "lib"):
        parts = parts[:-1]
    return parts


def references(src: Path, file: Path) -> list[tuple[list[str], list[str]]]:
    """(module where the path is written, absolute path) of every path in `file`."""
    code = strip(file.read_text(encoding="utf-8"))
    top = file_module(src, file)
    opens = {m.end() - 1: m.group(1) for m in INLINE_MOD.finditer(code)}
    # The inline module stack at each offset: walk the braces once.
    stack: list[tuple[str, int]] = []
    depth = 0
    events = sorted([(m.start(), m) for m in PATH.finditer(code)], key=lambda e: e[0])
    ev = 0
    out = []
    for i, c in enumerate(code):
        while ev < len(events) and events[ev][0] == i:
            m = events[ev][1]
            here = top + [name for name, _ in stack]
            segs = [s.strip() for s in m.group(1).split("::")]
            paths = [segs + g for g in group_items(code, m.end() - 1)] if m.group(2) else [segs]
            for p in paths:
                a = resolve(p, here)
                if a:
                    out.append((here, a))
            ev += 1
        if c == "{":
            if i in opens:
                stack.append((opens[i], depth))
            depth += 1
        elif c == "}":
            depth -= 1
            if stack and stack[-1][1] == depth:
                stack.pop()
    return out


def is_test(name: str) -> bool:
    return name == "tests" or name.endswith("_tests")


def folder_children(folder: Path, root: str) -> set[str]:
    """A folder's modules: its files but `root` (lib.rs, mod.rs), and its subfolders with code."""
    names = {p.stem for p in folder.glob("*.rs") if p.name != root}
    names |= {p.name for p in folder.iterdir() if p.is_dir() and any(p.rglob("*.rs"))}
    return names


def graphs(src: Path) -> dict[tuple[str, ...], dict[str, set[str]]]:
    """Per folder (() for the crate root, ("engine",) for engine/): its modules' dependencies."""
    refs = {f: references(src, f) for f in sorted(src.rglob("*.rs"))}
    out: dict[tuple[str, ...], dict[str, set[str]]] = {}
    folders = [()] + sorted(tuple(d.relative_to(src).parts) for d in src.rglob("*") if d.is_dir() and any(d.glob("*.rs")))
    for q in folders:
        children = folder_children(src.joinpath(*q), "mod.rs" if q else "lib.rs")
        if q:
            children = {c for c in children if not is_test(c)}
        g: dict[str, set[str]] = {c: set() for c in children}
        k = len(q)
        for f, rs in refs.items():
            here = file_module(src, f)
            if tuple(here[:k]) != q or len(here) <= k or here[k] not in g:
                continue
            if q and any(is_test(p) for p in f.relative_to(src).parts[k:]):
                continue
            for _, a in rs:
                if tuple(a[:k]) == q and len(a) > k and a[k] in g and a[k] != here[k]:
                    g[here[k]].add(a[k])
        if q and len(g) < 2:
            continue
        out[q] = g
    return out


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default=str(Path(__file__).resolve().parent.parent / "crate" / "src"))
    ap.add_argument("--max-lines", type=int, default=600)
    ap.add_argument("--quiet", action="store_true", help="print only problems")
    args = ap.parse_args()
    src = Path(args.src)
    gs = graphs(src)
    problems = []
    for q, g in gs.items():
        prefix = "".join(f"{p}/" for p in q)
        if not args.quiet:
            if q:
                print(f"-- inside {prefix}")
            for m in sorted(g):
                print(f"{prefix}{m} -> {', '.join(sorted(g[m])) or '(none)'}")
        for comp in cycles(g):
            edges = [f"{prefix}{a} -> {prefix}{b}" for a in comp for b in sorted(g[a]) if b in comp]
            problems.append(f"import cycle among {', '.join(prefix + c for c in comp)}: {'; '.join(edges)}")
    for file in sorted(src.rglob("*.rs")):
        rel = file.relative_to(src)
        if is_test(file.stem) or "tests" in rel.parts[:-1]:
            continue
        n = len(file.read_text(encoding="utf-8").splitlines())
        if n > args.max_lines:
            problems.append(f"{rel}: {n} lines, over {args.max_lines}")
    for p in problems:
        print(f"check-modules: {p}", file=sys.stderr)
    if not problems and not args.quiet:
        inner = sum(len(g) for q, g in gs.items() if q)
        print(
            f"check-modules: {len(gs[()])} modules and {inner} inside {len(gs) - 1} folders, "
            f"no import cycle, no file over {args.max_lines} lines"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
