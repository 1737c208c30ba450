#!/usr/bin/env python3
"""Checks that the docs state the code as it is.

- Format version: every place in docs/*.md, README.md and CONTRIBUTING.md that states the current
  index format version ("format version (15)", "`FORMAT_VERSION` = 15") gives
  `store::FORMAT_VERSION`, and the "Format versions:" paragraph of ARCHITECTURE.md describes every
  version from 2 up to it, as the constant's doc comment in crate/src/store.rs does.
- Module map (ARCHITECTURE.md, "## Module map"): every source file is named there, and every
  `.rs`/`.ts` file and repository folder the map names exists. The source files: crate/src/**/*.rs
  and crate/<crate>/src/**/*.rs of the workspace's other crates, test modules left out (`tests.rs`,
  `*_tests.rs`, anything in a `tests/` folder), and plugin/**/*.ts but generated/ folders. How
  names are read: a `### ` heading or a bold `**`plugin/core/`: …**` line sets the folder the
  following rows name files in; inside a table row or a paragraph, a backticked folder (`engine/`,
  `crate/tests/`, `crate/chunker`) is where the names after it are looked up first (and a crate's
  `src/`); a name is then looked up in the section's folder and each folder above it. A folder
  named in the map stands for its `mod.rs` (`engine/`) or its crate's `src/lib.rs` (`crate/chunker`).
- Constants (CONSTANTS below): each number ARCHITECTURE.md (and ranking.md, outside its generated
  table) states about the code equals the constant it describes.
- Commands and paths cited in docs/*.md, README.md, CONTRIBUTING.md, Cargo.toml,
  crate/**/Cargo.toml and package.json: every `npm run X` is a script of package.json; every
  path in the repository (crate/…, plugin/…, scripts/…, tests/…, docs/…, skill/…, fuzz/…) exists,
  templates and globs (`v<N>/`, `*.test.ts`) and fuzz/corpus/ (made by a run) left alone; every backticked Rust path `module::ITEM` whose first segment is a module
  of crate/src (or `strata_chunker::…`, a workspace crate) names an item (fn, const, static, struct,
  enum, type, mod, trait, macro) defined in that module's file or folder; further segments
  (`language::Stem::PREFIX`) must occur there.

Prints each problem as `file:line: what is wrong` and exits 1 if there is any.

Usage: scripts/check-docs.py [--quiet] [--architecture PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (the doc, what, the statement with the number as group 1, its unit in the code (the doc's number
# times this is the code's value), the source file, the value in it as group 1). The doc's
# statement must be there: a rewording must update the table.
A = "docs/ARCHITECTURE.md"
R = "docs/ranking.md"
CONSTANTS = [
    (A, "the section token budget", r"more estimated tokens than the budget \((\d+)\)", 1,
     "crate/src/ranking.rs", r"const SECTION_BUDGET: usize = ([^;]+);"),
    (A, "the merge threshold", r"parts under (\d+) tokens are merged", 1,
     "crate/src/ranking.rs", r"const SECTION_MIN: usize = ([^;]+);"),
    (A, "the split depth", r"splitting stops at depth (\d+)", 1,
     "crate/src/ranking.rs", r"const SECTION_MAX_DEPTH: u8 = ([^;]+);"),
    (A, "the lead's tokens", r"opening lines up to about (\d+) tokens", 1,
     "crate/src/ranking.rs", r"const LEAD_TOKENS: usize = ([^;]+);"),
    (A, "characters a token (Latin)", r"else (\d+) characters ≈ 1", 1,
     "crate/src/token_estimate.rs", r"cjk \+ other\.div_ceil\((\d+)\)"),
    (A, "the note size limit", r"notes over (\d+) MB are skipped", 1 << 20,
     "crate/src/config.rs", r"max_note_bytes: (\d[^,]*),"),
    (A, "a first index's commit interval", r"committed every (\d+) s or \d+ MB of text", 1000,
     "plugin/core/reconcile.ts", r"persistEveryMs = opts\.persistEveryMs \?\? ([^;]+);"),
    (A, "a first index's commit size", r"committed every \d+ s or (\d+) MB of text", 1 << 20,
     "plugin/core/reconcile.ts", r"persistEvery = opts\.persistEveryBytes \?\? ([^;]+);"),
    (A, "the source file line limit", r"non-test source file over (\d+) lines", 1,
     "scripts/check-modules.py", r'"--max-lines", type=int, default=(\d+)'),
    (A, "the relaxed build's cosine", r"cosine ≥ ([\d.]+)", 1,
     "scripts/check-relaxed-embedder.mjs", r"worst > ([\d.]+)\)"),
    (A, "bridge.json's mode", r"bridge\.json` \| [^|]*mode (0\d+)", 1,
     "plugin/bridge/loopback.ts", r"mode: (0o\d+)"),
    (R, "the stemmed words' length", r"ASCII words longer than (\d+) letters", 1,
     "crate/src/analyzer/filters.rs", r"t\.len\(\) > (\d+) && t\.bytes\(\)\.all"),
    (R, "characters a token (Latin)", r"other text (\d+) characters a token", 1,
     "crate/src/token_estimate.rs", r"cjk \+ other\.div_ceil\((\d+)\)"),
    (R, "the snippet length", r"snippet length: (\d+) characters", 1,
     "crate/src/lexical/search.rs", r"const SNIPPET_CHARS: usize = ([^;]+);"),
    (R, "auto's switch to multilingual", r"multilingual at ≥ (\d+) %", 0.01,
     "crate/src/embed/choice.rs", r"const SWITCH_TO_MULTILINGUAL: f64 = ([^;]+);"),
    (R, "auto's switch back", r"kept down to (\d+) %", 0.01,
     "crate/src/embed/choice.rs", r"const SWITCH_TO_ENGLISH: f64 = ([^;]+);"),
    (R, "a CJK character's weight", r"a CJK character (\d+) letters", 1,
     "crate/src/embed/choice.rs", r"const CJK_WEIGHT: u64 = ([^;]+);"),
    (R, "MiniLM's input tokens", r"all-MiniLM-L6-v2 (\d+) tokens", 1,
     "crate/model/src/lib.rs", r"model_id: MINILM_L6_V2\.into\(\),[^}]*?max_tokens: (\d+),"),
    (R, "e5's input tokens", r"multilingual-e5-small (\d+) \(", 1,
     "crate/model/src/lib.rs", r"model_id: MULTILINGUAL_E5_SMALL\.into\(\),[^}]*?max_tokens: (\d+),"),
]

# A path in the repository, cited anywhere in a cited file (a template like `v<N>/` or a glob is
# left alone), and the folders that only a run makes.
REPO_PATH = re.compile(r"(?<![\w./-])(?:\./)?((?:crate|plugin|scripts|tests|skill|fuzz|docs)/[\w.@/-]*)")
MADE_BY_RUNS = ("fuzz/corpus",)

RUST_ITEM = r"(?:pub(?:\([\w:]+\))?\s+)?(?:unsafe\s+|const\s+|async\s+|extern\s+\"C\"\s+)*(?:fn|const|static|struct|enum|type|mod|trait|union|macro_rules!)\s+"
BACKTICK = re.compile(r"`([^`\n]+)`")


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, path: Path, line: int, what: str) -> None:
        try:
            name = path.resolve().relative_to(ROOT)
        except ValueError:
            name = path
        self.items.append(f"{name}:{line}: {what}")


def number(expr: str, env: dict[str, int] | None = None) -> float:
    """The value of a constant's expression: `8 * 1024 * 1024`, `64 * MB`, `10_000`, `0o600`."""
    total = 1.0
    for part in expr.split("*"):
        part = part.strip().replace("_", "")
        if env and part in env:
            total *= env[part]
        elif re.fullmatch(r"0o[0-7]+", part):
            total *= int(part[2:], 8)
        else:
            total *= float(part)
    return total


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def doc_files(arch: Path) -> list[Path]:
    docs = sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "ARCHITECTURE.md")
    return [arch, *docs, ROOT / "README.md", ROOT / "CONTRIBUTING.md"]


