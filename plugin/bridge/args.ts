// Checking tool arguments: whatever a client sends (missing fields, wrong types, unknown
// keys, huge strings) becomes a ToolInputError whose message tells the model what to send.

export class ToolInputError extends Error {}

export type Args = Record<string, unknown>;

/** The arguments object itself; `allowed` lists the accepted keys (others are refused). */
export function argsObject(raw: unknown, allowed: readonly string[], what = "arguments"): Args {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw new ToolInputError(`${what} must be an object`);
  const obj = raw as Args;
  const extra = Object.keys(obj).filter((k) => !allowed.includes(k));
  if (extra.length > 0) {
    throw new ToolInputError(
      `unknown ${extra.length === 1 ? "argument" : "arguments"} ${extra.map((k) => JSON.stringify(k)).join(", ")} in ${what}` +
        (allowed.length ? ` (accepted: ${allowed.join(", ")})` : " (it takes none)"),
    );
  }
  return obj;
}

function present(a: Args, key: string): boolean {
  return a[key] !== undefined && a[key] !== null;
}

export function optString(a: Args, key: string, max = 1000): string | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (typeof v !== "string") throw new ToolInputError(`${key} must be a string`);
  if (v.length > max) throw new ToolInputError(`${key} is ${v.length} characters long; the limit is ${max}`);
  if (v.includes("\0")) throw new ToolInputError(`${key} contains a NUL character`);
  return v;
}

export function reqString(a: Args, key: string, max = 1000): string {
  const v = optString(a, key, max);
  if (v === undefined || v.trim() === "") throw new ToolInputError(`${key} is required (a non-empty string)`);
  return v;
}

export function optInt(a: Args, key: string, min: number, max: number): number | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (typeof v !== "number" || !Number.isInteger(v)) throw new ToolInputError(`${key} must be an integer`);
  if (v < min || v > max) throw new ToolInputError(`${key} must be between ${min} and ${max}, got ${v}`);
  return v;
}

export function optNumber(a: Args, key: string, min: number, max: number, exclusiveMin = false): number | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (typeof v !== "number" || !Number.isFinite(v)) throw new ToolInputError(`${key} must be a number`);
  if (v < min || v > max || (exclusiveMin && v === min)) {
    throw new ToolInputError(`${key} must be ${exclusiveMin ? "greater than" : "at least"} ${min} and at most ${max}, got ${v}`);
  }
  return v;
}

export function optBool(a: Args, key: string): boolean | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (typeof v !== "boolean") throw new ToolInputError(`${key} must be true or false`);
  return v;
}

export function optEnum<T extends string>(a: Args, key: string, values: readonly T[]): T | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    throw new ToolInputError(`${key} must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}`);
  }
  return v as T;
}

export function optStringArray(a: Args, key: string, opts: { min?: number; max: number; maxLen: number }): string[] | undefined {
  if (!present(a, key)) return undefined;
  const v = a[key];
  if (!Array.isArray(v)) throw new ToolInputError(`${key} must be an array of strings`);
  if (v.length < (opts.min ?? 0) || v.length > opts.max) {
    throw new ToolInputError(`${key} must hold ${opts.min ?? 0} to ${opts.max} strings, got ${v.length}`);
  }
  return v.map((item, i) => {
    if (typeof item !== "string") throw new ToolInputError(`${key}[${i}] must be a string`);
    if (item.length > opts.maxLen) throw new ToolInputError(`${key}[${i}] is ${item.length} characters long; the limit is ${opts.maxLen}`);
    if (item.includes("\0")) throw new ToolInputError(`${key}[${i}] contains a NUL character`);
    return item;
  });
}

export function optObject(a: Args, key: string, allowed: readonly string[]): Args | undefined {
  if (!present(a, key)) return undefined;
  return argsObject(a[key], allowed, key);
}
