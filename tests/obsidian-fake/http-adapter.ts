// The browser harness's DataAdapter: every call goes to the test server, which runs it on an
// FsAdapter over a real temporary folder (fs-adapter.ts serveAdapterCall).

import type { FakeAdapter, FakeStat, ScannedFile } from "./adapter.ts";

export class HttpAdapter implements FakeAdapter {
  constructor(
    private readonly base: string,
    private readonly name: string,
  ) {}

  private async call<T>(op: string, args: unknown[], body?: ArrayBuffer): Promise<T> {
    const url = `${this.base}/fs?op=${op}&args=${encodeURIComponent(JSON.stringify(args))}`;
    // A Blob body: Chromium copies an ArrayBuffer body on the calling thread inside fetch()
    // (measured: 100–800 ms main-thread tasks for the index's larger files), work that
    // Obsidian's own adapter (Node's fs in the renderer) does not do.
    const res = await fetch(url, { method: "POST", body: body ? new Blob([body]) : null });
    if (!res.ok) throw new Error(`${op} ${JSON.stringify(args)}: ${await res.text()}`);
    if (op === "readBinary") return (await res.arrayBuffer()) as T;
    return (await res.json()) as T;
  }

  getName(): string {
    return this.name;
  }
  exists(p: string) {
    return this.call<boolean>("exists", [p]);
  }
  stat(p: string) {
    return this.call<FakeStat | null>("stat", [p]);
  }
  list(p: string) {
    return this.call<{ files: string[]; folders: string[] }>("list", [p]);
  }
  read(p: string) {
    return this.call<string>("read", [p]);
  }
  readBinary(p: string) {
    return this.call<ArrayBuffer>("readBinary", [p]);
  }
  async write(p: string, data: string) {
    await this.call("write", [p], new TextEncoder().encode(data).buffer);
  }
  async writeBinary(p: string, data: ArrayBuffer) {
    await this.call("writeBinary", [p], data);
  }
  async appendBinary(p: string, data: ArrayBuffer) {
    await this.call("appendBinary", [p], data);
  }

  async append(p: string, data: string) {
    await this.call("append", [p], new TextEncoder().encode(data).buffer);
  }
  async mkdir(p: string) {
    await this.call("mkdir", [p]);
  }
  async remove(p: string) {
    await this.call("remove", [p]);
  }
  async rmdir(p: string, recursive: boolean) {
    await this.call("rmdir", [p, recursive]);
  }
  async rename(from: string, to: string) {
    await this.call("rename", [from, to]);
  }
  scan() {
    return this.call<{ files: ScannedFile[]; folders: string[] }>("scan", []);
  }
}
