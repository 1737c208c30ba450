// Every tool's result reads well whichever part a client shows the model: Claude Code (and VS
// Code) give the model only `structuredContent` when a result has it, as JSON; others give it
// `content`'s text. For each tool, called over Streamable HTTP on the plugin, both views must
// hold the paths, headings, snippets and next-step hints a person would need.

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

import { connectHttp, TOOL_NAMES, waitEmbedded } from "./bridge-helpers.ts";
import { copyFixtureWithVectors } from "./embedded-fixture.ts";
import { cleanupTemps, MODEL } from "./helpers.ts";
import { eventually, installModel, loadPlugin, unloadPlugin } from "./plugin-env.ts";

after(cleanupTemps);

interface Views {
  /** What a client that shows `content` gives the model. */
  text: string;
  /** What a client that shows only `structuredContent` gives the model (Claude Code: its JSON). */
  json: string;
  data: Record<string, any>;
}

async function views(client: Client, name: string, args: Record<string, unknown>): Promise<Views> {
  const res = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  const text = (res.content as { text: string }[]).map((c) => c.text).join("\n");
  assert.notEqual(res.isError, true, `${name} failed: ${text}`);
  assert.ok(res.structuredContent, `${name} has a structured result`);
  return { text, json: JSON.stringify(res.structuredContent), data: res.structuredContent as Record<string, any> };
}

/** Both views hold every one of `wanted` (in the JSON view as JSON writes a string). */
function shows(v: Views, name: string, wanted: (string | undefined)[]): void {
  for (const w of wanted) {
    assert.ok(typeof w === "string" && w.length > 0, `${name}: an expected string is missing (${String(w)})`);
    assert.ok(v.text.includes(w), `${name}: content's text lacks ${JSON.stringify(w)}:\n${v.text}`);
    assert.ok(v.json.includes(JSON.stringify(w).slice(1, -1)), `${name}: structuredContent lacks ${JSON.stringify(w)}:\n${v.json}`);
  }
  // The readable answer comes first in what Claude Code shows.
  assert.ok(v.json.startsWith('{"answer":"'), `${name}: the structured result starts with its answer`);
}

