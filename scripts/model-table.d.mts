// Types of what scripts/model-table.mjs exports (the tests build model tables with it).
import type { ModelTable, TableModel } from "../plugin/core/model-download.ts";

export const PART_SIZE: number;
export function partName(id: string, file: string, i: number): string;
export function coreModels(wasmDir?: string): Promise<{ id: string; license: string; fetchScript: string }[]>;
export function modelTable(opts: {
  version: string;
  models: { id: string; license: string; fetchScript?: string }[];
  modelsDir?: string;
  partSize?: number;
  cacheFile?: string | null;
  require?: string[];
}): Promise<ModelTable>;
export function describeFiles(id: string, dir: string, names: string[], opts: { license: string; partSize?: number }): Promise<TableModel>;
export const RELAXED_EMBEDDER_ID: string;
export const RELAXED_EMBEDDER_FILE: string;
export function relaxedEmbedderEntry(opts: {
  relaxedDir: string;
  wasmDir: string;
  outDir: string;
  license: string;
  partSize?: number;
}): Promise<TableModel>;
export function writeEntryParts(entry: TableModel, dir: string, outDir: string): Promise<void>;
export function writeParts(table: ModelTable, modelsDir: string, outDir: string): Promise<void>;
export function repositoryUrl(pkg: { repository?: string | { url?: string } }): string;
