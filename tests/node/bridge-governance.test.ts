// The governance tools through the SDK's Client and the headless bridge: apply_patch with dry_run
// (the diff and the hash an edit would make, nothing written, with the write tools off too; the
// real edit then gives that hash) and log (the audit log as readable entries, with the client that
// asked for each write and the notes it was based on); session_diff (the writes since a session's
// last save) and project_snapshot (a project folder within a character budget).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import { createPatch } from "diff";

import { ok, refused, sha256, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, copyFixture, indexVault, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const NOTE = "Welcome.md";
const AUDIT = ".obsidian/plugins/strata-search/audit.jsonl";

test("apply_patch dry_run: the diff and the resulting hash, nothing written; the edit then gives that hash, and log shows it", async () => {
  const vault = await copyFixture();
  const { core } = await indexVault(vault);
  core.free();
  const file = path.join(vault, NOTE);
  const before = await readFile(file, "utf8");
  const after = before.replace(/\n$/, "") + "\n\nA line the dry run only shows.\n";
  const edit = { type: "unified_diff", diff: createPatch(NOTE, before, after) };

  const readOnly = await spawnBridge([vault, "--no-model"]);
  let preview: Record<string, any>;
  try {
    const r = await ok(readOnly.client, "read", { path: NOTE });
    const args = { path: NOTE, expected_hash: r.data.content_hash, edit, reason: "try it" };
    // Write tools off: the edit is refused, its dry run answers.
    await refused(readOnly.client, "apply_patch", args, /apply_patch is turned off/);
    const dry = await ok(readOnly.client, "apply_patch", { ...args, dry_run: true });
    preview = dry.data;
    assert.equal(preview.applied, false);
    assert.equal(preview.dry_run, true);
    assert.equal(preview.old_hash, sha256(before));
    assert.equal(preview.new_hash, sha256(after));
    assert.match(preview.diff, /^Index: Welcome\.md\n=+\n--- Welcome\.md\n\+\+\+ Welcome\.md\n@@ .* @@\n/);
    assert.match(preview.diff, /\n\+A line the dry run only shows\.\n/);
    assert.match(dry.text, /^dry run: nothing was written\./);
    assert.equal(await readFile(file, "utf8"), before, "the note is untouched");
    assert.ok(!existsSync(path.join(vault, AUDIT)), "no audit entry");
    const empty = await ok(readOnly.client, "log", {});
    assert.equal(empty.data.total, 0);
    assert.match(empty.text, /^the audit log is empty/);
    // A dry run is checked like an edit: a stale hash is refused.
    await refused(readOnly.client, "apply_patch", { ...args, expected_hash: "0".repeat(64), dry_run: true }, /changed since you read it/);
  } finally {
    await readOnly.close();
  }

  const writer = await spawnBridge([vault, "--no-model", "--write-tools"]);
  try {
    const real = { path: NOTE, expected_hash: sha256(before), edit, reason: "now for real" };
    await refused(writer.client, "apply_patch", { ...real, based_on: ["../outside.md"] }, /based_on .*may not leave the vault/);
    const applied = await ok(writer.client, "apply_patch", { ...real, based_on: ["Welcome.md", " Notes/Source.md", "Welcome.md"] });
    assert.equal(applied.data.new_hash, preview.new_hash);
    assert.equal(await readFile(file, "utf8"), after);
    assert.match(await readFile(path.join(vault, AUDIT), "utf8"), /"reason":"now for real"/);

    const log = await ok(writer.client, "log", {});
    assert.equal(log.data.total, 1);
    assert.deepEqual(
      log.data.entries.map((e: Record<string, unknown>) => [e.tool, e.path, e.old_hash, e.new_hash, e.reason, e.actor, e.based_on]),
      [["apply_patch", NOTE, sha256(before), sha256(after), "now for real", "strata-test 1.0.0", ["Welcome.md", "Notes/Source.md"]]],
    );
    assert.match(
      log.text,
      new RegExp(
        `^1 of 1 writes match; the newest 1, oldest first\n\n- \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC · apply_patch · Welcome\\.md · ${sha256(before).slice(0, 8)} → ${sha256(after).slice(0, 8)} · now for real · by strata-test 1\\.0\\.0 · based on Welcome\\.md, Notes/Source\\.md$`,
      ),
    );
    for (const filter of [{ tool: "session_save" }, { path: "Cooking" }, { since: "2999-01-01" }]) {
      assert.equal((await ok(writer.client, "log", filter)).data.matching, 0, JSON.stringify(filter));
    }
    assert.equal((await ok(writer.client, "log", { path: NOTE, since: "2020-01-01T00:00:00Z" })).data.matching, 1);
    await refused(writer.client, "log", { since: "last tuesday" }, /since must be an ISO date/);
    await refused(writer.client, "log", { last: 0 }, /last must be between 1 and 200/);
  } finally {
    await writer.close();
  }
});

test("session_diff: the writes since a session's last save; project_snapshot: a project folder within a budget", async () => {
  const vault = path.join(await tempDir(), "vault");
  await cp(path.join(ROOT, "tests", "fixtures", "tasks-vault"), vault, { recursive: true });
  await writeFile(
    path.join(vault, "Projects/Alpha/Alpha.md"),
    "---\ntype: project\n---\n# Alpha\n\nAlpha ships the new sync engine by December.\n\n## Links\n\n- [[Plan]]\n",
  );
  const { core } = await indexVault(vault);
  core.free();
  const plan = "Projects/Alpha/Plan.md";
  const b = await spawnBridge([vault, "--no-model", "--write-tools"]);
  try {
    const saved = await ok(b.client, "session_save", {
      overview: "Planned Alpha's next steps.",
      decisions: ["Ship the spec first"],
      sources: [plan],
    });
    const id = saved.data.session_id;
    const clean = await ok(b.client, "session_diff", { session_id: id });
    assert.equal(clean.data.total, 0);
    assert.match(clean.text, /Nothing was written through Strata's tools since the last save\./);
    assert.deepEqual(clean.data.saved_sources, ["[[Projects/Alpha/Plan]]"]);

    const r = await ok(b.client, "read", { path: plan, whole: true });
    await ok(b.client, "apply_patch", {
      path: plan,
      expected_hash: r.data.content_hash,
      edit: { type: "replace_section", heading: "Later", content: "\n1. [ ] Numbered task\n" },
      reason: "trim the later list",
      based_on: ["Projects/Alpha/Alpha.md"],
    });
    const diff = await ok(b.client, "session_diff", { session_id: id });
    assert.equal(diff.data.total, 1);
    assert.deepEqual(diff.data.notes, [plan]);
    assert.deepEqual(diff.data.based_on, ["Projects/Alpha/Alpha.md"]);
    assert.equal(diff.data.last_save, clean.data.last_save);
    assert.match(
      diff.text,
      /\n- .* UTC · apply_patch · Projects\/Alpha\/Plan\.md · \w{8} → \w{8} · trim the later list · by strata-test 1\.0\.0 · based on Projects\/Alpha\/Alpha\.md\n/,
    );
    // Saved again: nothing since.
    await ok(b.client, "session_save", { session_id: id, overview: "Trimmed the later list." });
    assert.equal((await ok(b.client, "session_diff", { session_id: id })).data.total, 0);
    await refused(b.client, "session_diff", { session_id: "s-nope" }, /there is no session "s-nope"/);

    const snap = await ok(b.client, "project_snapshot", { folder: "Projects/Alpha/" });
    assert.equal(snap.data.index.path, "Projects/Alpha/Alpha.md");
    assert.equal(snap.data.index.lead, "Alpha ships the new sync engine by December. - [[Plan]]");
    assert.ok(snap.data.tasks.total >= 5 && snap.data.tasks.by_status.todo >= 3, JSON.stringify(snap.data.tasks));
    assert.deepEqual(snap.data.decisions, [{ d: "Ship the spec first", path: saved.data.path }]);
    assert.deepEqual(
      snap.data.sessions.map((s: { path: string; overview: string }) => [s.path, s.overview]),
      [[saved.data.path, "Trimmed the later list."]],
    );
    assert.deepEqual(snap.data.recent.map((e: { path: string }) => e.path).sort(), ["Projects/Alpha/Alpha.md", plan]);
    assert.match(snap.text, /^# Projects\/Alpha: 2 notes, \d+ open tasks\nIndex note Projects\/Alpha\/Alpha\.md: Alpha ships/);
    assert.match(snap.text, /\n- Ship the spec first — Strata\/Sessions\/s-[\w-]+\.md\n/);
    assert.match(snap.text, /\n {2}- \[ \] Write the spec #spec · due 2026-11-20 · priority high — Projects\/Alpha\/Plan\.md:13\n/);
    const small = await ok(b.client, "project_snapshot", { folder: "Projects/Alpha", max_chars: 500 });
    assert.ok(small.text.length <= 560, `${small.text.length}`);
    assert.match(small.text, /\n… \d+ more lines cut at max_chars 500$/);
    await refused(b.client, "project_snapshot", { folder: "Nope" }, /Nope holds no indexed notes/);
    await refused(b.client, "project_snapshot", { folder: "../x" }, /may not leave the vault/);
    const { tools } = await b.client.listTools();
    for (const name of ["session_diff", "project_snapshot"]) {
      assert.equal(tools.find((t) => t.name === name)?.annotations?.readOnlyHint, true, name);
    }
  } finally {
    await b.close();
  }
});
