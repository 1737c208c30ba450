// The parts of Obsidian's DataAdapter the plugin uses, plus scan() (the vault's files with
// their stats, as Obsidian reads them when a vault opens). Implemented over a real folder in
// Node (fs-adapter.ts) and over HTTP to that folder in the browser harness (http-adapter.ts).

export interface FakeStat {
  type: "file" | "folder";
  ctime: number;
  mtime: number;
  size: number;
}

export interface ScannedFile {
  path: string;
  stat: FakeStat;
}

export interface FakeAdapter {
  getName(): string;
  exists(path: string): Promise<boolean>;
  stat(path: string): Promise<FakeStat | null>;
  list(path: string): Promise<{ files: string[]; folders: string[] }>;
  read(path: string): Promise<string>;
  readBinary(path: string): Promise<ArrayBuffer>;
  write(path: string, data: string): Promise<void>;
  writeBinary(path: string, data: ArrayBuffer): Promise<void>;
  append(path: string, data: string): Promise<void>;
  appendBinary(path: string, data: ArrayBuffer): Promise<void>;
  mkdir(path: string): Promise<void>;
  remove(path: string): Promise<void>;
  rmdir(path: string, recursive: boolean): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  /** Every file and folder of the vault outside dot-folders (the config folder included in no listing). */
  scan(): Promise<{ files: ScannedFile[]; folders: string[] }>;
  /** Desktop only: the vault's folder on disk. */
  getBasePath?(): string;
}
