// Checks a relaxed-SIMD embedder build (scripts/build-wasm.sh relaxed) before a release publishes
// it: its module needs relaxed SIMD (where this Node does not run it by default), this engine
// runs it once allowed to, and with all-MiniLM-L6-v2 (when models/ has it) it embeds a few
// passages as the simd128 build does, up to the last bits a fused multiply-add changes.
//
// usage: node scripts/check-relaxed-embedder.mjs <relaxed dir> <simd128 dir>
import { readFileSync, existsSync } from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

const [relaxedDir, plainDir] = process.argv.slice(2);
if (!relaxedDir || !plainDir) {
  process.stderr.write("usage: node scripts/check-relaxed-embedder.mjs <relaxed dir> <simd128 dir>\n");
  process.exit(2);
}
const fail = (msg) => {
  process.stderr.write(`check-relaxed-embedder: ${msg}\n`);
  process.exit(1);
};
const log = (msg) => process.stderr.write(`check-relaxed-embedder: ${msg}\n`);

// f32x4.relaxed_madd of three zero vectors (plugin/core/embedding/builds.ts's probe).
const zero = "fd0c" + "00".repeat(16);
const PROBE = Buffer.from("0061736d01000000" + "0105016000017b" + "03020100" + "0a3d013b00" + zero + zero + zero + "fd8502" + "0b", "hex");
const relaxed = readFileSync(path.join(relaxedDir, "strata_embedder_bg.wasm"));
if (!WebAssembly.validate(PROBE)) {
  if (WebAssembly.validate(relaxed)) fail(`${relaxedDir} validates without relaxed SIMD: it is not a relaxed-SIMD build`);
  v8.setFlagsFromString("--experimental-wasm-relaxed-simd");
  if (!WebAssembly.validate(PROBE)) fail("this Node cannot enable relaxed SIMD (--experimental-wasm-relaxed-simd)");
} else log("this Node runs relaxed SIMD by default: not checking that the build needs it");
if (!WebAssembly.validate(relaxed)) fail(`${relaxedDir}'s module does not validate with relaxed SIMD on`);

const modelDir = path.join("models", "all-MiniLM-L6-v2");
if (!existsSync(path.join(modelDir, "model.onnx"))) {
  log(`validates; no ${modelDir}, so its vectors are not compared`);
  process.exit(0);
}
const glue = async (dir) => {
  const g = await import(pathToFileURL(path.resolve(dir, "strata_embedder.js")).href);
  g.initSync({ module: readFileSync(path.join(dir, "strata_embedder_bg.wasm")) });
  return g.StrataEmbedder;
};
const [Relaxed, Plain] = [await glue(relaxedDir), await glue(plainDir)];
// The config the core gives the model: the core makes its embedder through this hook.
const core = await import(pathToFileURL(path.resolve(plainDir, "strata_core.js")).href);
core.initSync({ module: readFileSync(path.join(plainDir, "strata_core_bg.wasm")) });
let config = null;
globalThis.__strataCreateEmbedder = (model, tokenizer, c) => {
  config = c;
  return new Plain(model, tokenizer, c);
};
const model = readFileSync(path.join(modelDir, "model.onnx"));
const tokenizer = readFileSync(path.join(modelDir, "tokenizer.json"));
core.StrataCore.create({ configDir: ".obsidian" }).loadModel(model, tokenizer, "all-MiniLM-L6-v2");
if (!config) fail("the core made no embedder");
const texts = [
  "Drip irrigation: thin hoses with emitters run along the tomato rows; a timer opens the valve at dawn.",
  "Feed the sourdough starter with flour and water every morning and bake when it doubles.",
  "同步设置：在设备之间同步笔记、插件和主题。",
];
const a = new Plain(model, tokenizer, config).embed(texts, false);
const b = new Relaxed(model, tokenizer, config).embed(texts, false);
const dim = a.length / texts.length;
let worst = 1;
let maxDiff = 0;
for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
for (let t = 0; t < texts.length; t++) {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = t * dim; i < (t + 1) * dim; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  worst = Math.min(worst, dot / Math.sqrt(na * nb));
}
if (!(worst > 0.9999)) fail(`its vectors differ from the simd128 build's: lowest cosine ${worst}`);
log(
  `validates and embeds as the simd128 build does (lowest cosine of ${texts.length} passages: ${worst.toFixed(7)}; largest difference of a component: ${maxDiff.toExponential(1)})`,
);
