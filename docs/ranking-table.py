#!/usr/bin/env python3
"""Writes the table of ranking constants in docs/ranking.md from crate/src/ranking.rs.

ranking.rs holds every constant that shapes a ranking, each with a one-line doc comment, grouped
under `// ---- group ----` comments. This script turns it into one Markdown table per group and
puts them between the markers `<!-- ranking-constants:start -->` and `<!-- ranking-constants:end -->`
of docs/ranking.md, so the docs show exactly what the code holds.

Usage: python3 docs/ranking-table.py          rewrite the table
       python3 docs/ranking-table.py --check  exit 1 when the table differs from ranking.rs
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "crate" / "src" / "ranking.rs"
DOC = ROOT / "docs" / "ranking.md"
START, END = "<!-- ranking-constants:start -->", "<!-- ranking-constants:end -->"

GROUP = re.compile(r"^// -+ (.+?) -+$")
CONST = re.compile(r"^pub const ([A-Z0-9_]+): ([^=]+?) = (.+?);$", re.DOTALL)


def value_text(ty: str, value: str) -> str:
    """The constant's value as a reader wants it: numbers as written, lists by their length."""
    value = " ".join(value.split())
    if ty.strip().startswith("&[&str]"):
        words = re.findall(r'"([^"]*)"', value)
        return f"{len(words)} words"
    if value.startswith("(") and value.endswith(")"):
        return " / ".join(v.strip() for v in value[1:-1].split(","))
    return value


def doc_text(lines: list[str]) -> str:
    text = " ".join(line.strip() for line in lines)
    # Rustdoc links [`X`] read as `X` in a table.
    return re.sub(r"\[(`[^`]+`)\]", r"\1", text).replace("|", "\\|")


def tables(source: str) -> str:
    groups: list[tuple[str, list[tuple[str, str, str]]]] = []
    doc: list[str] = []
    pending = ""
    for raw in source.splitlines():
        line = raw.strip()
        m = GROUP.match(line)
        if m:
            groups.append((m.group(1), []))
            doc = []
            continue
        if line.startswith("///"):
            doc.append(line[3:])
            continue
        if line.startswith("pub const") or pending:
            pending += " " + line if pending else line
            if not pending.endswith(";"):
                continue
            c = CONST.match(pending)
            pending = ""
            if not c:
                raise SystemExit(f"ranking-table: cannot read {line!r} in {SOURCE}")
            if not groups:
                groups.append(("constants", []))
            groups[-1][1].append((c.group(1), value_text(c.group(2), c.group(3)), doc_text(doc)))
            doc = []
            continue
        if not line.startswith("//"):
            doc = []
    out = []
    for name, rows in groups:
        if not rows:
            continue
        out.append(f"**{name[0].upper()}{name[1:]}**\n")
        out.append("| constant | value | what it does |")
        out.append("|---|---|---|")
        out.extend(f"| `{c}` | {v} | {d} |" for c, v, d in rows)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    check = "--check" in sys.argv[1:]
    generated = tables(SOURCE.read_text(encoding="utf-8"))
    doc = DOC.read_text(encoding="utf-8")
    if START not in doc or END not in doc:
        raise SystemExit(f"ranking-table: {DOC} has no {START} … {END} markers")
    head, rest = doc.split(START, 1)
    _, tail = rest.split(END, 1)
    updated = f"{head}{START}\n{generated}{END}{tail}"
    if check:
        if updated != doc:
            print(f"ranking-table: {DOC.relative_to(ROOT)} is stale: run python3 docs/ranking-table.py", file=sys.stderr)
            return 1
        return 0
    if updated != doc:
        DOC.write_text(updated, encoding="utf-8")
        print(f"ranking-table: wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