test("every tool's result holds what a person needs, in content's text and in structuredContent alone", async (t) => {
  // The shared vectors hold the fixture's (the cached copy): the plugin embeds the note added here.
  const vault = await copyFixtureWithVectors();
  await writeFile(
    path.join(vault, "Projects", "Workshop plan.md"),
    "# Workshop plan\n\n## This week\n\n- [ ] Order the quillwheel chainring 📅 2026-12-01\n- [x] Clean the bench\n",
  );
  if (MODEL) await installModel(vault);
  const { plugin } = await loadPlugin(vault, { settings: { bridgeEnabled: true, writeToolsEnabled: true, semantic: Boolean(MODEL) } });
  let client: Client | undefined;
  const covered = new Set<string>();
  const check = async (name: string, args: Record<string, unknown>, wanted: (v: Views) => (string | undefined)[]) => {
    const v = await views(client!, name, args);
    shows(v, name, wanted(v));
    covered.add(name);
    return v;
  };
  try {
    await eventually(async () => plugin.bridge?.port, 10_000, "the endpoint");
    client = await connectHttp(`http://127.0.0.1:${plugin.bridge!.port}/mcp`, plugin.settings.bridgeToken);

    await t.test("read tools", async () => {
      const s = await check("search", { queries: ["sourdough feeding schedule"], top_k: 3 }, (v) => [
        "Cooking/Sourdough starter.md",
        v.data.results[0].heading_path,
        v.data.results[0].section_id,
        v.data.results[0].snippet,
        "read a hit with read {path, section_id}",
      ]);
      assert.match(s.data.results[0].heading_path, /Feeding schedule/);
      await check("search", { queries: ["zzqxnothingmatches"], mode: "lexical" }, () => ["No matches. Try other words"]);
      const r = await check("read", { path: "Cooking/Sourdough starter.md", heading: "Hydration" }, (v) => [
        "Cooking/Sourdough starter.md",
        "Hydration",
        v.data.content_hash,
        v.data.text.split("\n").find((l: string) => l.trim().length > 20),
      ]);
      // The note's text is in `text` once: the answer holds its location, not a second copy.
      const line = r.data.text.split("\n").find((l: string) => l.trim().length > 20) as string;
      assert.equal(r.json.split(JSON.stringify(line).slice(1, -1)).length - 1, 1, "the text once in the structured result");
      await check("read", { path: "Cooking/Sourdough starter.md", whole: true, max_chars: 200 }, () => ["continue with start_line"]);
      await check(
        "read",
        { path: "Cooking/Sourdough starter.md", section_ids: ["Cooking/Sourdough starter.md#1", "Cooking/Sourdough starter.md#2"] },
        (v) => [v.data.sections[0].heading_path, v.data.sections[1].heading_path, v.data.sections[1].text.split("\n")[0]],
      );
      await check("list", { folder: "Cooking", limit: 1 }, (v) => [v.data.entries[0].path, "More: list again with offset 1"]);
      await check("tasks", {}, () => ["Order the quillwheel chainring", "Projects/Workshop plan.md:5"]);
      await check("query", { where: "budget > 100" }, () => ["Projects/Bicycle rebuild.md", "budget: 180"]);
      await check("outline", { path: "Projects/Workshop plan.md" }, () => ["This week", "Order the quillwheel chainring"]);
      await check("status", {}, () => ["notes", "write tools: on"]);
      if (MODEL) {
        await waitEmbedded(client!);
        await check("similar", { path: "Cooking/Sourdough starter.md", top_k: 3 }, (v) => [
          v.data.results[0].path,
          v.data.results[0].sections[0]?.section_id,
        ]);
      } else t.diagnostic("similar: no embedding model in models/, not checked");
    });

    await t.test("write tools and what reads them back", async () => {
      const rel = "Projects/Workshop plan.md";
      const read = await views(client!, "read", { path: rel, whole: true });
      const edit = { type: "replace_section", heading: "This week", content: "- [ ] Order the quillwheel chainring\n- [ ] True the wheel" };
      await check("apply_patch", { path: rel, expected_hash: read.data.content_hash, edit, reason: "plan", dry_run: true }, () => [
        "dry run: nothing was written",
        rel,
        "+- [ ] True the wheel",
      ]);
      const applied = await check("apply_patch", { path: rel, expected_hash: read.data.content_hash, edit, reason: "plan" }, (v) => [
        `applied to ${rel}`,
        v.data.new_hash,
      ]);
      assert.equal(applied.data.applied, true);
      const saved = await check(
        "session_save",
        { overview: "Planned the workshop week.", sources: [rel], decisions: ["True the wheel first"] },
        (v) => [v.data.session_id, v.data.path, `Pass session_id "${v.data.session_id}"`],
      );
      await check("session_save", { session_id: saved.data.session_id, overview: "Ordered the chainring." }, (v) => [v.data.path]);
      await check("session_compact", { session_id: saved.data.session_id, keep_last: 1 }, (v) => [
        `compacted session ${v.data.session_id}`,
        "folded into the summary",
      ]);
      await check(
        "apply_patch",
        { path: rel, expected_hash: applied.data.new_hash, edit: { ...edit, content: "- [ ] Oil the chain" }, reason: "more" },
        () => [rel],
      );
      await check("session_diff", { session_id: saved.data.session_id }, () => [rel, "Next: save the session"]);
      await check("log", { path: "Projects" }, () => [rel, "plan", "apply_patch"]);
      await check("project_snapshot", { folder: "Projects" }, () => [
        "Projects/Bicycle rebuild.md",
        "Oil the chain",
        "True the wheel first",
      ]);
      const m = await check("memory_save", { level: "project", text: "The workshop opens at seven." }, (v) => [
        v.data.memory_id,
        v.data.path,
        "Use it as parent_id",
      ]);
      await check("memory_search", { query: "workshop opens" }, () => [m.data.memory_id, "The workshop opens at seven.", m.data.path]);
    });

    assert.deepEqual(
      [...covered].sort(),
      TOOL_NAMES.filter((n) => MODEL || n !== "similar"),
      "every tool checked",
    );
  } finally {
    await client?.close();
    await unloadPlugin(plugin);
  }
});
