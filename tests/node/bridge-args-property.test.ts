// Property test of the MCP tools' arguments (fast-check): for every tool, garbage and
// near-valid arguments built from the tool's own input schema (wrong types, strings at and over
// their limits, hostile paths: `..`, absolute, NUL, symlinks out of the vault, the config folder,
// unicode look-alikes; nested objects, extra keys) get a tool error or a valid answer. Never a
// thrown exception, never a byte written outside the vault, and a note of the vault changes only
// when the call was a write that succeeded (and then only the note it names, or the sessions,
// memory and changelog folder). Once through callTool (the module both bridge modes run), then a
// smaller sample through the SDK's client over the stdio bridge. Seeded: STRATA_FC_SEED and
// STRATA_FC_RUNS pick other cases and more of them.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, before, test } from "node:test";

import fc from "fast-check";

import { HeadlessBackend } from "../../plugin/bridge/headless.ts";
import { callTool, TOOLS } from "../../plugin/bridge/tools.ts";
import { sha256, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, copyFixture, hashTree, tempDir } from "./helpers.ts";

after(cleanupTemps);

const SEED = Number(process.env.STRATA_FC_SEED ?? 20261126);
const RUNS = Number(process.env.STRATA_FC_RUNS ?? 150);
const SDK_RUNS = Math.max(5, Math.round(RUNS / 12));
const WRITE_TOOLS = new Set(["apply_patch", "session_save", "session_compact", "memory_save"]);
/** Where a successful write may change files besides the note it names (settings' folders). */
const WRITE_FOLDER = "Strata/";

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: string[];
  anyOf?: JsonSchema[];
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  minItems?: number;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
}

/** Values that a write or a read must not take out of the vault, and real ones to reach the
 *  tools' logic: notes, section ids, headings, a code file's symbol, ids returned earlier. */
interface Known {
  outside: string;
  hashes: string[];
  ids: string[];
}

function hostilePaths(k: Known): string[] {
  return [
    "../outside/secret.md",
    "Cooking/../../outside/secret.md",
    "./../outside",
    path.join(k.outside, "secret.md"),
    "/etc/passwd",
    "C:\\Windows\\win.ini",
    "\\\\server\\share\\x.md",
    "..\\outside\\secret.md",
    "Welcome.md\u0000.md",
    "\u0000",
    ".obsidian/app.json",
    ".obsidian/plugins/strata-search/audit.jsonl",
    "Linked.md",
    "Out/secret.md",
    "Out",
    "%2e%2e/outside/secret.md",
    "\u2025/outside/secret.md",
    "Welcome\u202e.md",
    "\uff37elcome.md",
    "Welcome.md/",
    "./Welcome.md",
    "Strata/../../outside/x.md",
    "~/secret.md",
    "file:///etc/passwd",
    "CON",
    "\ud800",
    "Strata",
    "Strata/Sessions",
  ];
}

const REAL = [
  "Welcome.md",
  "Cooking/Sourdough starter.md",
  "Projects/Bicycle rebuild.md",
  "中文/茶道笔记.md",
  "src/session.py",
  "Welcome.md#1",
  "Cooking/Sourdough starter.md#2",
  "Feeding schedule",
  "SessionRedirectMixin.rebuild_auth",
  "rebuild_auth",
  "status = draft AND file.mtime >= today-7d",
  "tags contains project",
  "sourdough",
  "2026-11-26",
  "project",
  "python",
  "function",
  "today",
  "@@ -1,1 +1,1 @@\n-# Welcome\n+# Welcome!\n",
];

/** A string of the schema's length: hostile paths, real values, anything short. */
function plausibleText(k: Known, maxLength = 1000): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constantFrom(...hostilePaths(k), ...REAL) },
      { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
      { weight: 1, arbitrary: fc.constant(null).map(() => pick(k.hashes.concat(k.ids))) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.constantFrom("..", ".", "", "Out", "Cooking", "\u0000"), fc.string()).map(([a, b]) => `${a}/${b}`),
      },
    )
    .map((v) => v.slice(0, maxLength));
}

/** One of the values learned so far (they grow while the test runs). */
function pick(values: string[]): string {
  return values[Math.floor(Math.random() * values.length)];
}

