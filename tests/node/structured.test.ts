// The structured queries end to end on a temp copy of tests/fixtures/tasks-vault: the core's
// `tasks` and `query` through the wasm, `strata tasks` and `strata query` (dist/strata.js), and
// the MCP tools `tasks` and `query` through the SDK's Client, headless and forwarded to a
// running plugin.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cp, lstat, writeFile } from "node:fs/promises";
import * as path from "node:path";
import { after, test, type TestContext } from "node:test";

import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

import type { BackendStatus, VaultBackend } from "../../plugin/core/vault-backend.ts";
import { HeadlessBackend } from "../../plugin/bridge/headless.ts";
import { newBridgeToken, startLoopbackServer, writeBridgeInfo } from "../../plugin/bridge/loopback.ts";
import { hostClock, taskLine } from "../../plugin/core/structured.ts";
import { creationTime, loadCore } from "../../plugin/node/host.ts";
import { ok, refused, spawnBridge } from "./bridge-helpers.ts";
import { cleanupTemps, indexVault, ROOT, tempDir } from "./helpers.ts";

after(cleanupTemps);

const TASKS_VAULT = path.join(ROOT, "tests", "fixtures", "tasks-vault");
const CLI = path.join(ROOT, "dist", "strata.js");
const TODAY = "2026-11-26";
const NO_MODEL_DIR = path.join(ROOT, "tests", "fixtures", "no-such-model");

async function copyTasksVault(): Promise<string> {
  const dir = path.join(await tempDir(), "vault");
  await cp(TASKS_VAULT, dir, { recursive: true });
  return dir;
}