# ---- format version --------------------------------------------------------------------------

CURRENT_VERSION = [
    re.compile(r"format version \(?(\d+)\)?", re.I),
    re.compile(r"`?FORMAT_VERSION`?\s*(?:=|is|\()\s*(\d+)"),
    re.compile(r"current (?:index )?format(?: version)?\s*\(?(\d+)", re.I),
]


def check_format(arch: Path, problems: Problems) -> None:
    store = ROOT / "crate/src/store.rs"
    code = store.read_text(encoding="utf-8")
    m = re.search(r"pub const FORMAT_VERSION: u32 = (\d+);", code)
    if not m:
        problems.add(store, 1, "no `pub const FORMAT_VERSION: u32 = N;` found (update scripts/check-docs.py)")
        return
    version = int(m.group(1))
    # The constant's doc comment: "N: what changed." for each version.
    doc = "\n".join(re.findall(r"^\s*/// ?(.*)$", code[: m.start()].rsplit("\n\n", 1)[-1], re.M))
    said = {int(n) for n in re.findall(r"(?:^|[.)] )(\d+):", doc, re.M)}
    for v in range(2, version + 1):
        if v not in said:
            problems.add(store, line_of(code, m.start()), f"FORMAT_VERSION's doc comment does not say what version {v} changed")
    for path in doc_files(arch):
        text = path.read_text(encoding="utf-8")
        for pat in CURRENT_VERSION:
            for hit in pat.finditer(text):
                if int(hit.group(1)) != version:
                    problems.add(path, line_of(text, hit.start()), f"states format version {hit.group(1)}; store::FORMAT_VERSION is {version}")
    text = arch.read_text(encoding="utf-8")
    h = re.search(r"^Format versions:(.*?)(?:\n\s*\n|\Z)", text, re.M | re.S)
    if not h:
        problems.add(arch, 1, 'no "Format versions:" paragraph (the history of the index format)')
        return
    para = h.group(1)
    listed = {int(n) for n in re.findall(r"(?:^|;)\s*(\d+)\s+(?=\S)", para)}
    for v in range(2, version + 1):
        if v not in listed:
            problems.add(arch, line_of(text, h.start()), f'"Format versions:" does not say what version {v} changed (the code is at {version})')
    for v in sorted(listed):
        if v > version:
            problems.add(arch, line_of(text, h.start()), f'"Format versions:" describes version {v}; store::FORMAT_VERSION is {version}')


