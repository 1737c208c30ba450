// The Obsidian community review's lint, as its bot runs it: eslint-plugin-obsidianmd's
// recommended config as it is, without this repository's overrides (eslint.config.mjs), over the
// plugin's code, plugin/obsidian and the shared client plugin/core:
//   node_modules/.bin/eslint -c eslint.review.config.mjs --max-warnings 3 plugin/obsidian plugin/core
// It gives no error and 3 warnings, each about code that is right as it is, with its reason written
// beside it in a plain comment (the review forbids disabling its obsidianmd/* rules in place, so a
// config here cannot silence them):
// - plugin/core/global-scope.ts (obsidianmd/no-global-this): the one read of `globalThis`, for the
//   timers and hooks of code that runs in the search worker and in Node, where there is no window;
// - plugin/obsidian/sidebar.ts (obsidianmd/ui/sentence-case): the tag filter's "#tag" placeholder,
//   a tag as it is written;
// - plugin/obsidian/settings-claude.ts (obsidianmd/ui/sentence-case): the Claude Code row's text
//   when the build has no bridge, with its product names (MCP, Strata, Claude Desktop).
// The Node host of the shared client (plugin/node: Node's built-in modules, `process`, Node's
// fetch, the CLI's default config folder) is not in the plugin's code: the plugin never loads it,
// but plugin/node/source-folder.ts, which model-install.ts imports lazily on desktop only.
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
