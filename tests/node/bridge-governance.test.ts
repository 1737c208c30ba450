// The governance tools through the SDK's Client and the headless bridge: apply_patch with dry_run
// (the diff and the hash an edit would make, nothing written, with the write tools off too; the
// real edit then gives that hash) and log (the audit log as readable entries).

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import { createPatch } from "diff";

import { ok, refused, sha256, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, copyFixture, indexVault } from "./helpers.ts";

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
    const applied = await ok(writer.client, "apply_patch", { path: NOTE, expected_hash: sha256(before), edit, reason: "now for real" });
    assert.equal(applied.data.new_hash, preview.new_hash);
    assert.equal(await readFile(file, "utf8"), after);
    assert.match(await readFile(path.join(vault, AUDIT), "utf8"), /"reason":"now for real"/);

    const log = await ok(writer.client, "log", {});
    assert.equal(log.data.total, 1);
    assert.deepEqual(
      log.data.entries.map((e: Record<string, unknown>) => [e.tool, e.path, e.old_hash, e.new_hash, e.reason]),
      [["apply_patch", NOTE, sha256(before), sha256(after), "now for real"]],
    );
    assert.match(
      log.text,
      new RegExp(
        `^1 of 1 writes match; the newest 1, oldest first\n\n- \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC · apply_patch · Welcome\\.md · ${sha256(before).slice(0, 8)} → ${sha256(after).slice(0, 8)} · now for real$`,
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
