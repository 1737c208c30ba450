// apply_patch: edits one note, only when the caller's expected_hash is the note's current
// content hash (so an edit is never made on text the model has not seen). Two kinds of edit:
// replace the body of a section by heading, or a unified diff (applied by the `diff` library).

import { applyPatch, parsePatch } from "diff";

import type { VaultBackend } from "../core/vault-backend.ts";
import { type Args, optObject, optString, reqString, ToolInputError } from "./args.ts";
import { sha256Hex } from "./format.ts";
import { EditError, replaceSection } from "./markdown-edit.ts";
import type { ToolResult } from "./loopback-protocol.ts";
import { result } from "./read-tools.ts";
import { checkNotePath } from "./vault-paths.ts";
import { auditedWrite } from "./writes.ts";

export const MAX_EDIT_CHARS = 200_000;

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
    throw new EditError("the diff does not apply: its context or removed lines are not in the note as it is now; read the lines again and make the diff from them");
  }
  return out;
}

export async function applyPatchTool(backend: VaultBackend, a: Args): Promise<ToolResult> {
  const configDir = (await backend.status()).configDir;
  const notePath = checkNotePath(reqString(a, "path", 1024), configDir);
  const expected = reqString(a, "expected_hash", 100).trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(expected)) throw new ToolInputError("expected_hash must be the 64-character content_hash that read returned");
  const reason = reqString(a, "reason", 500);
  const edit = optObject(a, "edit", ["type", "heading", "content", "diff"]);
  if (!edit) throw new ToolInputError('edit is required: {"type": "replace_section", "heading", "content"} or {"type": "unified_diff", "diff"}');
  const type = reqString(edit, "type", 40);

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
    if (type === "replace_section") {
      const heading = reqString(edit, "heading", 1000);
      const content = optString(edit, "content", MAX_EDIT_CHARS);
      if (content === undefined) throw new ToolInputError("edit.content is required (the section's new text, below its heading)");
      if (edit.diff !== undefined) throw new ToolInputError("edit.diff does not go with replace_section");
      next = replaceSection(current, heading, content);
    } else if (type === "unified_diff") {
      const diff = reqString(edit, "diff", MAX_EDIT_CHARS);
      if (edit.heading !== undefined || edit.content !== undefined) throw new ToolInputError("edit.heading/content do not go with unified_diff");
      next = applyUnifiedDiff(current, diff, notePath);
    } else {
      throw new ToolInputError('edit.type must be "replace_section" or "unified_diff"');
    }
  } catch (err) {
    if (err instanceof EditError) {
      return { content: [{ type: "text", text: `the edit was not applied: ${err.message}. Nothing was written.` }], isError: true };
    }
    throw err;
  }
  if (next === current) {
    return result(`no change: the edit leaves ${notePath} as it is; nothing was written.`, { applied: false, reason: "no-change", content_hash: actual });
  }
  const out = await auditedWrite(backend, { tool: "apply_patch", path: notePath, oldText: current, newText: next, reason });
  return result(
    `applied to ${notePath}: content_hash ${out.oldHash} → ${out.newHash}. Logged in the audit log and CHANGELOG.md.` +
      (out.warning ? `\nwarning: ${out.warning}` : ""),
    { applied: true, path: notePath, old_hash: out.oldHash, new_hash: out.newHash, ...(out.warning ? { warning: out.warning } : {}) },
  );
}
