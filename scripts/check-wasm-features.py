#!/usr/bin/env python3
"""Checks that the wasm32 builds compile their shared dependencies with the same features.

scripts/build-wasm.sh builds the core and the embedder for wasm32 in one cargo invocation and the
code chunker in another (built with the core, its features would put the grammars in the core);
./test.sh's wasm32 lint builds the core alone. Cargo compiles a crate once per distinct feature
set: where the embedder turns on a feature of a crate the core also uses (tokenizers wants regex's
`perf`, tract wants num-traits' `libm`, ...), the core built alone would compile that crate and
every crate above it (tantivy among them) a second time, and so would the chunker's build for the
crates it shares. The core's and the chunker's Cargo.toml name those features themselves (the
core's behind its feature `unify-deps`, which build-wasm.sh turns on in the release profile), so
every shared crate is compiled once.

The same holds for the proc macros, compiled for the host: where syn's features differ, every
proc macro built on it is compiled again, and so is every crate using one (tantivy). The crates'
build-dependencies (and their empty build.rs, without which cargo ignores them) name those.

This prints each crate whose features differ between the builds (the target side, and syn and
the other crates only proc macros use) and exits 1 if any does: a dependency update that adds a
feature shows here, with the features to add to crate/Cargo.toml or crate/chunker/Cargo.toml.

Usage: scripts/check-wasm-features.py [--quiet]
"""

import subprocess
import sys
from pathlib import Path

BUILDS = {
    "core and embedder": ["-p", "strata-core", "-p", "strata-embedder", "--no-default-features", "--features",
                          "strata-core/bindings,strata-core/unify-deps"],
    "core": ["-p", "strata-core", "--no-default-features", "--features", "bindings,unify-deps"],
    "chunker": ["-p", "strata-chunker", "--features", "bindings"],
}


# Crates that only proc macros (the host side) use: their features, compared with the proc macros'.
HOST_ONLY = ("syn ", "proc-macro2 ", "quote ")


def features(args, edges="normal,no-proc-macro"):
    """{crate version: set of features} of one build's dependency graph (by default its target
    side; with build and proc-macro edges, the crates of HOST_ONLY are the host's)."""
    cmd = ["cargo", "tree", "--locked", "--target", "wasm32-unknown-unknown", "--prefix", "none",
           "-e", edges, "-f", "{p}|{f}", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    found = {}
    for line in out.splitlines():
        line = line.replace(" (*)", "").strip()
        if "|" not in line:
            continue
        package, feats = line.split("|", 1)
        found[package.split(" (")[0]] = {f for f in feats.split(",") if f}
    return found


def main():
    quiet = "--quiet" in sys.argv[1:]
    graphs = {name: features(args) for name, args in BUILDS.items()}
    for name, args in BUILDS.items():
        host = features(args, "normal,build")
        graphs[name].update({c: f for c, f in host.items() if c.startswith(HOST_ONLY)})
    crates = set().union(*graphs.values())
    bad = 0
    for crate in sorted(crates):
        if crate.startswith("strata-"):
            continue
        sets = {name: g[crate] for name, g in graphs.items() if crate in g}
        if len(sets) < 2:
            continue
        union = set().union(*sets.values())
        lacking = {name: sorted(union - s) for name, s in sets.items() if union - s}
        if lacking:
            bad += 1
            what = "; ".join(f"{name} lacks {', '.join(f)}" for name, f in lacking.items())
            print(f"check-wasm-features: {crate}: {what}", file=sys.stderr)
    if bad:
        print(f"check-wasm-features: {bad} shared crates would be compiled twice: name those "
              "features in crate/Cargo.toml or crate/chunker/Cargo.toml (their wasm32 dependencies; syn: their build-dependencies)",
              file=sys.stderr)
        return 1
    if not quiet:
        print(f"check-wasm-features: {len(crates)} crates, the same features in every wasm build")
    return 0


if __name__ == "__main__":
    sys.exit(main())
