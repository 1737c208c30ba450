// What the parts of the bench share: the core's configuration and the fixed query list.

import type { CoreConfig } from "../core/api.ts";

export const CONFIG: CoreConfig = { configDir: ".obsidian" };

/** Fixed query list for latency: the kinds of words people type, in several of the vault's languages. */
export const BENCH_QUERIES = [
  "canvas",
  "graph view",
  "sync",
  "publish",
  "hotkeys",
  "templates",
  "daily notes",
  "internal links",
  "embed files",
  "callouts",
  "community plugins",
  "vault",
  "backlinks",
  "search operators",
  "properties",
  "bookmarks",
  "workspaces",
  "markdown",
  "themes",
  "css snippets",
  "command palette",
  "file recovery",
  "outline",
  "tags",
  "aliases",
  "format your notes",
  "attachments",
  "mobile",
  "slides",
  "footnotes",
  "同步",
  "插件",
  "链接",
  "笔记",
  "模板",
  "ノート",
  "プラグイン",
  "検索",
  "リンク",
  "テンプレート",
];

/** Timed rounds over BENCH_QUERIES (after one warm-up round). */
export const QUERY_ROUNDS = 5;
