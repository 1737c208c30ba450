// A small typed RPC over a message port (a Web Worker, a worker_threads port, or one end of a
// MessageChannel). Both ends can call the other: the UI thread calls the worker's server, the
// server calls the UI thread back for file I/O (only the UI thread can reach app.vault).
//
// Messages: {t:"req", id, method, arg} → {t:"res", id, ok, value | error}; {t:"cancel", id}
// aborts the callee's signal for that request; {t:"evt", name, data} is one-way. A caller
// that aborts gets its promise rejected at once (the UI never waits on a stale answer).

/** What postMessage/onmessage need: Worker, DedicatedWorkerGlobalScope, MessagePort. */
export interface PortLike {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((ev: MessageEvent) => unknown) | null;
}

/** A method table: every method takes one argument (of its own type: `never` here accepts any). */
export type Api = Record<string, (arg: never) => unknown>;

export interface CallContext {
  /** Aborted when the caller cancels the request (or the endpoint closes). */
  signal: AbortSignal;
}

/** The implementation of an Api: same methods, with a context, sync or async. */
export type Handlers<A extends Api> = {
  [K in keyof A]: (
    arg: Parameters<A[K]>[0],
    ctx: CallContext,
  ) =>
    | Awaited<ReturnType<A[K]>>
    | Promise<Awaited<ReturnType<A[K]>>>
    | Transfer<Awaited<ReturnType<A[K]>>>
    | Promise<Transfer<Awaited<ReturnType<A[K]>>>>;
};

/** A return value (or argument) whose buffers are moved, not copied. */
export class Transfer<T> {
  constructor(
    readonly value: T,
    readonly list: Transferable[],
  ) {}
}

export function transfer<T>(value: T, list: Transferable[]): Transfer<T> {
  return new Transfer(value, list);
}

export interface CallOptions {
  signal?: AbortSignal;
  transfer?: Transferable[];
}

/** The error a cancelled call rejects with. */
export class CancelledError extends Error {
  constructor() {
    super("[cancelled] superseded or cancelled");
    this.name = "CancelledError";
  }
}

export function isCancelled(err: unknown): boolean {
  return err instanceof CancelledError || (err instanceof Error && err.message.startsWith("[cancelled]"));
}

type Msg =
  | { t: "req"; id: number; method: string; arg: unknown }
  | { t: "res"; id: number; ok: true; value: unknown }
  | { t: "res"; id: number; ok: false; error: string }
  | { t: "cancel"; id: number }
  | { t: "evt"; name: string; data: unknown };

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  cleanup(): void;
}

export class Endpoint<Remote extends Api, Local extends Api> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly running = new Map<number, AbortController>();
  private readonly listeners = new Map<string, Set<(data: unknown) => void>>();
  private closed = false;

  /** `handlers` serve the calls; `more` serves those it has first (a table built per name, such
   *  as the core's reads, beside a class that implements the rest). */
  constructor(
    private readonly port: PortLike,
    private readonly handlers: Partial<Handlers<Local>>,
    private readonly more: Partial<Handlers<Local>> = {},
  ) {
    port.onmessage = (ev: MessageEvent) => this.receive(ev.data as Msg);
  }

  call<K extends keyof Remote & string>(
    method: K,
    arg: Parameters<Remote[K]>[0],
    opts: CallOptions = {},
  ): Promise<Awaited<ReturnType<Remote[K]>>> {
    if (this.closed) return Promise.reject(new Error("[closed] the search worker has stopped"));
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(new CancelledError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (!this.pending.has(id)) return;
        this.pending.delete(id);
        this.post({ t: "cancel", id });
        reject(new CancelledError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, {
        resolve: resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      });
      this.post({ t: "req", id, method, arg }, opts.transfer);
    });
  }

  emit(name: string, data: unknown): void {
    if (!this.closed) this.post({ t: "evt", name, data });
  }

  on(name: string, fn: (data: unknown) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** Rejects every pending call and aborts every running handler. */
  close(reason = "[closed] the search worker has stopped"): void {
    if (this.closed) return;
    this.closed = true;
    this.port.onmessage = null;
    for (const p of this.pending.values()) {
      p.cleanup();
      p.reject(new Error(reason));
    }
    this.pending.clear();
    for (const c of this.running.values()) c.abort();
    this.running.clear();
  }

  private post(msg: Msg, list?: Transferable[]): void {
    if (list && list.length) this.port.postMessage(msg, list);
    else this.port.postMessage(msg);
  }

  private receive(msg: Msg): void {
    if (!msg || typeof msg !== "object") return;
    switch (msg.t) {
      case "req":
        void this.serve(msg.id, msg.method, msg.arg);
        return;
      case "cancel":
        this.running.get(msg.id)?.abort();
        return;
      case "res": {
        const p = this.pending.get(msg.id);
        if (!p) return; // cancelled by the caller already
        this.pending.delete(msg.id);
        p.cleanup();
        if (msg.ok) p.resolve(msg.value);
        else p.reject(msg.error.startsWith("[cancelled]") ? new CancelledError() : new Error(msg.error));
        return;
      }
      case "evt":
        for (const fn of this.listeners.get(msg.name) ?? []) {
          try {
            fn(msg.data);
          } catch (err) {
            console.error("strata: event listener failed", err);
          }
        }
        return;
    }
  }

  private async serve(id: number, method: string, arg: unknown): Promise<void> {
    type Table = Record<string, ((a: unknown, c: CallContext) => unknown) | undefined>;
    const more = Object.hasOwn(this.more, method) ? (this.more as Table)[method] : undefined;
    const table = more ? this.more : this.handlers;
    const handler = (table as Table)[method];
    const ctl = new AbortController();
    this.running.set(id, ctl);
    try {
      if (typeof handler !== "function") throw new Error(`[bad-request] unknown method ${method}`);
      let out = await handler.call(table, arg, { signal: ctl.signal });
      if (ctl.signal.aborted) throw new CancelledError();
      let list: Transferable[] | undefined;
      if (out instanceof Transfer) {
        list = out.list;
        out = out.value;
      }
      if (!this.closed) this.post({ t: "res", id, ok: true, value: out }, list);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (!this.closed) this.post({ t: "res", id, ok: false, error: message });
    } finally {
      this.running.delete(id);
    }
  }
}
