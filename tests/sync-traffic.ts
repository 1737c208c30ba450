// The bytes a sync service must carry for Strata's index folder: after a one-note edit, over a
// day of typical editing, and for the whole index with its embeddings. The desktop is the CLI
// (`strata index`, device "desk"), each editing session one run: one flush, as the plugin
// persists once after a burst of edits. After each run the index folder is compared with the
// one before: every file created or changed is what sync uploads (a deletion carries no bytes).
//
//   node --import tsx tests/sync-traffic.ts [--vault DIR] [--index DIR] [--model M | --no-embed]
//                                           [--sessions 40] [--seed 7] [--folder en]
//
// --index copies an index folder a desktop made for this vault (build/artifacts/ui/phone-desktop-index
// after `npm run bench:plugin -- --phone`, embedded with all-MiniLM-L6-v2); without it the CLI
// indexes the vault first (lexically with --no-embed). The vault is copied; nothing is written to
// the original. Needs `npm run build` (dist/strata.js).

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, unlink, writeFile } from "node:fs/promises";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

import { newestManifest } from "./index-manifest.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INDEX = ".obsidian/plugins/strata-search/index";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const VAULT = path.resolve(arg("--vault", path.join(ROOT, "..", "shared", "vaults", "obsidian-help")));
const GIVEN_INDEX = process.argv.includes("--index") ? path.resolve(arg("--index", "")) : null;
const NO_EMBED = process.argv.includes("--no-embed");
const MODEL = arg("--model", "all-MiniLM-L6-v2");
const SESSIONS = Number(arg("--sessions", "40"));
/** The folder whose notes the day edits (the help vault's English notes). */
const FOLDER = arg("--folder", "en");
let seed = Number(arg("--seed", "7"));

/** A small seeded generator (mulberry32): the same day of edits on every run. */
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];

/** Every file of the index folder: its size and its bytes' hash. */
async function snapshot(vault: string): Promise<Map<string, { size: number; hash: string }>> {
  const root = path.join(vault, INDEX);
  const out = new Map<string, { size: number; hash: string }>();
  const walk = async (rel: string) => {
    for (const e of await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => [])) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(name);
      else {
        const bytes = await readFile(path.join(root, name));
        out.set(name, { size: bytes.length, hash: createHash("sha256").update(bytes).digest("hex") });
      }
    }
  };
  await walk("");
  return out;
}

/** The segments the device's newest manifest lists and has not merged into another. */
async function liveSegments(vault: string): Promise<Set<string>> {
  const texts: string[] = [];
  const walk = async (d: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(path.join(d, e.name));
      else if (/^manifest-[ab]\.json$/.test(e.name)) texts.push(await readFile(path.join(d, e.name), "utf8"));
    }
  };
  await walk(path.join(vault, INDEX, "devices"));
  const newest = newestManifest(texts);
  return new Set((newest?.segments ?? []).filter((o) => !o.mergedInto).map((o) => o.name));
}

interface Traffic {
  /** Bytes of the files created or changed, by where they are: this device's folder, the shared vectors. */
  device: number;
  vectors: number;
  files: number;
  deleted: number;
}

function diff(before: Map<string, { hash: string }>, after: Map<string, { size: number; hash: string }>): Traffic {
  const t: Traffic = { device: 0, vectors: 0, files: 0, deleted: 0 };
  for (const [name, f] of after) {
    if (before.get(name)?.hash === f.hash) continue;
    t.files++;
    if (name.startsWith("vectors/")) t.vectors += f.size;
    else t.device += f.size;
  }
  for (const name of before.keys()) if (!after.has(name)) t.deleted++;
  return t;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`node ${args.join(" ")} exited ${code}`))));
  });
}

async function notesUnder(vault: string, folder: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await readdir(path.join(vault, rel), { withFileTypes: true })) {
      const name = `${rel}/${e.name}`;
      if (e.isDirectory()) await walk(name);
      else if (e.name.endsWith(".md")) out.push(name);
    }
  };
  await walk(folder);
  return out.sort();
}

const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;
const mb = (b: number) => `${(b / 1048576).toFixed(2)} MB`;

