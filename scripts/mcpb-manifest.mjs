// The manifest of strata.mcpb (MCP Bundle, manifest_version 0.3: what Claude Desktop installs
// with a double-click and runs with its own Node). The server is the bridge's CommonJS bundle
// with the three .wasm modules beside it; user_config asks for the vault and the write tools.

/** The tools the bridge serves (plugin/bridge/tools.ts), as the bundle lists them. */
const TOOLS = [
  ["search", "Hybrid (keyword + semantic) search of the vault's sections"],
  ["read", "Read a section, a line range or a whole note"],
  ["similar", "Notes nearest in meaning to a note or a section"],
  ["list", "Notes by folder, tag or property"],
  ["tasks", "Task list items by status, place, dates and priority, grouped and counted"],
  ["query", "Notes whose properties match an expression"],
  ["outline", "A note's headings, line ranges, section ids, tasks and links"],
  ["log", "The audit log of the tools' writes"],
  ["session_diff", "The writes since a session's last save"],
  ["project_snapshot", "A project folder at a glance"],
  ["status", "Index and embedding status"],
  ["apply_patch", "Edit one note (only when write tools are allowed)"],
  ["session_save", "Save a session note (only when write tools are allowed)"],
  ["session_compact", "Compact session notes (only when write tools are allowed)"],
  ["memory_save", "Save to layered memory (only when write tools are allowed)"],
  ["memory_search", "Search layered memory"],
];

export function mcpbManifest({ version, repository }) {
  const entry = "server/strata-mcp.cjs";
  const m = {
    manifest_version: "0.3",
    name: "strata-search",
    display_name: "Strata: search your Obsidian vault",
    version,
    description: "Lets Claude search, read and (if you allow it) edit your Obsidian vault, with Strata's local hybrid search.",
    long_description:
      "Strata indexes an Obsidian vault locally (keyword and semantic search, computed by a Rust core compiled to WebAssembly) " +
      "and serves it to Claude. When Obsidian runs with the Strata plugin's bridge on, calls go to the plugin; otherwise the " +
      "extension opens the vault's index itself. Semantic search uses the embedding model the plugin downloaded into the vault. " +
      "Nothing leaves the machine.",
    author: { name: "The Strata authors" },
    license: "MIT",
    server: {
      type: "node",
      entry_point: entry,
      mcp_config: {
        command: "node",
        args: [`\${__dirname}/${entry}`, "${user_config.vault}"],
        env: { STRATA_WRITE_TOOLS: "${user_config.write_tools}", STRATA_CONFIG_DIR: "${user_config.config_dir}" },
      },
    },
    tools: TOOLS.map(([name, description]) => ({ name, description })),
    keywords: ["obsidian", "notes", "search", "semantic search", "markdown"],
    compatibility: { platforms: ["darwin", "win32", "linux"], runtimes: { node: ">=20.0.0" } },
    user_config: {
      vault: {
        type: "directory",
        title: "Obsidian vault",
        description: "The vault folder Claude may search (the folder holding your notes).",
        required: true,
      },
      write_tools: {
        type: "boolean",
        title: "Allow write tools",
        description:
          "Lets Claude edit notes and save sessions and memory when Obsidian is not running (otherwise the plugin's setting decides).",
        default: false,
      },
      config_dir: {
        type: "string",
        title: "Obsidian config folder",
        description: "The name of the vault's Obsidian configuration folder (change it only if you changed it in Obsidian).",
        default: ".obsidian",
      },
    },
  };
  if (repository) m.repository = { type: "git", url: repository };
  return m;
}
