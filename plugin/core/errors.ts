// Errors from the core: its messages start with a code in brackets ("[bad-request] …",
// "[unavailable] …"), which hosts map to exit codes, HTTP answers or tool errors.

/** The code of a core error ("[unavailable] semantic search…" → "unavailable"), if it has one. */
export function coreErrorCode(err: unknown): string | undefined {
  const msg = err instanceof Error ? err.message : typeof err === "string" ? err : "";
  const m = /^\[([a-z0-9-]+)\]/.exec(msg);
  return m ? m[1] : undefined;
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
