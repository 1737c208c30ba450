// The plugin's "Show open tasks" command and the search sidebar's where filter: the fake `obsidian`
// module over a copy of tests/fixtures/tasks-vault, the real worker and wasm core; the modal lists
// the open tasks by note and opens a note at a task's line.

import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import * as path from "node:path";
import { after, test } from "node:test";

import type { StrataView } from "../../plugin/obsidian/sidebar.ts";
import type { TasksModal } from "../../plugin/obsidian/tasks-modal.ts";
import { cleanupTemps, ROOT, tempDir } from "./helpers.ts";
import { eventually, loadPlugin, Modal, unloadPlugin, workerState } from "./plugin-env.ts";

after(cleanupTemps);

test("Show open tasks: open tasks grouped by note, earliest due first; a click opens the note at the task's line", async () => {
  const vault = path.join(await tempDir(), "vault");
  await cp(path.join(ROOT, "tests", "fixtures", "tasks-vault"), vault, { recursive: true });
  const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
  try {
    assert.ok(app.runCommand("strata-search:show-open-tasks"));
    const modal = Modal.current as unknown as TasksModal;
    assert.equal(modal.titleEl.getText(), "Open tasks");
    await modal.settled;
    assert.match(modal.infoEl.getText(), /^15 tasks \(todo 10, in-progress 1, deferred 1, question 1, important 1, other 1\)$/);
    // The fake DOM's elements: text, and events dispatched by name.
    type El = { getText(): string; dispatch(type: string, ev?: unknown): void };
    const items = [...modal.list.containerEl.querySelectorAll(".strata-result")] as unknown as El[];
    assert.equal(items.length, 15);
    const texts = items.map((el) => el.getText());
    // The first note (by path), its earliest due task first, under the note's name and count.
    assert.equal(texts[0], "Daily/2026-11-25 (3)[ ] Water the plants · due 2026-11-23Wednesday · line 4");
    assert.equal(texts[1], "[ ] Call the printer #errand · due 2026-11-25Wednesday · line 3");
    assert.match(texts[3], /^Projects\/Alpha\/Plan \(11\)\[ \] Write the spec #spec · due 2026-11-20 · priority high/);
    assert.ok(texts.some((t) => t.startsWith("[ ] 检查中文翻译 #翻译 · due 2026-11-26")));
    assert.ok(!texts.some((t) => t.includes("Kick-off") || t.includes("Book the room")), "no done task");

    items[1].dispatch("click", { metaKey: false, ctrlKey: false });
    await eventually(async () => app.workspace.opened.length > 0, 5000, "the note opened");
    assert.deepEqual(app.workspace.opened.at(-1), { file: "Daily/2026-11-25.md", eState: { line: 2 }, newTab: false });

    // An edit shows up: a new open task, once the debounced change is indexed.
    const file = app.vault.getFileByPath("Daily/2026-11-25.md")!;
    await app.vault.modify(file, "# Wednesday\n\n- [x] Call the printer\n- [ ] Post the letter 📅 2026-11-20\n");
    await eventually(
      async () =>
        (await plugin.tasks({ status: ["open"], path: "Daily/2026-11-25.md" })).tasks.map((t) => t.text).join() === "Post the letter",
      10_000,
      "the edited note's tasks",
    );
  } finally {
    await unloadPlugin(plugin);
  }
});

test("After the reconcile the worker builds the property columns of the queries, once per opened index", async () => {
  const vault = path.join(await tempDir(), "vault");
  await cp(path.join(ROOT, "tests", "fixtures", "tasks-vault"), vault, { recursive: true });
  const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
  try {
    // The fixture's 8 most common of its 11 properties.
    await eventually(async () => (await workerState(plugin)).counters.queryColumnsWarmed === 8, 10_000, "the columns built");
    const notes = async () => [...new Set((await plugin.tasks({ where: "owner contains ana" })).tasks.map((t) => t.path))].sort().join();
    assert.equal(await notes(), "Projects/Alpha/Plan.md,Projects/Beta/Notes.md");
    // An edit is applied to the columns, not followed by another warm-up.
    const file = app.vault.getFileByPath("Projects/Beta/Notes.md")!;
    await app.vault.modify(file, "---\nowner: bob\n---\n# Beta\n");
    await eventually(async () => (await notes()) === "Projects/Alpha/Plan.md", 10_000, "the edited note's property");
    assert.equal((await workerState(plugin)).counters.queryColumnsWarmed, 8);
  } finally {
    await unloadPlugin(plugin);
  }
});

test("The search sidebar's where filter: only the hits of matching notes; a bad expression is shown under the field", async () => {
  const vault = path.join(await tempDir(), "vault");
  await cp(path.join(ROOT, "tests", "fixtures", "tasks-vault"), vault, { recursive: true });
  const { plugin, app } = await loadPlugin(vault, { settings: { semantic: false } });
  try {
    assert.ok(app.runCommand("strata-search:open-search-sidebar"));
    await eventually(async () => app.workspace.getLeavesOfType("strata-search").length > 0, 5000, "the sidebar");
    const view = app.workspace.getLeavesOfType("strata-search")[0].view as unknown as StrataView;
    view.depthEl.value = "relevance"; // the fake DOM's select has no default option
    const notes = () => [...new Set(view.lastResponse?.hits.map((h) => h.path))].sort();
    await eventually(
      async () => {
        await view.setQuery("book");
        return notes().length === 3;
      },
      10_000,
      "the vault indexed",
    );
    assert.deepEqual(notes(), ["Projects/Alpha/Plan.md", "Reading/Book A.md", "Reading/Book B.md"]);
    view.whereEl.value = "where: type = book AND rating > 3";
    await view.setQuery("book");
    assert.deepEqual(notes(), ["Reading/Book A.md"]);
    assert.equal(view.whereErrorEl.getText(), "");

    view.whereEl.value = "rating >";
    await view.setQuery("book");
    assert.equal(view.whereErrorEl.getText(), "expected a value after `>` (at character 8)\n  rating >\n         ^");
    assert.equal(view.infoEl.getText(), "");
    assert.equal(view.resultsEl.querySelectorAll(".strata-result").length, 0);

    view.whereEl.value = "file.mtime >= today-3650d AND NOT file.folder = reading";
    await view.setQuery("book");
    assert.equal(view.whereErrorEl.getText(), "");
    assert.deepEqual(notes(), ["Projects/Alpha/Plan.md"]);

    // Each note's creation time is Obsidian's (TFile.stat.ctime), given to the index.
    view.whereEl.value = "file.ctime > 2020-01-01 AND file.folder = reading";
    await view.setQuery("book");
    assert.equal(view.whereErrorEl.getText(), "");
    assert.deepEqual(notes(), ["Reading/Book A.md", "Reading/Book B.md"]);
    view.whereEl.value = "file.ctime !exists";
    await view.setQuery("book");
    assert.deepEqual(notes(), []);
  } finally {
    await unloadPlugin(plugin);
  }
});