# ---- module map ------------------------------------------------------------------------------


def is_test(rel: Path) -> bool:
    return rel.stem == "tests" or rel.stem.endswith("_tests") or "tests" in rel.parts[:-1]


def workspace_crates() -> dict[str, Path]:
    """Crate name (as a Rust path segment) → its folder, for every workspace member and every
    crate/<name>/ with a Cargo.toml (a member the list misses is checked all the same)."""
    text = (ROOT / "Cargo.toml").read_text(encoding="utf-8")
    m = re.search(r"members\s*=\s*\[([^\]]*)\]", text)
    members = set(re.findall(r'"([^"]+)"', m.group(1) if m else ""))
    members |= {str(p.parent.relative_to(ROOT)) for p in (ROOT / "crate").glob("*/Cargo.toml")}
    out: dict[str, Path] = {}
    for member in sorted(members):
        toml = ROOT / member / "Cargo.toml"
        if toml.exists():
            n = re.search(r'^name\s*=\s*"([^"]+)"', toml.read_text(encoding="utf-8"), re.M)
            if n:
                out[n.group(1).replace("-", "_")] = ROOT / member
    return out


def source_files() -> list[Path]:
    files: list[Path] = []
    for crate in workspace_crates().values():
        src = crate / "src"
        files += [f for f in src.rglob("*.rs") if not is_test(f.relative_to(src))]
    plugin = ROOT / "plugin"
    files += [f for f in plugin.rglob("*.ts") if not {"generated", "node_modules"} & set(f.relative_to(plugin).parts)]
    return sorted(set(files))


FILE_NAME = re.compile(r"^[\w.@-]+(?:/[\w.@-]+)*\.(?:rs|ts)$")
FOLDER_NAME = re.compile(r"^(?:[\w@-]+/)+$|^[\w@-]+(?:/[\w@-]+)+$")
REPO_TOPS = ("crate/", "plugin/", "scripts/", "tests/", "docs/", "skill/")


