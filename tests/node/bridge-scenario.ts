// The tool checks both bridge modes run (headless, and forwarded to a running plugin), on a
// temp copy of the fixture vault with the write tools enabled.

import assert from "node:assert/strict";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import type { TestContext } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createPatch } from "diff";

import { fileHash, ok, refused, sha256, TOOL_NAMES, waitEmbedded } from "./bridge-helpers.ts";
import { MODEL, NEEDS_MODEL } from "./helpers.ts";

const PLUGIN_DIR = ".obsidian/plugins/strata-search";

/** `noticeDisk`: tells the serving side about a file the test wrote or removed on disk itself
 *  (Obsidian's file watcher); the headless bridge reads the disk as it is. */
export async function exerciseTools(
  t: TestContext,
  client: Client,
  vault: string,
  noticeDisk: (rel: string) => Promise<void> = async () => {},
): Promise<void> {
  await t.test("lists the tools with schemas and annotations", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name).sort(), TOOL_NAMES);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, "object");
      assert.ok(tool.description && tool.description.length > 40, `${tool.name} has a description for the model`);
      assert.equal(typeof tool.annotations?.readOnlyHint, "boolean", `${tool.name} has annotations`);
    }
    const byName = new Map(tools.map((x) => [x.name, x]));
    for (const n of ["search", "read", "similar", "list", "tasks", "query", "status"])
      assert.equal(byName.get(n)!.annotations!.readOnlyHint, true);
    assert.equal(byName.get("apply_patch")!.annotations!.destructiveHint, true);
    assert.equal(byName.get("apply_patch")!.annotations!.readOnlyHint, false);
  });

  await t.test("search: compact overview with locations, scores, snippets and section ids", async () => {
    const r = await ok(client, "search", { queries: ["sourdough feeding schedule", "starter refresh", "levain"], top_k: 5 });
    const top = r.data.results[0];
    assert.equal(top.path, "Cooking/Sourdough starter.md");
    assert.match(top.heading_path, /Feeding schedule/);
    assert.ok(top.start_line >= 1 && top.end_line >= top.start_line);
    assert.match(top.section_id, /^Cooking\/Sourdough starter\.md#\d+$/);
    assert.ok(top.snippet.length > 0 && top.snippet.length < 300);
    assert.equal(typeof top.lexical, "number");
    assert.equal(typeof r.data.strong_signal, "boolean");
    assert.ok(r.data.results.length <= 5);
    assert.match(r.text, /Cooking\/Sourdough starter\.md › /);
    // Each note's language, when detected: the language to ask a follow-up in.
    assert.equal(top.lang, "en");
    const zh = await ok(client, "search", { queries: ["泡茶 水温"], mode: "lexical", top_k: 1 });
    assert.equal(zh.data.results[0].path, "中文/茶道笔记.md");
    assert.equal(zh.data.results[0].lang, "zh");
    assert.match(zh.text, /section_id [^)]*; zh\)/);
    // Filters
    const f = await ok(client, "search", { queries: ["fermentation"], filters: { folder: "Cooking" } });
    assert.ok(f.data.results.length > 0);
    assert.ok(f.data.results.every((h: any) => h.path.startsWith("Cooking/")));
    // Bad input: a clear error, not a crash
    await refused(client, "search", { queries: [] }, /queries must hold 1 to 5/);
    await refused(client, "search", { queries: ["a"], top_k: 51 }, /top_k must be between 1 and 50/);
    await refused(client, "search", { query: "a" }, /unknown argument "query"/);
    await refused(client, "search", { queries: ["a"], filters: { folder: "../x" } }, /may not leave the vault/);
  });

  await t.test("read: by heading, by lines, by section id; with the note's content hash", async () => {
    const file = path.join(vault, "Cooking/Sourdough starter.md");
    const hash = await fileHash(file);
    const h = await ok(client, "read", { path: "Cooking/Sourdough starter.md", heading: "Hydration" });
    assert.match(h.data.text, /^## Hydration/);
    assert.equal(h.data.content_hash, hash);
    assert.equal(h.data.start_line, 41);
    assert.equal(h.data.lang, "en");
    const lines = await ok(client, "read", { path: "Cooking/Sourdough starter.md", start_line: 11, max_lines: 3 });
    assert.equal(lines.data.start_line, 11);
    assert.match(lines.data.text, /^# Sourdough starter/);
    assert.ok(lines.data.text.split("\n").length <= 3);
    const s = await ok(client, "read", { path: "Cooking/Sourdough starter.md", section_id: "Cooking/Sourdough starter.md#2" });
    assert.match(s.data.text, /Hydration/);
    const cut = await ok(client, "read", { path: "Cooking/Sourdough starter.md", whole: true, max_chars: 200 });
    assert.equal(cut.data.truncated, true);
    assert.match(cut.text, /continue with start_line \d+/);
    await refused(client, "read", { path: "Cooking/Sourdough starter.md", heading: "No such heading" }, /no heading/);
    await refused(client, "read", { path: "Nope.md" }, /not in the index/);
    await refused(client, "read", { path: "Cooking/Sourdough starter.md", section_id: "Welcome.md#0" }, /does not belong/);
  });

  await t.test("list and status", async () => {
    const l = await ok(client, "list", { folder: "日本語" });
    assert.equal(l.data.total, 3);
    assert.ok(l.data.entries.every((e: any) => e.path.startsWith("日本語/")));
    const st = await ok(client, "status");
    assert.ok(st.data.notes >= 14);
    assert.equal(st.data.write_tools_enabled, true);
  });

  await t.test("similar (needs the embedding model)", NEEDS_MODEL, async () => {
    assert.ok(MODEL);
    await waitEmbedded(client);
    const r = await ok(client, "similar", { path: "Cooking/Sourdough starter.md", top_k: 3 });
    assert.ok(r.data.results.length > 0);
    assert.ok(r.data.results.every((h: any) => h.path !== "Cooking/Sourdough starter.md"));
    assert.ok(
      r.data.results.some((h: any) => h.path.startsWith("Cooking/")),
      JSON.stringify(r.data.results.map((h: any) => h.path)),
    );
  });

  await t.test("apply_patch: replace a section, a unified diff, refused on a stale hash; audited", async () => {
    const rel = "Garden/Drip irrigation.md";
    const file = path.join(vault, rel);
    const before = await readFile(file, "utf8");
    const r = await ok(client, "read", { path: rel, whole: true, max_chars: 20000 });
    assert.equal(r.data.content_hash, sha256(before));
    const heading = r.data.text
      .split("\n")
      .find((l: string) => /^## /.test(l))!
      .slice(3);
    const p = await ok(client, "apply_patch", {
      path: rel,
      expected_hash: r.data.content_hash,
      edit: { type: "replace_section", heading, content: "Zanzibarquokka emitters replaced everything here." },
      reason: "test: replace a section",
    });
    const after = await readFile(file, "utf8");
    assert.equal(p.data.new_hash, sha256(after));
    assert.match(after, new RegExp(`## ${heading}\\n\\nZanzibarquokka emitters replaced everything here\\.\\n`));
    assert.equal(after.split("\n").filter((l) => l === `## ${heading}`).length, 1);
    // The rest of the note is untouched.
    const otherHeadings = before.split("\n").filter((l) => /^#/.test(l) && l !== `## ${heading}`);
    for (const h of otherHeadings) assert.ok(after.includes(h), `kept ${h}`);
    // Searchable right away.
    const s = await ok(client, "search", { queries: ["zanzibarquokka"], mode: "lexical" });
    assert.equal(s.data.results[0]?.path, rel);
    // Stale hash: refused, nothing written.
    await refused(
      client,
      "apply_patch",
      { path: rel, expected_hash: r.data.content_hash, edit: { type: "replace_section", heading, content: "again" }, reason: "stale" },
      /changed since you read it/,
    );
    assert.equal(await readFile(file, "utf8"), after);
    // A unified diff made against the current text.
    const target = after.replace("Zanzibarquokka emitters", "Zanzibarquokka drippers");
    const diff = createPatch(rel, after, target);
    const d = await ok(client, "apply_patch", {
      path: rel,
      expected_hash: p.data.new_hash,
      edit: { type: "unified_diff", diff },
      reason: "test: diff",
    });
    assert.equal(await readFile(file, "utf8"), target);
    assert.equal(d.data.new_hash, sha256(target));
    // A diff that does not apply: refused, nothing written.
    await refused(
      client,
      "apply_patch",
      { path: rel, expected_hash: d.data.new_hash, edit: { type: "unified_diff", diff }, reason: "does not apply" },
      /does not apply/,
    );
    assert.equal(await readFile(file, "utf8"), target);
    // Audit log (JSON lines) and CHANGELOG.md.
    const audit = (await readFile(path.join(vault, PLUGIN_DIR, "audit.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const mine = audit.filter((e) => e.tool === "apply_patch" && e.path === rel);
    assert.equal(mine.length, 2);
    assert.equal(mine[0].old_hash, sha256(before));
    assert.equal(mine[0].new_hash, sha256(after));
    assert.equal(mine[0].reason, "test: replace a section");
    assert.ok(!Number.isNaN(Date.parse(mine[0].time)));
    const changelog = await readFile(path.join(vault, "Strata/CHANGELOG.md"), "utf8");
    assert.match(changelog, /apply_patch · \[\[Garden\/Drip irrigation\]\] · test: replace a section/);
    // Garbage edits.
    await refused(
      client,
      "apply_patch",
      { path: rel, expected_hash: "abc", edit: { type: "unified_diff", diff }, reason: "x" },
      /64-character/,
    );
    await refused(
      client,
      "apply_patch",
      { path: rel, expected_hash: d.data.new_hash, edit: { type: "rewrite" }, reason: "x" },
      /edit.type must be/,
    );
    assert.equal(await readFile(file, "utf8"), target);
  });

  await t.test("apply_patch finds headings as read does: setext headings count, a # line in a code block does not", async () => {
    const rel = "Garden/Setext.md";
    const file = path.join(vault, rel);
    const code = ["```sh", "# not a heading: a shell comment", "echo water", "```"];
    const before = [
      "Setext title",
      "============",
      "",
      "Intro line.",
      "",
      "Part one",
      "--------",
      "",
      "Old part one.",
      "",
      ...code,
      "",
      "Part two",
      "--------",
      "",
      "Old part two.",
      "",
    ].join("\n");
    await writeFile(file, before);
    await noticeDisk(rel);
    // A setext heading is found by its text; its underline stays, the code block above is untouched.
    const p = await ok(client, "apply_patch", {
      path: rel,
      expected_hash: sha256(before),
      edit: { type: "replace_section", heading: "Part two", content: "New part two." },
      reason: "test: setext",
    });
    const after = await readFile(file, "utf8");
    assert.equal(after, before.replace("Old part two.", "New part two."));
    // The section of a setext heading ends at the next heading of its level, not at the # line in the code.
    const q = await ok(client, "apply_patch", {
      path: rel,
      expected_hash: p.data.new_hash,
      edit: { type: "replace_section", heading: "Setext title > Part one", content: "New part one." },
      reason: "test: setext section",
    });
    const final = await readFile(file, "utf8");
    assert.equal(
      final,
      [
        "Setext title",
        "============",
        "",
        "Intro line.",
        "",
        "Part one",
        "--------",
        "",
        "New part one.",
        "",
        "Part two",
        "--------",
        "",
        "New part two.",
        "",
      ].join("\n"),
    );
    // The # line in the code block was never a heading.
    await refused(
      client,
      "apply_patch",
      {
        path: rel,
        expected_hash: q.data.new_hash,
        edit: { type: "replace_section", heading: "not a heading: a shell comment", content: "x" },
        reason: "x",
      },
      /no heading "not a heading: a shell comment" in the note; its headings are: "Setext title", "Setext title > Part one", "Setext title > Part two"/,
    );
    await rm(file);
    await noticeDisk(rel);
  });

  await t.test("session_save and session_compact", async () => {
    const first = await ok(client, "session_save", {
      overview: "Planned the quokkaberry garden beds.",
      decisions: ["Use drip lines"],
      outcomes: ["A bed plan"],
      open_items: ["Buy emitters"],
      sources: ["Garden/Drip irrigation.md"],
      tags: ["garden"],
    });
    const id = first.data.session_id;
    assert.match(id, /^s-\d{8}-\d{6}-[0-9a-f]{4}$/);
    const rel = first.data.path;
    assert.equal(rel, `Strata/Sessions/${id}.md`);
    await ok(client, "session_save", {
      session_id: id,
      overview: "Ordered parts.",
      outcomes: ["Order placed"],
      sources: ["Projects/Bicycle rebuild.md"],
    });
    await ok(client, "session_save", { session_id: id, overview: "Installed the lines.", decisions: ["Water at dawn"] });
    let text = await readFile(path.join(vault, rel), "utf8");
    assert.match(text, /^---\n/);
    assert.match(text, /\nstatus: active\n/);
    assert.match(text, /\nentries: 3\n/);
    assert.equal((text.match(/^## Entry /gm) ?? []).length, 3);
    // Indexed like any note.
    const s = await ok(client, "search", { queries: ["quokkaberry"], mode: "lexical" });
    assert.equal(s.data.results[0]?.path, rel);
    const c = await ok(client, "session_compact", { session_id: id, keep_last: 1 });
    assert.equal(c.data.folded, 2);
    text = await readFile(path.join(vault, rel), "utf8");
    assert.match(text, /\nstatus: compacted\n/);
    assert.equal((text.match(/^## Entry /gm) ?? []).length, 1);
    assert.match(text, /## Summary/);
    assert.match(text, /\[\[Garden\/Drip irrigation\]\]/);
    assert.match(text, /\[\[Projects\/Bicycle rebuild\]\]/);
    assert.match(text, /Use drip lines/);
    assert.match(text, /Installed the lines\./); // the kept entry
    // Nothing more to fold: no write.
    const again = await ok(client, "session_compact", { session_id: id, keep_last: 1 });
    assert.equal(again.data.folded, 0);
    assert.equal(await readFile(path.join(vault, rel), "utf8"), text);
    await refused(client, "session_save", { session_id: "s-nope", overview: "x" }, /no session/);
    await refused(client, "session_save", { session_id: "../../x", overview: "x" }, /not an id/);
  });

  await t.test("memory_save and memory_search: levels, parents, expiry, usage", async () => {
    const p = await ok(client, "memory_save", {
      level: "project",
      text: "The wombatfern project targets balcony gardens.",
      confidence: 0.9,
    });
    const task = await ok(client, "memory_save", {
      level: "task",
      parent_id: p.data.memory_id,
      text: "Wombatfern task: choose drip emitters for pots.",
    });
    const sub = await ok(client, "memory_save", {
      level: "subtask",
      parent_id: task.data.memory_id,
      text: "Wombatfern subtask: 2 l/h emitters fit the pots.",
      metadata: { source: "test", n: 2 },
    });
    const short = await ok(client, "memory_save", {
      level: "task",
      parent_id: p.data.memory_id,
      text: "Wombatfern task: temporary note about a sale.",
      ttl_days: 0.00001,
    });
    const front = await readFile(path.join(vault, sub.data.path), "utf8");
    assert.match(front, /\nlevel: subtask\n/);
    assert.match(front, new RegExp(`\\nparent: ${task.data.memory_id}\\n`));
    assert.match(front, /\npromoted: false\n/);
    await new Promise((r) => setTimeout(r, 1200));
    const tasks = await ok(client, "memory_search", { query: "wombatfern", level: "task" });
    const ids = tasks.data.results.map((m: any) => m.id);
    assert.deepEqual(ids, [task.data.memory_id]);
    assert.deepEqual(
      tasks.data.expired_for_review.map((m: any) => m.id),
      [short.data.memory_id],
    );
    // The expired memory is still on disk.
    assert.ok((await stat(path.join(vault, short.data.path))).isFile());
    const under = await ok(client, "memory_search", { parent_id: p.data.memory_id, include_expired: true });
    assert.deepEqual(under.data.results.map((m: any) => m.id).sort(), [task.data.memory_id, short.data.memory_id].sort());
    const both = await ok(client, "memory_search", { query: "wombatfern emitters", level: ["project", "subtask"] });
    assert.deepEqual(both.data.results.map((m: any) => m.level).sort(), ["project", "subtask"]);
    // Usage is counted in the catalog on retrieval, the notes are not rewritten.
    const noteBefore = await readFile(path.join(vault, task.data.path), "utf8");
    const again = await ok(client, "memory_search", { query: "wombatfern", level: "task" });
    assert.ok(again.data.results[0].used && again.data.results[0].used.count >= 1, JSON.stringify(again.data.results[0]));
    assert.equal(await readFile(path.join(vault, task.data.path), "utf8"), noteBefore);
    // Hierarchy and bad input.
    await refused(client, "memory_save", { level: "project", parent_id: p.data.memory_id, text: "x" }, /has no parent/);
    await refused(client, "memory_save", { level: "task", parent_id: sub.data.memory_id, text: "x" }, /must be a higher level/);
    await refused(client, "memory_save", { level: "epic", text: "x" }, /level must be one of/);
    await refused(client, "memory_save", { level: "task", text: "x", ttl_days: -1 }, /ttl_days/);
  });
}
