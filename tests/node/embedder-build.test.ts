// Which embedder build a host runs (plugin/core/embedding/builds.ts): the installed relaxed-SIMD
// one only when it matches its table's SHA-256, unpacks and validates in this engine; else the
// built-in one, with the reason. The relaxed module here is real (one f32x4.relaxed_madd):
// Node 20 rejects it until relaxed SIMD is switched on, as an engine without it would.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import * as path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import v8 from "node:v8";
import { gzipSync } from "node:zlib";

import { gunzip, pickEmbedderWasm, relaxedSimdSupported } from "../../plugin/core/embedding/builds.ts";
import { ROOT } from "./helpers.ts";

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const BUILT_IN = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const builtIn = async () => BUILT_IN;

/** A module whose one function returns f32x4.relaxed_madd(0, 0, 0). */
function relaxedModule(): Uint8Array {
  const zero = "fd0c" + "00".repeat(16);
  return new Uint8Array(
    Buffer.from("0061736d01000000" + "0105016000017b" + "03020100" + "0a3d013b00" + zero + zero + zero + "fd8502" + "0b", "hex"),
  );
}

test("no relaxed build installed: the built-in one, saying why", async () => {
  const r = await pickEmbedderWasm(async () => null, builtIn);
  assert.equal(r.bytes, BUILT_IN);
  assert.equal(r.build.build, "simd128");
  assert.equal(r.build.why, relaxedSimdSupported() ? "the relaxed-SIMD build is not installed" : "this engine has no relaxed SIMD");
});

test("an installed file that is not this version's, not gzip, or unreadable: the built-in one", async () => {
  const wasm = await readFile(path.join(ROOT, "build", "wasm", "strata_embedder_bg.wasm"));
  const gz = gzipSync(wasm, { level: 1 });
  const stale = await pickEmbedderWasm(async () => ({ gz, sha256: sha256(gzipSync(wasm, { level: 9 })) }), builtIn);
  assert.deepEqual(stale.build, {
    build: "simd128",
    why: "the installed relaxed-SIMD build is not this version's (SHA-256 differs): download it again",
  });
  assert.equal(stale.bytes, BUILT_IN);
  const torn = gz.subarray(0, gz.length >> 1);
  const broken = await pickEmbedderWasm(async () => ({ gz: torn, sha256: sha256(torn) }), builtIn);
  assert.equal(broken.build.build, "simd128");
  assert.match(broken.build.why, /^the installed relaxed-SIMD build does not unpack \(/);
  const unreadable = await pickEmbedderWasm(async () => {
    throw new Error("EACCES: permission denied");
  }, builtIn);
  assert.deepEqual(unreadable.build, {
    build: "simd128",
    why: "the installed relaxed-SIMD build could not be read (EACCES: permission denied)",
  });
  assert.equal(unreadable.bytes, BUILT_IN);
});

test("a relaxed-SIMD module: refused where the engine lacks relaxed SIMD, run where it has it", async () => {
  const module = relaxedModule();
  const file = () => {
    const gz = gzipSync(module);
    return { gz, sha256: sha256(gz) };
  };
  if (!relaxedSimdSupported()) {
    const refused = await pickEmbedderWasm(async () => file(), builtIn);
    assert.deepEqual(refused.build, { build: "simd128", why: "this engine does not validate the relaxed-SIMD build" });
    v8.setFlagsFromString("--experimental-wasm-relaxed-simd");
    assert.ok(relaxedSimdSupported(), "Node runs relaxed SIMD once asked to");
  }
  const taken = await pickEmbedderWasm(async () => file(), builtIn);
  assert.equal(taken.build.build, "relaxed-simd");
  assert.deepEqual(new Uint8Array(taken.bytes), module);
  // It compiles and instantiates in this engine.
  const { instance } = await WebAssembly.instantiate(taken.bytes as BufferSource);
  assert.equal(typeof instance, "object");
  assert.deepEqual(new Uint8Array(await gunzip(gzipSync(module))), module);
});

// The release's check of the relaxed build (scripts/check-relaxed-embedder.mjs), in a process of
// its own (Node without relaxed SIMD by default, as the release workflow runs it).
const check = (relaxed: string) =>
  promisify(execFile)(process.execPath, ["scripts/check-relaxed-embedder.mjs", relaxed, "build/wasm"], { cwd: ROOT }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );

test("the release's check refuses a build that is not relaxed SIMD", async () => {
  const r = await check("build/wasm");
  if (relaxedSimdSupported()) return; // this Node runs relaxed SIMD by default: the check cannot tell
  assert.equal(r.code, 1);
  assert.match(r.stderr, /build\/wasm validates without relaxed SIMD: it is not a relaxed-SIMD build/);
});

const RELAXED = path.join(ROOT, "build", "wasm-relaxed", "strata_embedder_bg.wasm");
test(
  "the release's check passes a relaxed-SIMD build and compares its vectors",
  existsSync(RELAXED) ? {} : { skip: "no build/wasm-relaxed (bash scripts/build-wasm.sh relaxed builds it; the release workflow does)" },
  async () => {
    const r = await check("build/wasm-relaxed");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /validates(; no | and embeds as the simd128 build does)/);
  },
);