def check_map(arch: Path, problems: Problems) -> None:
    text = arch.read_text(encoding="utf-8")
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("## Module map")), None)
    if start is None:
        problems.add(arch, 1, 'no "## Module map" section')
        return
    end = len(lines)
    for i in range(start + 1, len(lines)):
        if lines[i].startswith("## ") or (lines[i].startswith("### ") and "`" not in lines[i]):
            end = i
            break
    # Units: a table row, a heading, or a paragraph (its lines joined), with its first line.
    units: list[tuple[int, str]] = []
    para: list[str] = []
    para_at = 0
    for i in range(start + 1, end):
        l = lines[i]
        if l.strip() == "" or l.startswith("|") or l.startswith("#"):
            if para:
                units.append((para_at, " ".join(para)))
                para = []
            if l.strip():
                units.append((i + 1, l))
        else:
            if not para:
                para_at = i + 1
            para.append(l)
    if para:
        units.append((para_at, " ".join(para)))

    def chain(base: Path) -> list[Path]:
        out = [base]
        while out[-1] != ROOT:
            out.append(out[-1].parent)
        return out

    def folder(name: str, current: list[Path], base: Path) -> Path | None:
        for d in current + chain(base):
            p = d / name.rstrip("/")
            if p.is_dir():
                return p
        return None

    named: set[Path] = set()
    bases: list[tuple[Path, int]] = []
    base = ROOT
    for at, unit in units:
        tokens = BACKTICK.findall(unit)
        heading = unit.startswith("#")
        bold = unit.startswith("**`")
        current: list[Path] = []
        for k, tok in enumerate(tokens):
            tok = tok.strip()
            if FOLDER_NAME.match(tok) and not FILE_NAME.match(tok):
                d = folder(tok, current, base)
                if d is None:
                    if tok.startswith(REPO_TOPS):
                        problems.add(arch, at, f"the module map names the folder {tok}, which does not exist")
                    continue
                if (heading or bold) and k == 0:
                    base = d
                    bases.append((d, at))
                current = [d] + ([d / "src"] if (d / "Cargo.toml").exists() else [])
                for root in (d / "mod.rs", d / "src" / "lib.rs"):
                    if root.exists():
                        named.add(root.resolve())
            elif FILE_NAME.match(tok):
                found = next((d / tok for d in current + chain(base) if (d / tok).is_file()), None)
                if found is None:
                    problems.add(arch, at, f"the module map names {tok}, which does not exist")
                else:
                    named.add(found.resolve())
    for f in source_files():
        if f.resolve() in named:
            continue
        at = max(((b, a) for b, a in bases if f.is_relative_to(b)), key=lambda e: len(e[0].parts), default=(None, start + 1))[1]
        problems.add(arch, at, f"the module map does not name {f.relative_to(ROOT)}")


# ---- constants -------------------------------------------------------------------------------


def check_constants(arch: Path, problems: Problems) -> None:
    for doc, what, doc_re, unit, src, src_re in CONSTANTS:
        doc_path = arch if doc == A else ROOT / doc
        text = doc_path.read_text(encoding="utf-8")
        path = ROOT / src
        code = path.read_text(encoding="utf-8") if path.exists() else ""
        m = re.search(src_re, code)
        if not m:
            problems.add(path, 1, f"{what}: /{src_re}/ not found (update CONSTANTS in scripts/check-docs.py)")
            continue
        env = {k: int(number(v)) for k, v in re.findall(r"const (\w+) = ([\d_ *]+);", code)}
        value = number(m.group(1), env)
        hits = list(re.finditer(doc_re, text))
        if not hits:
            problems.add(doc_path, 1, f"{what}: /{doc_re}/ not found (update CONSTANTS in scripts/check-docs.py)")
        for h in hits:
            stated = number(h.group(1)) * unit if not h.group(1).startswith("0") or "." in h.group(1) else int(h.group(1), 8)
            if abs(stated - value) > 1e-9 * max(1.0, abs(value)):
                shown = value / unit if unit != 1 else value
                problems.add(doc_path, line_of(text, h.start()), f"{what}: states {h.group(1)}; {src} has {m.group(1).strip()} ({shown:g})")


# ---- commands, scripts and Rust paths --------------------------------------------------------


def cited_files(arch: Path) -> list[Path]:
    crates = sorted(p for p in (ROOT / "crate").rglob("Cargo.toml") if "target" not in p.relative_to(ROOT).parts)
    return doc_files(arch) + [ROOT / "Cargo.toml", *crates, ROOT / "package.json"]


