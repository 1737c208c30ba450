// The Obsidian community review's lint, as its bot runs it: eslint-plugin-obsidianmd's
// recommended config as it is, without this repository's overrides (eslint.config.mjs), over the
// plugin's code, plugin/obsidian and the shared client plugin/core:
//   node_modules/.bin/eslint -c eslint.review.config.mjs --max-warnings <N> plugin/obsidian plugin/core
// It gives no error. The warnings it gives are about code that never runs in Obsidian's window
// or on mobile, which the bot cannot tell, and a config here cannot silence them (the review
// forbids disabling its obsidianmd/* rules in place):
// - the Node modules of the CLI and the bridge (plugin/core/node.ts, node-models.ts,
//   node-folder.ts, embedding/pool-worker-node.ts): Node's built-in modules, `process`, Node's
//   fetch, the CLI's default config folder. The plugin never loads them, but node-folder.ts on
//   desktop (imported lazily behind Platform.isDesktopApp, for an import from a folder on disk);
// - plugin/core/global-scope.ts: the one read of `globalThis`, for the timers of code that runs
//   in the search worker and in Node, where there is no window;
// - sentence case: the tag filter's "#tag" placeholder (a tag as it is written) and the Claude
//   row's product names (MCP, Strata, Claude Desktop).
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
]);
