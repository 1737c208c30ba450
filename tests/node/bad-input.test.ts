// Hostile and broken vault content, made at test time in a temp copy of the fixture vault.

import assert from "node:assert/strict";
import { mkdir, symlink, unlink, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";

import type { StrataCoreApi } from "../../plugin/core/api.ts";
import { type VaultSource } from "../../plugin/core/note-reads.ts";
import { reconcile, type ReconcileSummary } from "../../plugin/core/reconcile.ts";
import { FsIndexStore, NodeVault } from "../../plugin/node/host.ts";
import { cleanupTemps, CONFIG, copyFixture, Core, FIXTURE_NOTES, hashTree, indexDirOf, indexVault, tempDir, topPaths } from "./helpers.ts";

after(cleanupTemps);

const MB = 1024 * 1024;

describe("bad input", () => {
  let vault: string;
  let outside: string;
  let core: StrataCoreApi;
  let sum: ReconcileSummary;
  let before_: Map<string, string>;

  before(async () => {
    vault = await copyFixture();
    outside = await tempDir("strata-outside-");
    const w = (rel: string, data: string | Uint8Array) => writeFile(path.join(vault, rel), data);
    await mkdir(path.join(vault, "bad"));
    await w(
      "bad/invalid utf8.md",
      Buffer.concat([
        Buffer.from("# Broken bytes\n\nutfprobe before "),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xa0]),
        Buffer.from(" after\n"),
      ]),
    );
    await w(
      "bad/broken frontmatter.md",
      "---\ntitle: [unclosed\n  : : - nope\n\tbad: {\n---\n# Body heading\n\nfrontmatterprobe lives in the body.\n",
    );
    await w("bad/unterminated frontmatter.md", "---\ntitle: never closed\n\nunterminatedprobe text\n");
    const bin = Buffer.alloc(64 * 1024);
    for (let i = 0; i < bin.length; i++) bin[i] = (i * 7919 + 13) % 256;
    await w("bad/binary.md", bin);
    await w("bad/empty.md", "");
    await w("bad/whitespace.md", "\n\n   \n");
    // 50 MB of Markdown: must be skipped (or indexed) without running out of memory.
    const line = "hugeprobe filler words for a very large note that nobody should keep in a vault\n";
    await w("bad/huge.md", line.repeat(Math.ceil((50 * MB) / line.length)));
    await w("bad/data.csv", "a,b\n1,2\n");
    await w("bad/picture.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    for (const hidden of [".hidden", ".trash", ".git", ".obsidian"]) {
      await mkdir(path.join(vault, hidden), { recursive: true });
      await w(`${hidden}/secret.md`, `# Secret\n\nhiddenprobe in ${hidden}\n`);
    }
    await w(".dotnote.md", "hiddenprobe in a dot file\n");
    await writeFile(path.join(outside, "escape.md"), "# Outside\n\noutsideprobe must never be indexed\n");
    await mkdir(path.join(outside, "dir"));
    await writeFile(path.join(outside, "dir", "inner.md"), "outsideprobe in a linked folder\n");
    await symlink(path.join(outside, "escape.md"), path.join(vault, "bad/link to outside.md"));
    await symlink(path.join(outside, "dir"), path.join(vault, "linked folder"));
    await symlink("../Welcome.md", path.join(vault, "bad/link inside.md"));

    before_ = await hashTree(vault, [".obsidian/plugins"]);
    const r = await indexVault(vault);
    core = r.core;
    sum = r.summary;
  });

  const skippedPaths = () => sum.skipped.map((s) => s.path);
  const warned = (p: string) => sum.warnings.some((w) => w.path === p);

  test("the indexer never writes to notes", async () => {
    const after_ = await hashTree(vault, [".obsidian/plugins"]);
    assert.deepEqual(after_, before_);
  });

  test("fixture notes are all indexed and findable", () => {
    for (const p of FIXTURE_NOTES) assert.ok(core.paths().includes(p), p);
    assert.equal(topPaths(core, "levain")[0], "Cooking/Sourdough starter.md");
  });

  test("invalid UTF-8 is decoded lossily, indexed and reported", () => {
    assert.ok(core.paths().includes("bad/invalid utf8.md"));
    assert.equal(topPaths(core, "utfprobe")[0], "bad/invalid utf8.md");
    assert.ok(warned("bad/invalid utf8.md"), JSON.stringify(sum.warnings));
  });

  test("broken frontmatter: the body is indexed and the problem reported", () => {
    assert.equal(topPaths(core, "frontmatterprobe")[0], "bad/broken frontmatter.md");
    assert.ok(warned("bad/broken frontmatter.md"), JSON.stringify(sum.warnings));
    assert.ok(core.paths().includes("bad/unterminated frontmatter.md"));
    assert.ok(topPaths(core, "unterminatedprobe").includes("bad/unterminated frontmatter.md"));
  });

  test("a 50 MB note is skipped with a reason, not read", () => {
    assert.ok(skippedPaths().includes("bad/huge.md"), JSON.stringify(sum.skipped));
    assert.ok(!core.paths().includes("bad/huge.md"));
    assert.deepEqual(topPaths(core, "hugeprobe"), []);
    assert.ok(sum.bytesRead < 5 * MB, `read ${sum.bytesRead} bytes`);
  });

  test("binary bytes, empty and blank notes do not break indexing", () => {
    const handled = (p: string) => core.paths().includes(p) || skippedPaths().includes(p) || warned(p);
    for (const p of ["bad/binary.md", "bad/empty.md", "bad/whitespace.md"]) assert.ok(handled(p), p);
    assert.doesNotThrow(() => core.search({ query: "binary" }));
  });

  test("non-Markdown files are ignored", () => {
    assert.ok(!core.paths().some((p) => p.endsWith(".csv") || p.endsWith(".png")));
    assert.ok(sum.ignored >= 2);
  });

  test("hidden folders and dot files are never indexed", () => {
    assert.ok(!core.paths().some((p) => p.split("/").some((seg) => seg.startsWith("."))), core.paths().join(","));
    assert.deepEqual(topPaths(core, "hiddenprobe"), []);
  });

  test("symlinks are not followed, in or out of the vault", () => {
    assert.deepEqual(topPaths(core, "outsideprobe"), []);
    assert.ok(!core.paths().some((p) => p.startsWith("linked folder") || p.startsWith("bad/link")));
    assert.ok(skippedPaths().includes("bad/link to outside.md"), JSON.stringify(sum.skipped));
  });

  test("'..' and absolute paths are refused by the core and the vault reader", async () => {
    const plan = core.plan([
      { path: "../escape.md", size: 10, mtime: 1 },
      { path: "a/../../escape.md", size: 10, mtime: 1 },
      { path: "/etc/passwd.md", size: 10, mtime: 1 },
    ]);
    assert.deepEqual(plan.read, []);
    assert.equal(plan.skipped.length, 3);
    assert.equal(core.shouldIndex("../escape.md"), false);
    let rep;
    try {
      rep = core.update({ upserts: [{ path: "../escape.md", bytes: new TextEncoder().encode("outsideprobe"), mtime: 1 }] });
    } catch (err) {
      assert.match(String(err), /\[bad-request\]/);
    }
    if (rep) assert.equal(rep.added, 0);
    assert.ok(!core.paths().includes("../escape.md"));
    const reader = new NodeVault(vault);
    await assert.rejects(reader.read("../escape.md"));
    await assert.rejects(reader.read("bad/link to outside.md")); // O_NOFOLLOW
    const store = new FsIndexStore(indexDirOf(vault));
    await assert.rejects(store.write("../evil.bin", new Uint8Array([1])));
  });

  test("50 MB passed straight to update() is skipped or indexed without a crash", () => {
    const fresh = Core.create(CONFIG);
    const big = new Uint8Array(50 * MB).fill(0x61);
    for (let i = 80; i < big.length; i += 81) big[i] = 0x0a;
    const rep = fresh.update({ upserts: [{ path: "direct/huge.md", bytes: big, mtime: 1 }] });
    assert.equal(rep.added + rep.skipped.length + rep.warnings.length > 0, true);
    assert.doesNotThrow(() => fresh.search({ query: "aaaa" }));
    fresh.free();
  });

  test("a note that becomes unreadable between listing and reading is a warning", async () => {
    const copy = await copyFixture();
    const victim = "Inbox/Reading list.md";
    const inner = new NodeVault(copy);
    // The note disappears right after the listing was taken, as when a sync client removes it.
    const vanishing: VaultSource = {
      async list(shouldIndex) {
        const listing = await inner.list(shouldIndex);
        assert.ok(listing.files.some((f) => f.path === victim));
        await unlink(path.join(copy, victim));
        return listing;
      },
      read: (p) => inner.read(p),
    };
    const fresh = Core.create(CONFIG);
    const s = await reconcile(fresh, vanishing);
    assert.ok(
      s.warnings.some((w) => w.path === victim && /unreadable/.test(w.message)),
      JSON.stringify(s.warnings),
    );
    assert.ok(!fresh.paths().includes(victim));
    assert.equal(fresh.paths().length, FIXTURE_NOTES.length - 1);
    fresh.free();
  });
});