def module_files(d: Path, seg: str) -> tuple[list[Path], Path | None]:
    """The files of module `seg` inside the module folder `d`, and its own folder."""
    files = []
    if (d / f"{seg}.rs").is_file():
        files.append(d / f"{seg}.rs")
    sub = d / seg
    if sub.is_dir():
        files += sorted(sub.rglob("*.rs"))
    return files, (sub if files else None)


def check_rust_path(path: str, crates: dict[str, Path]) -> str | None:
    """Why a Rust path `module::ITEM` does not resolve, or None when it does (or is not ours)."""
    segs = path.split("::")
    if segs[0] == "crate":
        segs = segs[1:]
    core_src = ROOT / "crate/src"
    if segs[0] in crates and segs[0] != "strata_core" and len(segs) > 1:
        d = crates[segs[0]] / "src"
        files = sorted(d.rglob("*.rs"))
        segs = segs[1:]
    else:
        if segs[0] == "strata_core":
            segs = segs[1:]
        files, d = module_files(core_src, segs[0])
        if not files or len(segs) < 2:
            return None
        segs = segs[1:]
    # Descend through submodules while there is a folder or file for the segment.
    while len(segs) > 1 and d is not None:
        sub_files, sub = module_files(d, segs[0])
        if not sub_files:
            break
        files, d, segs = sub_files, sub, segs[1:]
    code = "\n".join(f.read_text(encoding="utf-8") for f in files)
    item, rest = segs[0], segs[1:]
    if not re.search(RUST_ITEM + re.escape(item) + r"\b", code) and not (
        d is not None and module_files(d, item)[0]
    ):
        return f"no item `{item}` in {', '.join(str(f.relative_to(ROOT)) for f in files[:1])}{' …' if len(files) > 1 else ''}"
    for r in rest:
        if not re.search(r"\b" + re.escape(r) + r"\b", code):
            return f"`{r}` does not occur in the module of `{item}`"
    return None


def check_citations(arch: Path, problems: Problems) -> None:
    pkg = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    scripts = set(pkg.get("scripts", {}))
    crates = workspace_crates()
    core_modules = {p.stem for p in (ROOT / "crate/src").glob("*.rs")} | {p.name for p in (ROOT / "crate/src").iterdir() if p.is_dir()}
    core_modules -= {"lib"}
    path_re = re.compile(r"(?<![\w:])((?:crate::|[a-z_][a-z0-9_]*::)(?:[A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)")
    for path in cited_files(arch):
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"npm run ([\w:.-]*[\w])", text):
            if m.group(1) not in scripts:
                problems.add(path, line_of(text, m.start()), f"`npm run {m.group(1)}`: package.json has no script {m.group(1)}")
        for m in REPO_PATH.finditer(text):
            p = m.group(1).rstrip(".,:-/")
            if text[m.end() : m.end() + 1] in ("<", "*", "{", "…") or p.startswith(MADE_BY_RUNS):
                continue
            if not (ROOT / p).exists():
                problems.add(path, line_of(text, m.start()), f"{p} does not exist")
        fenced = False
        for n, line in enumerate(text.split("\n"), 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            for span in BACKTICK.findall(line):
                for pm in path_re.finditer(span):
                    rust = pm.group(1)
                    first = rust.split("::")[1] if rust.startswith("crate::") else rust.split("::")[0]
                    if first not in core_modules and first not in crates:
                        continue
                    why = check_rust_path(rust, crates)
                    if why:
                        problems.add(path, n, f"`{rust}`: {why}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quiet", action="store_true", help="print nothing when every check passes")
    ap.add_argument("--architecture", default=str(ROOT / "docs/ARCHITECTURE.md"), help="the ARCHITECTURE.md to check (a copy, to test the checker)")
    args = ap.parse_args()
    arch = Path(args.architecture)
    problems = Problems()
    check_format(arch, problems)
    check_map(arch, problems)
    check_constants(arch, problems)
    check_citations(arch, problems)
    for p in problems.items:
        print(p)
    if problems.items:
        print(f"check-docs: {len(problems.items)} problem(s)", file=sys.stderr)
        return 1
    if not args.quiet:
        print("check-docs: format version, module map, constants and citations agree with the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