/** Nesting depth of generated garbage. The SDK's client (its schema check) overflows the
 *  stack on a few thousand levels before sending anything, so the SDK test stays below that. */
let MAX_NESTING = 5000;

/** Anything at all, including deep nesting. */
function garbage(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.anything({ maxDepth: 3, withBigInt: false }) },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: MAX_NESTING }).map((n) => nest(n)) },
    { weight: 1, arbitrary: fc.constantFrom(null, undefined, [], "", 0, true, Object.create(null), { __proto__: { path: "x" } }) },
  );
}

function nest(depth: number): unknown {
  let v: unknown = "deep";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { path: v };
  return v;
}

/** A value the schema accepts (its type, length and range), with hostile content. */
function plausible(s: JsonSchema, k: Known, depth = 0): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((a) => plausible(a, k, depth)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case "string":
      return plausibleText(k, s.maxLength);
    case "integer":
      return fc.integer({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(s.items ? plausible(s.items, k, depth + 1) : garbage(), { minLength: s.minItems ?? 0, maxLength: s.maxItems ?? 5 });
    case "object":
      return depth > 3 ? fc.constant({}) : plausibleObject(s, k, depth + 1);
    default:
      return garbage();
  }
}

/** A value of the schema's type over its limits, or of another type. */
function invalid(s: JsonSchema, k: Known): fc.Arbitrary<unknown> {
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  const edges: fc.Arbitrary<unknown>[] = [garbage()];
  if (type === "string" || s.enum) {
    const n = s.maxLength ?? 1000;
    edges.push(fc.constantFrom(n + 1, 100_000).map((len) => "\u00e9x/".repeat(len).slice(0, len)));
    edges.push(plausibleText(k, 40).map((v) => v + "\u0000"));
  }
  if (type === "integer" || type === "number") {
    const min = s.minimum ?? -1e6;
    const max = s.maximum ?? 1e6;
    edges.push(fc.constantFrom(min - 1, max + 1, 0.5, -0, Number.MAX_SAFE_INTEGER, 1e308, NaN, Infinity, "5", ""));
  }
  if (type === "array" && s.items)
    edges.push(fc.array(plausible(s.items, k, 1), { minLength: (s.maxItems ?? 5) + 1, maxLength: (s.maxItems ?? 5) + 3 }));
  if (type === "boolean") edges.push(fc.constantFrom("true", 1, 0));
  return fc.oneof(...edges);
}

function plausibleObject(s: JsonSchema, k: Known, depth: number): fc.Arbitrary<Record<string, unknown>> {
  // The required keys and at most two others: more would almost always hold an invalid one.
  const names = Object.keys(s.properties ?? {});
  const required = s.required ?? [];
  const props = Object.fromEntries(names.map((name) => [name, plausible(s.properties![name], k, depth)]));
  const optional = names.filter((n) => !required.includes(n));
  const record = fc
    .tuple(fc.record(props), fc.subarray(optional, { maxLength: Math.min(2, optional.length) }))
    .map(([all, chosen]) => Object.fromEntries(Object.entries(all).filter(([n]) => required.includes(n) || chosen.includes(n))));
  if (typeof s.additionalProperties !== "object") return record;
  const extra = fc.dictionary(plausibleText(k, 40), plausible(s.additionalProperties, k, depth), { maxKeys: 4 });
  return fc.tuple(record, extra).map(([a, b]) => ({ ...b, ...a }));
}

/** A plausible object with one of its keys (or an unknown one) given an invalid value. */
function mutatedObject(s: JsonSchema, k: Known): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(s.properties ?? {});
  const bad: fc.Arbitrary<[string, unknown]>[] = [fc.tuple(fc.constantFrom("extra", "__proto__", "constructor", ""), garbage())];
  for (const [name, p] of entries) bad.push(fc.tuple(fc.constant(name), invalid(p, k)));
  return fc.tuple(plausibleObject(s, k, 0), fc.oneof(...bad)).map(([obj, [key, value]]) => {
    const out = { ...obj };
    Object.defineProperty(out, key, { value, enumerable: true, configurable: true, writable: true });
    return out;
  });
}

