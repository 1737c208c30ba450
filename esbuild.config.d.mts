// Types of what esbuild.config.mjs exports (the UI harness builds with the plugin's options).
import type { BuildOptions, Plugin } from "esbuild";

export function inlinePlugin(): Plugin;
export function pluginBuildOptions(opts: {
  entry: string;
  outfile: string;
  alias?: Record<string, string>;
  format?: "cjs" | "iife" | "esm";
}): Promise<BuildOptions>;
