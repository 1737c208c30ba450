// apply_patch: edits one note, only when the caller's expected_hash is the note's current
// content hash (so an edit is never made on text the model has not seen). Two kinds of edit:
// replace the body of a section by heading, or a unified diff (applied by the `diff` library).
// With dry_run it writes nothing and returns the diff the edit would make and the hash after it.

import { applyPatch, createPatch, parsePatch } from "diff";

import type { z } from "zod";

import type { VaultBackend } from "../core/vault-backend.ts";
import { sha256Hex } from "./format.ts";
import { EditError, replaceSection } from "./markdown-edit.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { notePath, result } from "./read-tools.ts";
import { args, bool, oneOf, text, ToolInputError } from "./tool-schema.ts";
import { checkNotePath } from "./vault-paths.ts";
import { auditedWrite, basedOnInput, checkBasedOn, type Caller } from "./writes.ts";

export const MAX_EDIT_CHARS = 200_000;

export const applyPatchInput = args({
  path: notePath("The note to edit (a .md note)."),
  expected_hash: text(100, { required: true }).describe("The content_hash from your latest read of this note (64 hex characters)."),
  edit: args(
    {
      type: oneOf(["replace_section", "unified_diff"], { required: true }),
      heading: text(1000).optional().describe('replace_section: the heading text or path ("Plan > Risks").'),
      content: text(MAX_EDIT_CHARS).optional().describe("replace_section: the new text of the section, without its heading line."),
      diff: text(MAX_EDIT_CHARS).optional().describe("unified_diff: the diff (---/+++ headers optional, @@ hunks with context lines)."),
    },
    { missing: 'edit is required: {"type": "replace_section", "heading", "content"} or {"type": "unified_diff", "diff"}' },
  ).describe("What to change."),
  reason: text(500, { required: true }).describe("Why, in one sentence (shown to the user)."),
  based_on: basedOnInput,
  dry_run: bool()
    .optional()
    .describe(
      "true: write nothing; return the unified diff the edit would make and the note's hash after it (allowed with write tools off).",
    ),
});

function applyUnifiedDiff(text: string, diff: string, notePath: string): string {
  let patches;
  try {
    patches = parsePatch(diff);
  } catch (err) {
    throw new EditError(`the diff could not be parsed: ${(err as Error).message}`);
  }
  if (patches.length !== 1) throw new EditError(`the diff must change exactly one file (it has ${patches.length})`);
  const p = patches[0];
  if (p.hunks.length === 0) throw new EditError("the diff has no hunks (@@ -a,b +c,d @@ lines)");
  for (const name of [p.oldFileName, p.newFileName]) {
    if (!name || name === "/dev/null") continue;
    const clean = name.replace(/^[ab]\//, "");
    if (clean !== notePath) throw new EditError(`the diff names ${JSON.stringify(name)}, not ${JSON.stringify(notePath)}`);
  }
  const out = applyPatch(text, p, { fuzzFactor: 0 });
  if (out === false) {
    throw new EditError(
      "the diff does not apply: its context or removed lines are not in the note as it is now; read the lines again and make the diff from them",
    );
  }
  return out;
}

export async function applyPatchTool(backend: VaultBackend, a: z.output<typeof applyPatchInput>, caller: Caller = {}): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const notePath = checkNotePath(a.path, configDir);
  const basedOn = checkBasedOn(a.based_on, configDir);
  const expected = a.expected_hash.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new ToolInputError("expected_hash must be the 64-character content_hash that read returned");
  const { reason, edit } = a;

  const current = await backend.readText(notePath);
  if (current === null) return { content: [{ type: "text", text: `${notePath} does not exist; nothing was written.` }], isError: true };
  const actual = await sha256Hex(current);
  if (actual !== expected) {
    return {
      content: [
        {
          type: "text",
          text: `refused: ${notePath} changed since you read it (expected_hash ${expected.slice(0, 12)}…, now ${actual.slice(0, 12)}…). Nothing was written. Read the note again and redo the edit on its current text.`,
        },
      ],
      structuredContent: { applied: false, reason: "stale-hash", current_hash: actual },
      isError: true,
    };
  }

  let next: string;
  try {
    if (edit.type === "replace_section") {
      const heading = edit.heading?.trim() ? edit.heading : undefined;
      if (heading === undefined) throw new ToolInputError("edit.heading is required (a non-empty string) for replace_section");
      if (edit.content === undefined) throw new ToolInputError("edit.content is required (the section's new text, below its heading)");
      if (edit.diff !== undefined) throw new ToolInputError("edit.diff does not go with replace_section");
      next = replaceSection(current, await backend.outline(current), heading, edit.content);
    } else {
      if (!edit.diff?.trim()) throw new ToolInputError("edit.diff is required (a non-empty string) for unified_diff");
      if (edit.heading !== undefined || edit.content !== undefined)
        throw new ToolInputError("edit.heading/content do not go with unified_diff");
      next = applyUnifiedDiff(current, edit.diff, notePath);
    }
  } catch (err) {
    if (err instanceof EditError) {
      return { content: [{ type: "text", text: `the edit was not applied: ${err.message}. Nothing was written.` }], isError: true };
    }
    throw err;
  }
  if (next === current) {
    return result(`no change: the edit leaves ${notePath} as it is; nothing was written.`, {
      applied: false,
      reason: "no-change",
      content_hash: actual,
    });
  }
  if (a.dry_run) {
    const diff = createPatch(notePath, current, next, "", "", { context: 3 });
    const newHash = await sha256Hex(next);
    return result(
      `dry run: nothing was written. Applied, the edit would change ${notePath} (content_hash ${actual} → ${newHash}):\n\n${diff}`,
      { applied: false, dry_run: true, path: notePath, old_hash: actual, new_hash: newHash, diff },
    );
  }
  const out = await auditedWrite(backend, {
    tool: "apply_patch",
    path: notePath,
    oldText: current,
    newText: next,
    reason,
    actor: caller.client,
    basedOn,
  });
  return result(
    `applied to ${notePath}: content_hash ${out.oldHash} → ${out.newHash}. Logged in the audit log and CHANGELOG.md.` +
      (out.warning ? `\nwarning: ${out.warning}` : ""),
    { applied: true, path: notePath, old_hash: out.oldHash, new_hash: out.newHash, ...(out.warning ? { warning: out.warning } : {}) },
  );
}