/** An apply_patch of a real section with the note's current hash: it reaches the write. */
function realPatch(k: Known): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .record({
      path: fc.constantFrom("Welcome.md", "Cooking/Sourdough starter.md"),
      edit: fc.record({
        type: fc.constant("replace_section"),
        heading: fc.constantFrom("Where things are", "Hydration", "Feeding schedule", "Sourdough starter > Troubleshooting", "Nope"),
        content: plausibleText(k, 300),
      }),
      reason: plausibleText(k, 100),
      dry_run: fc.boolean(),
    })
    .map((a) => ({ ...a, expected_hash: sha256(readFileSync(path.join(vault, a.path))) }));
}

function argsFor(name: string, schema: JsonSchema, k: Known): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: name === "apply_patch" ? 3 : 0, arbitrary: realPatch(k) },
    { weight: 4, arbitrary: plausibleObject(schema, k, 0) },
    { weight: 4, arbitrary: mutatedObject(schema, k) },
    { weight: 1, arbitrary: garbage() },
  );
}

/** Objects only: the SDK's client refuses to send arguments that are not one. */
function objectArgsFor(schema: JsonSchema, k: Known): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(plausibleObject(schema, k, 0), mutatedObject(schema, k));
}

interface Result {
  content?: { type: string; text?: string }[];
  isError?: boolean;
  structuredContent?: unknown;
}

function describe(name: string, args: unknown): string {
  try {
    return `${name} ${JSON.stringify(args)?.slice(0, 300)}`;
  } catch {
    return `${name} (arguments not JSON)`;
  }
}

/** The checks after one call: a well-formed answer, nothing outside the vault changed, and the
 *  vault's files changed only by a write that succeeded. Returns the vault's new state. */
async function checkCall(
  env: { vault: string; outside: string; outsideBefore: Map<string, string> },
  before: Map<string, string>,
  name: string,
  args: unknown,
  r: Result,
): Promise<Map<string, string>> {
  const what = describe(name, args);
  assert.ok(Array.isArray(r.content) && r.content.length > 0, `${what}: no content`);
  for (const c of r.content) assert.equal(typeof c.text, "string", `${what}: content without text`);
  if (r.isError !== true && r.structuredContent !== undefined) JSON.stringify(r.structuredContent);
  assert.deepEqual(await outsideState(env.vault, env.outside), env.outsideBefore, `${what}: wrote outside the vault`);
  const now = await hashTree(env.vault, [".obsidian"]);
  const changed = [...new Set([...before.keys(), ...now.keys()])].filter((p) => before.get(p) !== now.get(p));
  if (changed.length > 0) {
    const a = (args ?? {}) as Record<string, unknown>;
    assert.ok(WRITE_TOOLS.has(name) && r.isError !== true && a.dry_run !== true, `${what} changed ${changed.join(", ")}`);
    const target = typeof a.path === "string" ? path.posix.normalize(a.path) : null;
    for (const p of changed) assert.ok(p.startsWith(WRITE_FOLDER) || p === target, `${what} changed ${p}`);
  }
  return now;
}

/** The files beside the vault (its parent folder, where `../x` leads) and in the folder the
 *  symlinks and hostile paths point to. */
async function outsideState(vault: string, outside: string): Promise<Map<string, string>> {
  const beside = await hashTree(path.dirname(vault), [path.basename(vault)]);
  return new Map([...(await hashTree(outside)), ...[...beside].map(([p, h]): [string, string] => [`../${p}`, h])]);
}

/** Records what a successful call returned that later calls can use (hashes, ids). */
function learn(k: Known, r: Result) {
  if (r.isError === true || !r.structuredContent) return;
  const json = JSON.stringify(r.structuredContent);
  for (const m of json.matchAll(/"(?:content_hash|new_hash|hash)":"([0-9a-f]{64})"/g)) if (!k.hashes.includes(m[1])) k.hashes.push(m[1]);
  for (const m of json.matchAll(/"(?:session_id|id)":"([^"]{1,80})"/g)) if (!k.ids.includes(m[1])) k.ids.push(m[1]);
}

let vault: string;
let outside: string;
let known: Known;

