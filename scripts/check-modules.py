#!/usr/bin/env python3
"""Checks the Rust core's module layout: no import cycle between modules, no oversized file.

A module is a top-level module of crate/src: `x.rs`, or the folder `x/` with everything in it
(`x/mod.rs`, `x/y.rs`, tests included) counted as one. Module `a` depends on module `b` when
code in `a` names `crate::b` (in a `use`, a `use crate::{b, c::d}` group, or a path in code);
comments are ignored. lib.rs (the crate root, which declares the modules) is not a module.

Prints the dependency graph, then fails (exit 1) on any cycle (a strongly connected component
of more than one module), and on any source
file over the line limit (test files, `tests.rs` and `*_tests.rs`, are excepted).

Usage: scripts/check-modules.py [--src crate/src] [--max-lines 600] [--quiet]
"""

import argparse
import re
import sys
from pathlib import Path

COMMENT = re.compile(r"(^|[\s;{}(),])//.*$", re.MULTILINE)
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
PATH = re.compile(r"\bcrate::([A-Za-z_][A-Za-z0-9_]*)")
GROUP = re.compile(r"\bcrate::\{")


def strip(code: str) -> str:
    code = BLOCK_COMMENT.sub(" ", code)
    code = STRING.sub('""', code)
    return COMMENT.sub(r"\1", code)


def group_names(code: str, start: int) -> list[str]:
    """The first path segment of each item of the `crate::{...}` group opening at `start`."""
    depth, i, item, names = 0, start, "", []
    while i < len(code):
        c = code[i]
        if c == "{":
            depth += 1
            if depth == 1:
                item = ""
                i += 1
                continue
        elif c == "}":
            depth -= 1
            if depth == 0:
                names.append(item)
                break
        elif c == "," and depth == 1:
            names.append(item)
            item = ""
            i += 1
            continue
        if depth == 1:
            item += c
        i += 1
    out = []
    for n in names:
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", n)
        if m and m.group(1) not in ("self", "super"):
            out.append(m.group(1))
    return out


def module_of(src: Path, file: Path) -> str | None:
    rel = file.relative_to(src)
    if rel.parts == ("lib.rs",):
        return None
    return rel.parts[0].removesuffix(".rs")


def graph(src: Path) -> dict[str, set[str]]:
    deps: dict[str, set[str]] = {}
    for file in sorted(src.rglob("*.rs")):
        mod = module_of(src, file)
        if mod is None:
            continue
        code = strip(file.read_text(encoding="utf-8"))
        names = set(PATH.findall(code))
        for m in GROUP.finditer(code):
            names.update(group_names(code, m.end() - 1))
        deps.setdefault(mod, set()).update(names)
    modules = set(deps)
    # A module naming itself through `crate::` (its tests, say) is no dependency.
    return {m: {d for d in ds if d in modules and d != m} for m, ds in deps.items()}


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
    g = graph(src)
    if not args.quiet:
        for m in sorted(g):
            print(f"{m} -> {', '.join(sorted(g[m])) or '(none)'}")
    problems = []
    for comp in cycles(g):
        edges = [f"{a} -> {b}" for a in comp for b in sorted(g[a]) if b in comp]
        problems.append(f"import cycle among {', '.join(comp)}: {'; '.join(edges)}")
    for file in sorted(src.rglob("*.rs")):
        if file.name == "tests.rs" or file.name.endswith("_tests.rs"):
            continue
        n = len(file.read_text(encoding="utf-8").splitlines())
        if n > args.max_lines:
            problems.append(f"{file.relative_to(src)}: {n} lines, over {args.max_lines}")
    for p in problems:
        print(f"check-modules: {p}", file=sys.stderr)
    if not problems and not args.quiet:
        print(f"check-modules: {len(g)} modules, no import cycle, no file over {args.max_lines} lines")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
