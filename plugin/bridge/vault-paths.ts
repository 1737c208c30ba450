// Path safety for the tools: every path a client sends must be a vault-relative note path
// that stays inside the vault and outside its config folder. This is the first line; the
// backends check again (and the headless one refuses symlinks that leave the vault).

import { ToolInputError } from "./tool-schema.ts";

const MAX_PATH = 1024;

function refuse(what: string, raw: string, why: string): never {
  throw new ToolInputError(`${what} ${JSON.stringify(raw.length > 200 ? raw.slice(0, 200) + "…" : raw)} is refused: ${why}`);
}

/**
 * Checks a vault-relative path ("Folder/Note.md") and returns it. Refuses absolute paths,
 * `..` and `.` segments, backslashes, empty segments, hidden entries (`.git`, `.trash`)
 * and the config folder, each with an error that says what to send instead.
 */
export function checkVaultPath(raw: string, configDir: string, what = "path"): string {
  if (raw.length === 0) refuse(what, raw, "it is empty");
  if (raw.length > MAX_PATH) refuse(what, raw, `it is longer than ${MAX_PATH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\x00-\x1f\x7f]/.test(raw)) refuse(what, raw, "it contains control characters");
  if (raw.startsWith("/") || raw.startsWith("~") || /^[A-Za-z]:/.test(raw) || raw.startsWith("\\\\")) {
    refuse(what, raw, 'absolute paths are not accepted; give the path relative to the vault root, e.g. "Projects/Plan.md"');
  }
  if (raw.includes("\\")) refuse(what, raw, 'use "/" to separate folders');
  const segs = raw.split("/");
  for (const seg of segs) {
    if (seg === "..") refuse(what, raw, 'paths may not leave the vault ("..")');
    if (seg === "." || seg === "") refuse(what, raw, 'it has an empty or "." segment; give a plain vault-relative path');
  }
  const cfg = configDir.replace(/\/+$/, "").toLowerCase();
  if (segs[0].toLowerCase() === cfg || raw.toLowerCase().startsWith(cfg + "/")) {
    refuse(what, raw, `the config folder ${configDir} is not part of the notes`);
  }
  if (segs.some((s) => s.startsWith("."))) refuse(what, raw, "hidden files and folders are not part of the notes");
  return raw;
}

/** A folder filter: "" or "/" = the whole vault, a trailing "/" is dropped; else as checkVaultPath. */
export function checkVaultFolder(raw: string, configDir: string, what = "folder"): string {
  const trimmed = raw.trim().replace(/\/+$/, "");
  if (trimmed === "") return "";
  return checkVaultPath(trimmed, configDir, what);
}

/** Note paths the write tools create must be Markdown notes. */
export function checkNotePath(raw: string, configDir: string, what = "path"): string {
  const p = checkVaultPath(raw, configDir, what);
  if (!p.toLowerCase().endsWith(".md")) refuse(what, raw, "only Markdown notes (.md) can be written");
  return p;
}