const PY = `"""Sessions."""
import os


class SessionRedirectMixin:
    def rebuild_auth(self, prepared_request, response):
        """Strips the Authorization header."""
        return prepared_request
`;

before(async () => {
  vault = await copyFixture();
  outside = path.join(await tempDir(), "outside");
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.md"), "# Secret\n\nThe outside secret.\n");
  await symlink(path.join(outside, "secret.md"), path.join(vault, "Linked.md"));
  await symlink(outside, path.join(vault, "Out"));
  await mkdir(path.join(vault, "src"));
  await writeFile(path.join(vault, "src/session.py"), PY);
  known = { outside, hashes: ["0".repeat(64)], ids: ["x"] };
});

test("every tool answers generated garbage and near-valid arguments cleanly (callTool)", async (t) => {
  const backend = await HeadlessBackend.open({
    vaultDir: vault,
    modelsDir: null,
    embed: false,
    settings: { writeToolsEnabled: true },
  });
  try {
    // Real content hashes, so that some apply_patch calls reach the edit itself.
    for (const p of ["Welcome.md", "Cooking/Sourdough starter.md"]) learn(known, await callTool(backend, "read", { path: p }));
    assert.ok(known.hashes.length >= 3, "the reads gave content hashes");
    const env = { vault, outside, outsideBefore: await outsideState(vault, outside) };
    let state = await hashTree(vault, [".obsidian"]);
    const tally = { calls: 0, errors: 0, writes: 0 };
    const perTool: Record<string, string> = {};
    const t0 = Date.now();
    for (const [i, tool] of TOOLS.entries()) {
      await fc.assert(
        fc.asyncProperty(argsFor(tool.name, tool.inputSchema as JsonSchema, known), async (args) => {
          const r = (await callTool(backend, tool.name, args)) as Result;
          const before = state;
          state = await checkCall(env, state, tool.name, args, r);
          tally.calls++;
          if (r.isError === true) tally.errors++;
          if (state.size !== before.size || [...state].some(([p, h]) => before.get(p) !== h)) tally.writes++;
          learn(known, r);
        }),
        // A write that succeeds re-indexes and persists (about 0.3 s): fewer cases for them.
        { seed: SEED + i, numRuns: WRITE_TOOLS.has(tool.name) ? Math.ceil(RUNS / 3) : RUNS },
      );
      perTool[tool.name] = `${tally.calls}/${tally.errors}/${tally.writes} ${Date.now() - t0} ms`;
    }
    t.diagnostic(`calls/errors/writes, running totals: ${JSON.stringify(perTool)}`);
    // Both kinds of answers were reached: refusals, and valid calls (writes among them).
    assert.ok(tally.errors > tally.calls / 10 && tally.errors < tally.calls, JSON.stringify(tally));
    assert.ok(tally.writes > 0, `no valid write among the generated calls: ${JSON.stringify(tally)}`);
    const st = (await callTool(backend, "status", {})) as Result;
    assert.notEqual(st.isError, true, "the backend still answers");
  } finally {
    await backend.close();
  }
});

test("the stdio bridge answers generated arguments cleanly and keeps serving (SDK client)", async () => {
  MAX_NESTING = 200;
  const bridge = await spawnBridge([vault, "--write-tools", "--no-model", "--headless"]);
  try {
    const env = { vault, outside, outsideBefore: await outsideState(vault, outside) };
    let state = await hashTree(vault, [".obsidian"]);
    for (const [i, tool] of TOOLS.entries()) {
      const objects = objectArgsFor(tool.inputSchema as JsonSchema, known);
      await fc.assert(
        fc.asyncProperty(objects, async (args) => {
          const r = (await bridge.client.callTool({ name: tool.name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
          // What the JSON transport carried: undefined values and non-finite numbers do not cross it.
          state = await checkCall(env, state, tool.name, JSON.parse(JSON.stringify(args)), r);
        }),
        { seed: SEED + 100 + i, numRuns: SDK_RUNS },
      );
    }
    const st = (await bridge.client.callTool({ name: "status", arguments: {} })) as Result;
    assert.notEqual(st.isError, true, `the bridge still serves: ${bridge.stderr().slice(-2000)}`);
  } finally {
    await bridge.close();
  }
});