function strata(...args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", STRATA_MODEL_DIR: NO_MODEL_DIR, STRATA_MODELS: NO_MODEL_DIR },
    timeout: 120_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("the core: tasks and query through the wasm, an edit updating the tasks", async () => {
  const vault = await copyTasksVault();
  const { core } = await indexVault(vault);
  try {
    const open = core.tasks({ today: TODAY, status: ["open"], when: "overdue", sort: "due" });
    assert.deepEqual(
      open.tasks.map((t) => `${t.path}:${t.line}`),
      ["Projects/Alpha/Plan.md:13", "Daily/2026-11-25.md:4", "Projects/Alpha/Plan.md:34", "Daily/2026-11-25.md:3"],
    );
    const spec = open.tasks[0];
    assert.equal(taskLine(spec), "- [ ] Write the spec #spec · due 2026-11-20 · priority high");
    assert.equal(spec.heading, "Alpha plan > Now");
    assert.deepEqual(spec.tags, ["spec"]);
    const grouped = core.tasks({ today: TODAY, groupBy: "status" });
    assert.equal(grouped.total, 20);
    assert.deepEqual(
      grouped.groups.map((g) => [g.key, g.count]),
      [
        ["todo", 10],
        ["in-progress", 1],
        ["done", 4],
        ["cancelled", 1],
        ["deferred", 1],
        ["question", 1],
        ["important", 1],
        ["other", 1],
      ],
    );
    const q = core.query({ where: "type = book AND rating >= 4", today: TODAY });
    assert.deepEqual(
      q.notes.map((n) => n.path),
      ["Reading/Book A.md"],
    );
    assert.deepEqual(q.notes[0].fields, { type: "book", rating: 4 });
    assert.throws(
      () => core.query({ where: "rating >=" }),
      /\[bad-request\] bad expression: expected a value after `>=` \(at character 8\)/,
    );
    assert.throws(() => core.tasks({ status: ["finished"] }), /\[bad-request\] status `finished`/);

    // An edit: the note's tasks follow without a rebuild.
    await writeFile(
      path.join(vault, "Daily/2026-11-25.md"),
      "# Wednesday\n\n- [x] Call the printer ✅ 2026-11-26\n- [ ] Buy stamps 📅 2026-11-27\n",
    );
    const { core: again, summary } = await indexVault(vault);
    core.free();
    try {
      assert.equal(summary.updated, 1);
      const daily = again.tasks({ today: TODAY, path: "Daily/2026-11-25.md" });
      assert.deepEqual(
        daily.tasks.map((t) => [t.line, t.status, t.text, t.due ?? t.done]),
        [
          [3, "x", "Call the printer", "2026-11-26"],
          [4, " ", "Buy stamps", "2026-11-27"],
        ],
      );
    } finally {
      again.free();
    }
  } catch (err) {
    core.free();
    throw err;
  }
});

test("the headless bridge builds the property columns once, in the background after its open", async () => {
  const vault = await copyTasksVault();
  const proto = (loadCore() as unknown as { prototype: { warmQueries: (this: unknown) => number } }).prototype;
  const original = proto.warmQueries;
  const built: number[] = [];
  proto.warmQueries = function (this: unknown) {
    const n = original.call(this);
    built.push(n);
    return n;
  };
  try {
    const backend = await HeadlessBackend.open({ vaultDir: vault, modelsDir: null });
    try {
      assert.deepEqual(built, [], "not within the open");
      for (let i = 0; i < 100 && built.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      // The fixture's 8 most common of its 11 properties.
      assert.deepEqual(built, [8]);
      const res = await backend.coreRead("query", { where: "owner contains ana", today: TODAY });
      assert.deepEqual(
        res.notes.map((n) => n.path),
        ["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"],
      );
      await backend.refresh(true);
      assert.deepEqual(built, [8], "once per open");
    } finally {
      await backend.close();
    }
  } finally {
    proto.warmQueries = original;
  }
});

test("hostClock: the local date, now and the offset from UTC", () => {
  const c = hostClock(new Date(2026, 10, 26, 23, 59));
  assert.equal(c.today, "2026-11-26");
  assert.equal(c.utcOffsetMinutes, -new Date(2026, 10, 26, 23, 59).getTimezoneOffset());
});

test("strata tasks and strata query", async () => {
  const vault = await copyTasksVault();
  for (const [cmd, usage] of [
    ["tasks", /^usage: strata tasks <vault> \[--status/],
    ["query", /^usage: strata query <vault> "<expression>"/],
  ] as const) {
    const help = strata(cmd, vault, "--help");
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, usage);
    assert.equal(strata("help", cmd).out, help.out);
  }

  const open = strata("tasks", vault, "--today", TODAY, "--folder", "Daily");
  assert.equal(open.code, 0, open.err);
  const lines = open.out.trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, 3), [
    "- [ ] Call the printer #errand · due 2026-11-25  Daily/2026-11-25.md:3 › Wednesday",
    "- [ ] Water the plants · due 2026-11-23  Daily/2026-11-25.md:4 › Wednesday",
    "- [ ] Read chapter 3 · scheduled 2026-11-29  Daily/2026-11-25.md:5 › Wednesday",
  ]);
  assert.match(lines[3], /^3 tasks \(todo 3\) · [\d.]+ ms$/);
  assert.equal(lines.length, 4);

  const grouped = strata("tasks", vault, "--today", TODAY, "--status", "all", "--group-by", "status", "--limit", "2");
  assert.equal(grouped.code, 0, grouped.err);
  assert.match(grouped.out, /^todo \(10\)\n {2}- \[ \] Call the printer/);
  assert.match(grouped.out, /\n {2}… 8 more\nin-progress \(1\)\n/);
  assert.match(
    grouped.out,
    /20 tasks \(todo 10, in-progress 1, done 4, cancelled 1, deferred 1, question 1, important 1, other 1\), 2 shown \(--limit\)/,
  );

  const json = strata("tasks", vault, "--today", TODAY, "--when", "this week", "--sort", "due", "--json");
  assert.equal(json.code, 0, json.err);
  const body = JSON.parse(json.out);
  assert.equal(body.request.when, "this-week");
  assert.deepEqual(
    body.tasks.map((t: { path: string; line: number }) => `${t.path}:${t.line}`),
    [
      "Daily/2026-11-25.md:4",
      "Projects/Alpha/Plan.md:34",
      "Daily/2026-11-25.md:3",
      "Projects/Alpha/Plan.md:15",
      "Projects/Alpha/Plan.md:37",
      "Projects/Alpha/Plan.md:16",
      "Daily/2026-11-25.md:5",
    ],
  );

  const where = strata("tasks", vault, "--today", TODAY, "--where", "status = draft", "--status", "done");
  assert.match(where.out, /^- \[x\] Kick-off · done 2026-11-02 {2}Projects\/Beta\/Notes\.md:10 › Beta notes\n/);

  const q = strata("query", vault, "type = book OR status exists", "--sort", "type desc, file.name", "--today", TODAY);
  assert.equal(q.code, 0, q.err);
  assert.deepEqual(q.out.trimEnd().split("\n").slice(0, 4), [
    'Reading/Book A.md  type="book"  status=null  file.name="Book A"',
    'Reading/Book B.md  type="book"  status=null  file.name="Book B"',
    'Projects/Beta/Notes.md  type=null  status="draft"  file.name="Notes"',
    'Projects/Alpha/Plan.md  type=null  status="active"  file.name="Plan"',
  ]);
  assert.match(q.out, /\n4 notes · [\d.]+ ms\n$/);
  const qj = JSON.parse(strata("query", vault, "file.mtime >= today-3650d", "--limit", "2", "--json").out);
  assert.equal(qj.total, 5);
  assert.equal(qj.notes.length, 2);

  const outline = strata("outline", vault, "Projects/Alpha/Plan.md", "--tasks", "1");
  assert.equal(outline.code, 0, outline.err);
  assert.deepEqual(outline.out.trimEnd().split("\n").slice(1), [
    "# Alpha plan (lines 9–38)",
    "  ## Now (lines 11–23)",
    "    - [ ] Write the spec #spec · due 2026-11-20 · priority high (line 13)",
    "    … 8 more",
    "    links: [[Types]] (line 16)",
    "  ## Later (lines 24–38)",
    "    - [ ] Numbered task · scheduled 2026-12-07 · priority low (line 26)",
    "    … 5 more",
  ]);
  const oj = JSON.parse(strata("outline", vault, "Daily/2026-11-25.md", "--json").out);
  assert.deepEqual(
    oj.headings.map((h: { text: string; tasks: { line: number }[] }) => [h.text, h.tasks.map((t) => t.line)]),
    [["Wednesday", [3, 4, 5]]],
  );
  assert.match(strata("outline", vault, "--help").out, /^usage: strata outline <vault> <note path>/);
  assert.equal(strata("outline", vault, "Nope.md").code, 2);

  // strata search --where: the notes of the hits match the expression.
  const found = (r: { out: string }) =>
    [...new Set(JSON.parse(r.out).hits.map((h: { path: string }) => h.path))].sort((a, b) => String(a).localeCompare(String(b)));
  const books = strata("search", vault, "book", "--mode", "lexical", "--where", "type = book AND rating > 3", "--json");
  assert.equal(books.code, 0, books.err);
  assert.deepEqual(found(books), ["Reading/Book A.md"]);
  const others = strata("search", vault, "book OR plan OR notes", "--where", "NOT file.folder = reading", "--json");
  assert.equal(others.code, 0, others.err);
  assert.deepEqual(found(others), ["Projects/Alpha/Plan.md", "Projects/Beta/Notes.md"]);
  const withProperty = strata("search", vault, "book", "--property", "type=book", "--where", "draft exists", "--json");
  assert.deepEqual(found(withProperty), ["Reading/Book B.md"]);
  const badWhere = strata("search", vault, "book", "--where", "rating >");
  assert.equal(badWhere.code, 2);
  assert.match(badWhere.err, /^strata: bad expression: expected a value after `>` \(at character 8\)\n {2}rating >\n {9}\^/);
  assert.match(strata("search", vault, "--help").out, /\[--where "<expression>"\]/);

  // Bad input: exit 2 with the reason (and where in the expression).
  const bad = strata("query", vault, "status = draft AND (");
  assert.equal(bad.code, 2);
  assert.match(
    bad.err,
    /bad expression: expected a field name, found the end of the expression \(at character 21\)\n {2}status = draft AND \(\n {22}\^/,
  );
  for (const args of [
    ["tasks", vault, "--when", "someday"],
    ["tasks", vault, "--today", "26.11.2026"],
    ["tasks", vault, "--status", "finished"],
    ["tasks", vault, "--due-before", "next week"],
    ["query", vault, "rating > ", "--today", TODAY],
    ["query", vault, "a = 1", "--sort", "file.nope"],
  ]) {
    const r = strata(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /^strata: /);
  }
});

test("strata query on file.ctime: each note's creation time from the file system", async () => {
  const vault = path.join(await tempDir(), "vault");
  await cp(TASKS_VAULT, vault, { recursive: true });
  await writeFile(path.join(vault, "Fresh.md"), "# Fresh\n\nwritten just now\n");
  const created = new Map<string, number | undefined>();
  for (const p of ["Fresh.md", "Projects/Alpha/Plan.md"]) created.set(p, creationTime(await lstat(path.join(vault, p))));
  // Every file system Node runs on gives a birth time or an inode change time.
  assert.ok((created.get("Fresh.md") ?? 0) > Date.parse("2020-01-01"), `${created.get("Fresh.md")}`);

  const after = strata("query", vault, "file.ctime > 2020-01-01", "--sort=-file.ctime, file.path", "--json");
  assert.equal(after.code, 0, after.err);
  const res = JSON.parse(after.out);
  assert.equal(res.total, 6);
  for (const n of res.notes as { path: string; fields: Record<string, unknown> }[]) {
    if (created.has(n.path)) assert.equal(n.fields["file.ctime"], created.get(n.path), n.path);
    assert.equal(typeof n.fields["file.ctime"], "number", n.path);
  }
  const before = strata("query", vault, "file.ctime < 2020-01-01", "--json");
  assert.equal(JSON.parse(before.out).total, 0);
  assert.equal(JSON.parse(strata("query", vault, "file.ctime !exists", "--json").out).total, 0);
  // Text: the time as a date, like file.mtime.
  const text = strata("query", vault, "file.name = fresh AND file.ctime >= today-1d");
  assert.equal(text.code, 0, text.err);
  const shown = new Date(created.get("Fresh.md")!).toISOString().slice(0, 16).replace("T", " ");
  assert.equal(text.out.split("\n")[0], `Fresh.md  file.name="Fresh"  file.ctime=${shown}`);
  // The search filter takes it too.
  const search = strata("search", vault, "fresh", "--mode", "lexical", "--where", "file.ctime > 2020-01-01", "--json");
  assert.equal(search.code, 0, search.err);
  assert.ok(JSON.stringify(JSON.parse(search.out)).includes("Fresh.md"));
});

/** The in-process backend reporting itself as the plugin (what the bridge forwards to). */
function asPlugin(b: HeadlessBackend): VaultBackend {
  return {
    status: async (): Promise<BackendStatus> => ({ ...(await b.status()), mode: "plugin" }),
    settings: () => b.settings(),
    search: (r) => b.search(r),
    read: (r) => b.read(r),
    coreRead: (read, r) => b.coreRead(read, r),
    note: (p) => b.note(p),
    recordAccess: (p) => b.recordAccess(p),
    readText: (p) => b.readText(p),
    writeText: (p, t, e) => b.writeText(p, t, e),
    outline: (t) => b.outline(t),
    appendPluginFile: (n, t) => b.appendPluginFile(n, t),
    readPluginFile: (n) => b.readPluginFile(n),
  };
}

async function exerciseStructuredTools(t: TestContext, client: Client, mode: "headless" | "plugin") {
  await t.test(`${mode}: tasks and query are listed as read-only tools`, async () => {
    const { tools } = await client.listTools();
    for (const name of ["tasks", "query"]) {
      const tool = tools.find((x) => x.name === name);
      assert.ok(tool, name);
      assert.equal(tool.annotations?.readOnlyHint, true);
      assert.equal(tool.annotations?.destructiveHint, false);
    }
    assert.equal((await ok(client, "status")).data.mode, mode);
  });

  await t.test(`${mode}: tasks, open by default, with paths, lines and headings`, async () => {
    const r = await ok(client, "tasks", { today: TODAY, when: "overdue", sort: "due" });
    assert.deepEqual(
      r.data.tasks.map((x: { path: string; line: number }) => `${x.path}:${x.line}`),
      ["Projects/Alpha/Plan.md:13", "Daily/2026-11-25.md:4", "Projects/Alpha/Plan.md:34", "Daily/2026-11-25.md:3"],
    );
    assert.deepEqual(r.data.tasks[0], {
      path: "Projects/Alpha/Plan.md",
      line: 13,
      status: " ",
      kind: "todo",
      text: "Write the spec #spec",
      heading: "Alpha plan > Now",
      tags: ["spec"],
      priority: "high",
      due: "2026-11-20",
    });
    assert.match(
      r.text,
      /^4 tasks \(todo 4\) match; showing 4\n\n- \[ \] Write the spec #spec · due 2026-11-20 · priority high — Projects\/Alpha\/Plan\.md:13\n/,
    );

    const g = await ok(client, "tasks", { today: TODAY, status: ["all"], group_by: "note", limit: 3 });
    assert.equal(g.data.total, 20);
    assert.deepEqual(
      g.data.groups.map((x: { key: string; count: number; tasks: unknown[] }) => [x.key, x.count, x.tasks.length]),
      [
        ["Daily/2026-11-25.md", 3, 3],
        ["Projects/Alpha/Plan.md", 15, 0],
        ["Projects/Beta/Notes.md", 2, 0],
      ],
    );
    assert.equal(g.data.by_status.done, 4);
    assert.match(g.text, /## Projects\/Alpha\/Plan\.md \(15\)\n… 15 more/);
    assert.match(g.text, /More: raise limit/);

    const cjk = await ok(client, "tasks", { today: TODAY, text: "中文", where: "file.tags contains alpha" });
    assert.deepEqual(
      cjk.data.tasks.map((x: { line: number }) => x.line),
      [37],
    );
    const custom = await ok(client, "tasks", { status: ["/", "cancelled"], due: { on: "today" }, today: TODAY });
    assert.deepEqual(
      custom.data.tasks.map((x: { line: number }) => x.line),
      [15],
    );
  });

  await t.test(`${mode}: query by properties, sorted and paged`, async () => {
    const r = await ok(client, "query", { where: "owner contains ana", sort: "priority desc", today: TODAY });
    assert.deepEqual(
      r.data.notes.map((n: { path: string; fields: object }) => [n.path, n.fields]),
      [
        ["Projects/Beta/Notes.md", { owner: ["Ben", "Ana"], priority: 5 }],
        ["Projects/Alpha/Plan.md", { owner: "Ana", priority: 2 }],
      ],
    );
    assert.match(r.text, /^2 notes match; showing 2 from offset 0\n\n- Projects\/Beta\/Notes\.md · owner: \["Ben","Ana"\] · priority: 5\n/);
    const page = await ok(client, "query", { limit: 2, offset: 2 });
    assert.equal(page.data.total, 5);
    assert.deepEqual(
      page.data.notes.map((n: { path: string }) => n.path),
      ["Projects/Beta/Notes.md", "Reading/Book A.md"],
    );
    assert.match(page.text, /More: query again with offset 4\./);
    // Each note's creation time, from the file system of the vault (headless or the plugin's).
    const created = await ok(client, "query", { where: "file.ctime > 2020-01-01", sort: "file.path", today: TODAY });
    assert.equal(created.data.total, 5);
    assert.match(created.text, /- Daily\/2026-11-25\.md · file\.ctime: \d{4}-\d\d-\d\dT/);
  });

  await t.test(`${mode}: search with a where expression`, async () => {
    const paths = (r: { data: Record<string, any> }) => [...new Set(r.data.results.map((h: { path: string }) => h.path))].sort();
    const books = await ok(client, "search", {
      queries: ["book"],
      mode: "lexical",
      filters: { where: "type = book AND NOT draft exists" },
    });
    assert.deepEqual(paths(books), ["Reading/Book A.md"]);
    const drafts = await ok(client, "search", {
      queries: ["book OR notes OR plan"],
      filters: { where: "status = draft OR rating = five", property: { key: "type", value: "book" } },
    });
    assert.deepEqual(paths(drafts), ["Reading/Book B.md"]);
    const none = await ok(client, "search", { queries: ["book"], filters: { where: "file.folder = Projects/Beta" } });
    assert.deepEqual(paths(none), []);
    await refused(
      client,
      "search",
      { queries: ["book"], filters: { where: "rating >= (" } },
      /invalid arguments for search: bad expression: .*\(at character 11\)/,
    );
  });

  await t.test(`${mode}: outline: headings with their lines, tasks under the heading that holds them`, async () => {
    const o = await ok(client, "outline", { path: "Projects/Alpha/Plan.md", tasks: 2 });
    assert.deepEqual(
      o.data.headings.map((h: Record<string, any>) => [h.level, h.text, h.line, h.end_line, h.task_count, h.tasks.length]),
      [
        [1, "Alpha plan", 9, 38, 0, 0],
        [2, "Now", 11, 23, 9, 2],
        [2, "Later", 24, 38, 6, 2],
      ],
    );
    assert.equal(o.data.headings[2].tasks[0].text, "Numbered task");
    assert.deepEqual(
      o.data.headings.map((h: Record<string, any>) => [h.link_count, h.links]),
      [
        [0, []],
        [1, [{ target: "Types", alias: "types", line: 16 }]],
        [0, []],
      ],
    );
    assert.deepEqual(o.data.links_before_headings, []);
    assert.match(o.text, /^Projects\/Alpha\/Plan\.md: 38 lines, 3 headings, 15 tasks \(/);
    assert.match(
      o.text,
      /\n {2}## Now \(lines 11–23\)\n {4}- \[ \] Write the spec #spec · due 2026-11-20 · priority high \(line 13\)\n {4}- \[x\] Book the room · due 2026-11-19 · done 2026-11-18 \(line 14\)\n {4}… 7 more\n/,
    );
    await refused(client, "outline", { path: "Nope.md" }, /Nope\.md does not exist/);
    // Not the write tools' message: a code file has no headings, and the answer says where to go.
    await refused(
      client,
      "outline",
      { path: "src/app.py" },
      /src\/app\.py is not a Markdown note: outline lists the headings of \.md notes\. For a code file, read a definition with read \{path, symbol\}/,
    );
  });

  await t.test(`${mode}: bad input is a tool error that says what to fix`, async () => {
    await refused(client, "query", { where: "status = draft AND (" }, /invalid arguments for query: bad expression: .*\(at character 21\)/);
    await refused(client, "query", { where: "x exists", sort: "file.nope" }, /bad sort: unknown field `file\.nope`/);
    await refused(client, "tasks", { status: ["finished"] }, /invalid arguments for tasks: status `finished`/);
    await refused(client, "tasks", { when: "someday" }, /when must be one of "overdue", "today", "this-week"/);
    await refused(client, "tasks", { due: { before: "next week" } }, /due\.before: `next week` is not a date/);
    await refused(client, "tasks", { today: "soon" }, /today must be a date/);
    await refused(client, "tasks", { folder: "../outside" }, /may not leave the vault/);
    await refused(client, "tasks", { path: ".obsidian/app.json" }, /the config folder \.obsidian is not part of the notes/);
    await refused(client, "tasks", { limit: 5000 }, /limit must be between 1 and 200/);
  });
}

test("MCP tools tasks and query: headless, and forwarded to a running plugin", async (t) => {
  const vault = await copyTasksVault();
  const { core } = await indexVault(vault);
  core.free();
  const headless = await spawnBridge([vault, "--no-model"]);
  try {
    await exerciseStructuredTools(t, headless.client, "headless");
  } finally {
    await headless.close();
  }

  const backend = await HeadlessBackend.open({
    vaultDir: vault,
    modelSetting: "all-MiniLM-L6-v2",
    settings: { writeToolsEnabled: true },
  });
  const token = newBridgeToken();
  const server = await startLoopbackServer({ backend: asPlugin(backend), token, port: 0 });
  await writeBridgeInfo(path.join(vault, ".obsidian/plugins/strata-search"), {
    port: server.port,
    token,
    pid: process.pid,
    vault: "vault",
  });
  const forwarded = await spawnBridge([vault]);
  try {
    await exerciseStructuredTools(t, forwarded.client, "plugin");
    await t.test("plugin: a forwarded write records the bridge's client and what it was based on", async () => {
      await ok(forwarded.client, "memory_save", {
        level: "project",
        text: "Alpha ships in December.",
        based_on: ["Projects/Alpha/Plan.md"],
      });
      const log = await ok(forwarded.client, "log", {});
      assert.deepEqual(
        log.data.entries.map((e: Record<string, unknown>) => [e.tool, e.actor, e.based_on]),
        [["memory_save", "strata-test 1.0.0", ["Projects/Alpha/Plan.md"]]],
      );
    });
  } finally {
    await forwarded.close();
    await server.close();
    await backend.close();
  }
});
