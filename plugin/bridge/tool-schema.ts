// The MCP tools' inputs, described once: each tool has one zod schema (next to its code), which
// MCP clients see as a JSON schema (tools/list) and which every call is checked against
// (callTool). The builders here make those schemas with messages that tell the model what to
// send ("top_k must be between 1 and 50, got 51", "unknown argument "query" in arguments
// (accepted: …)") rather than a validator's generic wording. Checks that span several
// arguments, or need the vault, stay in the tools and throw ToolInputError.

import * as z from "zod";

/** Bad tool arguments: the message says what to send instead. */
export class ToolInputError extends Error {}

/** What a zod issue hands an error function (the raw issue, with its full path at this point). */
type Issue = z.core.$ZodRawIssue;

/** The argument an issue is about, as the model wrote it: "top_k", "filters.min_depth", "queries[0]". */
export function argName(path: readonly PropertyKey[] | undefined, top = "arguments"): string {
  let out = "";
  for (const p of path ?? []) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || top;
}

const nameOf = (iss: Issue) => argName(iss.path);
const isMissing = (iss: Issue) => iss.input === undefined;
const length = (iss: Issue) => (typeof iss.input === "string" || Array.isArray(iss.input) ? iss.input.length : 0);
const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(", ");

/** A string of at most `max` characters without NUL. `required`: present and not blank. */
export function text(max: number, opts: { required?: boolean } = {}) {
  const error = (iss: Issue) => {
    if (opts.required && isMissing(iss)) return `${nameOf(iss)} is required (a non-empty string)`;
    if (iss.code === "too_big") return `${nameOf(iss)} is ${length(iss)} characters long; the limit is ${max}`;
    return `${nameOf(iss)} must be a string`;
  };
  const s = z
    .string({ error })
    .max(max)
    .refine((v) => !v.includes("\0"), { error: (iss) => `${nameOf(iss)} contains a NUL character` });
  return opts.required ? s.refine((v) => v.trim() !== "", { error: (iss) => `${nameOf(iss)} is required (a non-empty string)` }) : s;
}

/** An integer from `min` to `max`. */
export function int(min: number, max: number) {
  const error = (iss: Issue) =>
    iss.code === "too_small" || iss.code === "too_big"
      ? `${nameOf(iss)} must be between ${min} and ${max}, got ${String(iss.input)}`
      : `${nameOf(iss)} must be an integer`;
  return z.number({ error }).int().min(min).max(max);
}

/** A finite number from `min` (excluded when `exclusiveMin`) to `max`. */
export function num(min: number, max: number, opts: { exclusiveMin?: boolean } = {}) {
  const error = (iss: Issue) =>
    iss.code === "too_small" || iss.code === "too_big"
      ? `${nameOf(iss)} must be ${opts.exclusiveMin ? "greater than" : "at least"} ${min} and at most ${max}, got ${String(iss.input)}`
      : `${nameOf(iss)} must be a number`;
  const s = z.number({ error });
  return (opts.exclusiveMin ? s.gt(min) : s.min(min)).max(max);
}

export function bool() {
  return z.boolean({ error: (iss) => `${nameOf(iss)} must be true or false` });
}

/** One of `values`; `required` names what to send when it is missing. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, opts: { required?: boolean } = {}) {
  return z.enum(values, {
    error: (iss) =>
      opts.required && isMissing(iss)
        ? `${nameOf(iss)} is required: one of ${values.join(", ")}`
        : `${nameOf(iss)} must be one of ${quoted(values)}`,
  });
}

/** `min` to `max` strings of at most `maxLen` characters each, without NUL. `missing`: the
 *  message when the argument is required and absent. */
export function textList(opts: { min?: number; max: number; maxLen: number; missing?: string }) {
  const min = opts.min ?? 0;
  const error = (iss: Issue) => {
    if (opts.missing && isMissing(iss)) return opts.missing;
    if (iss.code === "too_small" || iss.code === "too_big")
      return `${nameOf(iss)} must hold ${min} to ${opts.max} strings, got ${length(iss)}`;
    return `${nameOf(iss)} must be an array of strings`;
  };
  return z.array(text(opts.maxLen), { error }).min(min).max(opts.max);
}

/**
 * An object of exactly these keys: others are refused, naming the accepted ones. The tools'
 * arguments are one of these, and so are nested objects (filters, edit).
 */
export function args<S extends z.core.$ZodLooseShape>(shape: S, opts: { missing?: string } = {}) {
  const accepted = Object.keys(shape);
  const error = (iss: Issue) => {
    const name = nameOf(iss);
    if (iss.code === "unrecognized_keys") {
      const keys = iss.keys;
      return (
        `unknown ${keys.length === 1 ? "argument" : "arguments"} ${quoted(keys)} in ${name}` +
        (accepted.length ? ` (accepted: ${accepted.join(", ")})` : " (it takes none)")
      );
    }
    if (isMissing(iss)) return opts.missing ?? `${name} is required (an object)`;
    return `${name} must be an object`;
  };
  return z.strictObject(shape, { error });
}

/** Absent arguments: some clients send null for an optional argument; it counts as not given. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value) || value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
  return out;
}

/** Checks `raw` against a tool's schema: its parsed arguments, or a ToolInputError saying
 *  what is wrong with them (each problem, in the model's terms). */
export function parseArgs<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const res = schema.safeParse(dropNulls(raw ?? {}));
  if (res.success) return res.data;
  throw new ToolInputError(res.error.issues.map((i) => i.message).join("; "));
}

/** The JSON schema MCP clients list for a tool's input. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return rest;
}
