// Lint: typescript-eslint (type-checked) and the rules the Obsidian community review applies
// (eslint-plugin-obsidianmd's recommended config), over plugin/, tests/ and the build scripts.
// The plugin's UI-thread code follows them as they are. The rest runs where those rules about
// Obsidian's windows do not reach, and the blocks below say where and why.
import { defineConfig } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";
import globals from "globals";

/** Programs that run in Node, never inside Obsidian: the CLI, the bench, the stdio MCP bridge,
 *  the Node host of the shared client, the build scripts. */
const NODE_PROGRAMS = [
  "plugin/cli/**",
  "plugin/bench/**",
  "plugin/bridge/mcp-bridge.ts",
  "plugin/bridge/stdio-server.ts",
  "plugin/bridge/forward.ts",
  "plugin/bridge/headless.ts",
  "plugin/bridge/args-cli.ts",
  "plugin/node/**",
  "*.mjs",
  "*.mts",
];

/** The MCP tools and the loopback endpoint: Node programs, and inside Obsidian on desktop only
 *  (bridge-endpoint.ts imports loopback.ts lazily, behind Platform.isDesktopApp). */
const BRIDGE = ["plugin/bridge/**"];

/** Code that runs in the search worker (and the shared client, in Node too): there is no
 *  window there, so timers and globals are the worker's own. */
const WORKER_AND_SHARED = ["plugin/core/**", "plugin/obsidian/worker-*.ts", "plugin/obsidian/rpc.ts", "plugin/obsidian/wasm-inline.ts"];

export default defineConfig([
  {
    ignores: [
      "build/**",
      "dist/**",
      "node_modules/**",
      "target/**",
      "crate/**",
      "models/**",
      "main.js",
      "mcp-bridge.js",
      "tests/fixtures/**",
      "plugin/core/generated/**",
    ],
  },
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["*.mjs", "*.mts", "tests/obsidian-fake/*.mjs"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    files: ["**/*.ts"],
    rules: {
      // TypeScript checks names itself (typescript-eslint advises this rule off for TS).
      "no-undef": "off",
      "obsidianmd/ui/sentence-case": [
        "warn",
        {
          enforceCamelCaseLower: true,
          brands: ["Strata", "Obsidian", "Claude Desktop", "Claude Code", "Claude", "Node.js"],
          acronyms: ["BM25", "MCP", "ETA", "RRF"],
          // Placeholders that show example values, not sentences.
          ignoreRegex: ["^#tag$", "^Archive\\nTemplates$"],
        },
      ],
    },
  },
  {
    // No source file over 600 lines: the Rust core's rule (scripts/check-modules.py), where every
    // line counts, blank lines and comments too, and tests are excepted. The one source file over
    // it, plugin/core/generated/api.ts (generated from the Rust types by crate/src/typescript.rs,
    // never edited by hand), is exempt: it is in the ignores above. (Import cycles, type-only
    // imports included, are dependency-cruiser's check: .dependency-cruiser.json.)
    files: ["plugin/**/*.ts", "*.mjs", "*.mts"],
    rules: { "max-lines": ["error", { max: 600, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: WORKER_AND_SHARED,
    rules: {
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/no-global-this": "off",
    },
  },
  {
    files: [...BRIDGE, ...NODE_PROGRAMS],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "obsidianmd/no-nodejs-modules": "off",
      "obsidianmd/no-global-this": "off",
      // The CLI's and the bridge's default config folder, for a vault opened outside Obsidian
      // (--config-dir overrides it; the plugin passes vault.configDir).
      "obsidianmd/hardcoded-config-path": "off",
    },
  },
  {
    files: NODE_PROGRAMS,
    rules: {
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/ui/sentence-case": "off",
      "obsidianmd/regex-lookbehind": "off",
      "obsidianmd/rule-custom-message": "off",
      // Dynamic imports of a file found at run time (the bench's wasm glue), not of page content.
      "no-unsanitized/method": "off",
      // Node's fetch (a model download from the CLI): Obsidian's requestUrl does not exist there.
      "no-restricted-globals": "off",
    },
  },
  {
    // The tests: node:test's test() and describe() return promises the runner awaits, JSON
    // answers are read as `any`, assertion messages show arrays, and the harnesses evaluate
    // the bundles they build and import modules found at run time.
    files: ["tests/**"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
      "@typescript-eslint/no-misused-promises": "off",
      "@typescript-eslint/no-implied-eval": "off",
      "no-unsanitized/method": "off",
      "obsidianmd/no-nodejs-modules": "off",
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/no-global-this": "off",
      "obsidianmd/hardcoded-config-path": "off",
      "obsidianmd/ui/sentence-case": "off",
      "obsidianmd/rule-custom-message": "off",
      "obsidianmd/regex-lookbehind": "off",
      // The fake obsidian module is the DOM and the vault that those rules assume.
      "obsidianmd/prefer-create-el": "off",
      "obsidianmd/prefer-file-manager-trash-file": "off",
      "no-restricted-globals": "off",
      "import/no-extraneous-dependencies": "off",
    },
  },
]);