async function main(): Promise<void> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), "strata-traffic-"));
  const vault = path.join(tmp, "vault");
  await cp(VAULT, vault, { recursive: true, filter: (p) => !p.includes(`${path.sep}plugins${path.sep}strata-search`) });
  const env = { STRATA_DEVICE_ID: "desk", XDG_STATE_HOME: path.join(tmp, "state") };
  const cli = path.join(ROOT, "dist", "strata.js");
  const index = (threads = 1): Promise<string> =>
    run([cli, "index", vault, "--threads", String(threads), "--json", ...(NO_EMBED ? ["--no-embed"] : ["--model", MODEL])], env);
  try {
    if (GIVEN_INDEX) {
      await mkdir(path.dirname(path.join(vault, INDEX)), { recursive: true });
      await cp(GIVEN_INDEX, path.join(vault, INDEX), { recursive: true });
      await index(); // settles the copied index with the vault (nothing to do when it was made from it)
    } else {
      const t0 = Date.now();
      await index(2);
      console.log(`traffic: first index ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    let before = await snapshot(vault);
    const whole = [...before].reduce(
      (a, [n, f]) => (n.startsWith("vectors/") ? { ...a, vectors: a.vectors + f.size } : { ...a, device: a.device + f.size }),
      { device: 0, vectors: 0 },
    );
    console.log(
      `traffic: the whole index: ${before.size} files, this device's folder ${mb(whole.device)}, the shared vectors ${mb(whole.vectors)}`,
    );
    if (!GIVEN_INDEX && !NO_EMBED) {
      // Nothing is deleted before the grace period: every segment file is what the first
      // embedding sent; the segments merged into no other hold each vector once.
      const live = await liveSegments(vault);
      const files = [...before].filter(([n]) => n.startsWith("vectors/") && n.endsWith(".svec"));
      const sent = files.reduce((a, [, f]) => a + f.size, 0);
      const kept = files.filter(([n]) => live.has(n)).reduce((a, [, f]) => a + f.size, 0);
      console.log(
        `traffic: the first embedding: ${files.length} segment files, ${mb(sent)} sent for ${mb(kept)} of vectors ` +
          `(${(sent / kept).toFixed(2)}x); ${live.size} segments once the merged ones are deleted`,
      );
    }

    // The working set of a day: 25 notes of the English folder, a few edited again and again.
    const notes = await notesUnder(vault, FOLDER);
    const working = Array.from({ length: 25 }, () => pick(notes));
    const paragraphs = (await Promise.all(notes.slice(0, 60).map((n) => readFile(path.join(vault, n), "utf8"))))
      .flatMap((t) => t.split(/\n\n+/))
      .filter((p) => p.length > 200 && p.length < 800 && !p.startsWith("#") && !p.startsWith("---"));
    const edit = async (note: string) => {
      const full = path.join(vault, note);
      const text = await readFile(full, "utf8");
      await writeFile(
        full,
        random() < 0.7 ? `${text.trimEnd()}\n\n${pick(paragraphs)}\n` : text.replace(/\.(\s)/, `. ${pick(paragraphs).slice(0, 120)}$1`),
      );
    };

    // One note edited, one flush.
    await edit(working[0]);
    await index();
    let after = await snapshot(vault);
    const one = diff(before, after);
    console.log(
      `traffic: a one-note edit: ${one.files} files, this device's folder ${kb(one.device)}, vectors ${kb(one.vectors)}, ${one.deleted} deleted`,
    );
    before = after;

    // A day: SESSIONS sessions of 1–3 edits on the working set, a note created every 13 sessions,
    // one deleted.
    const day: Traffic = { device: 0, vectors: 0, files: 0, deleted: 0 };
    const per: number[] = [];
    let edits = 0;
    let created = 0;
    let deleted = 0;
    const edited = new Set<string>();
    for (let s = 0; s < SESSIONS; s++) {
      const n = 1 + Math.floor(random() * 3);
      for (let i = 0; i < n; i++) {
        const note = pick(working);
        await edit(note);
        edited.add(note);
        edits++;
      }
      if (s % 13 === 5) {
        const name = `${FOLDER}/Daily ${s}.md`;
        await writeFile(path.join(vault, name), `# Day ${s}\n\n${pick(paragraphs)}\n\n${pick(paragraphs)}\n`);
        edited.add(name);
        created++;
      }
      const gone = notes.filter((x) => !working.includes(x)).pop();
      if (s === SESSIONS - 3 && gone) {
        await unlink(path.join(vault, gone));
        deleted++;
      }
      await index();
      after = await snapshot(vault);
      const t = diff(before, after);
      for (const k of ["device", "vectors", "files", "deleted"] as const) day[k] += t[k];
      per.push(t.device + t.vectors);
      before = after;
    }
    per.sort((a, b) => a - b);
    console.log(
      `traffic: a day of ${SESSIONS} sessions (${edits} edits of ${edited.size} notes, ${created} created, ${deleted} deleted): ` +
        `this device's folder ${mb(day.device)}, vectors ${kb(day.vectors)}, ${day.files} files written, ${day.deleted} deleted; ` +
        `a session: median ${kb(per[Math.floor(per.length / 2)])}, max ${kb(per[per.length - 1])}`,
    );
    const end = [...after].reduce((a, [n, f]) => (n.startsWith("devices/") ? a + f.size : a), 0);
    console.log(`traffic: this device's folder at the end of the day: ${mb(end)} (${after.size} files in the index folder)`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
