// The DOM helpers Obsidian adds to elements (createEl, createDiv, setText, empty, addClass…).
// In a browser they are installed on the real HTMLElement prototype; in Node (no DOM) a tiny
// element tree stands in, enough for the status bar and other elements the plugin creates
// when it is not showing a view.

export interface DomInfo {
  cls?: string | string[];
  text?: string;
  attr?: Record<string, string | number | boolean | null>;
  title?: string;
  value?: string;
  type?: string;
  placeholder?: string;
  href?: string;
}

type AnyEl = HTMLElement & Record<string, unknown>;

function applyInfo(el: AnyEl, o?: DomInfo | string): void {
  if (o === undefined) return;
  if (typeof o === "string") o = { cls: o };
  if (o.cls) (Array.isArray(o.cls) ? o.cls : o.cls.split(" ")).filter(Boolean).forEach((c) => el.classList.add(c));
  if (o.text !== undefined) el.textContent = o.text;
  for (const [k, v] of Object.entries(o.attr ?? {})) if (v !== null && v !== false) el.setAttribute(k, String(v));
  if (o.title) el.setAttribute("title", o.title);
  if (o.value !== undefined) (el as unknown as HTMLInputElement).value = o.value;
  if (o.type) el.setAttribute("type", o.type);
  if (o.placeholder) el.setAttribute("placeholder", o.placeholder);
  if (o.href) el.setAttribute("href", o.href);
}

/** The helper methods, written against the standard DOM API (real or the Node stand-in). */
const helpers = {
  createEl(this: AnyEl, tag: string, o?: DomInfo | string, cb?: (el: HTMLElement) => void) {
    const el = this.ownerDocument.createElement(tag) as AnyEl;
    applyInfo(el, o);
    this.appendChild(el);
    cb?.(el);
    return el;
  },
  createDiv(this: AnyEl, o?: DomInfo | string, cb?: (el: HTMLElement) => void) {
    return helpers.createEl.call(this, "div", o, cb);
  },
  createSpan(this: AnyEl, o?: DomInfo | string, cb?: (el: HTMLElement) => void) {
    return helpers.createEl.call(this, "span", o, cb);
  },
  setText(this: AnyEl, t: string) {
    this.textContent = t;
  },
  getText(this: AnyEl) {
    return this.textContent ?? "";
  },
  appendText(this: AnyEl, t: string) {
    this.appendChild(this.ownerDocument.createTextNode(t));
  },
  empty(this: AnyEl) {
    while (this.firstChild) this.removeChild(this.firstChild);
  },
  addClass(this: AnyEl, ...c: string[]) {
    this.classList.add(...c);
  },
  removeClass(this: AnyEl, ...c: string[]) {
    this.classList.remove(...c);
  },
  toggleClass(this: AnyEl, c: string, on: boolean) {
    this.classList.toggle(c, on);
  },
  hasClass(this: AnyEl, c: string) {
    return this.classList.contains(c);
  },
  setAttr(this: AnyEl, k: string, v: string | number | boolean | null) {
    if (v === null || v === false) this.removeAttribute(k);
    else this.setAttribute(k, String(v));
  },
  detach(this: AnyEl) {
    this.parentNode?.removeChild(this);
  },
};

export function installDomHelpers(proto: object): void {
  for (const [name, fn] of Object.entries(helpers)) {
    Object.defineProperty(proto, name, { value: fn, configurable: true, writable: true });
  }
}

// ---- the Node stand-in ---------------------------------------------------------------------

class FakeClassList {
  private readonly set = new Set<string>();
  add(...c: string[]) {
    c.forEach((x) => this.set.add(x));
  }
  remove(...c: string[]) {
    c.forEach((x) => this.set.delete(x));
  }
  toggle(c: string, on?: boolean) {
    const want = on ?? !this.set.has(c);
    if (want) this.set.add(c);
    else this.set.delete(c);
    return want;
  }
  contains(c: string) {
    return this.set.has(c);
  }
  toString() {
    return [...this.set].join(" ");
  }
}

export class FakeNode {
  parentNode: FakeNode | null = null;
  childNodes: FakeNode[] = [];
  constructor(
    readonly ownerDocument: FakeDocument,
    public data = "",
  ) {}
  get firstChild(): FakeNode | null {
    return this.childNodes[0] ?? null;
  }
  get textContent(): string {
    return this instanceof FakeElement ? this.childNodes.map((c) => c.textContent).join("") : this.data;
  }
  set textContent(t: string) {
    if (this instanceof FakeElement) {
      this.childNodes = [];
      if (t) this.appendChild(this.ownerDocument.createTextNode(t));
    } else this.data = t;
  }
  appendChild<T extends FakeNode>(n: T): T {
    n.parentNode?.removeChild(n);
    n.parentNode = this;
    this.childNodes.push(n);
    return n;
  }
  removeChild<T extends FakeNode>(n: T): T {
    this.childNodes = this.childNodes.filter((c) => c !== n);
    n.parentNode = null;
    return n;
  }
  remove() {
    this.parentNode?.removeChild(this);
  }
}

export class FakeElement extends FakeNode {
  readonly classList = new FakeClassList();
  readonly attributes = new Map<string, string>();
  private readonly listeners = new Map<string, Set<(ev: unknown) => void>>();
  value = "";
  constructor(
    doc: FakeDocument,
    readonly tagName: string,
  ) {
    super(doc);
  }
  get children(): FakeElement[] {
    return this.childNodes.filter((c): c is FakeElement => c instanceof FakeElement);
  }
  get className(): string {
    return this.classList.toString();
  }
  setAttribute(k: string, v: string) {
    this.attributes.set(k, v);
  }
  getAttribute(k: string) {
    return this.attributes.get(k) ?? null;
  }
  removeAttribute(k: string) {
    this.attributes.delete(k);
  }
  addEventListener(type: string, fn: (ev: unknown) => void) {
    let s = this.listeners.get(type);
    if (!s) this.listeners.set(type, (s = new Set()));
    s.add(fn);
  }
  removeEventListener(type: string, fn: (ev: unknown) => void) {
    this.listeners.get(type)?.delete(fn);
  }
  dispatch(type: string, ev: unknown = {}) {
    for (const fn of this.listeners.get(type) ?? []) fn(ev);
  }
  focus() {}
  scrollIntoView() {}
  querySelectorAll(cls: string): FakeElement[] {
    const want = cls.replace(/^\./, "");
    const out: FakeElement[] = [];
    const walk = (e: FakeElement) => {
      for (const c of e.children) {
        if (c.classList.contains(want)) out.push(c);
        walk(c);
      }
    };
    walk(this);
    return out;
  }
}
installDomHelpers(FakeElement.prototype);

export class FakeDocument {
  readonly body: FakeElement = new FakeElement(this, "body");
  createElement(tag: string): FakeElement {
    return new FakeElement(this, tag);
  }
  createTextNode(t: string): FakeNode {
    return new FakeNode(this, t);
  }
}

export const hasDom = typeof document !== "undefined" && typeof HTMLElement !== "undefined";
if (hasDom) installDomHelpers(HTMLElement.prototype);
if (hasDom) installDomHelpers(DocumentFragment.prototype);

const fakeDoc = hasDom ? null : new FakeDocument();

/** A new detached element (real in a browser, the stand-in in Node). */
export function newEl(tag = "div", cls?: string): HTMLElement {
  const el = (hasDom ? document.createElement(tag) : fakeDoc!.createElement(tag)) as unknown as HTMLElement;
  if (cls) el.classList.add(...cls.split(" "));
  return el;
}

/** The element modals attach to. */
export function bodyEl(): HTMLElement {
  return (hasDom ? document.body : fakeDoc!.body) as unknown as HTMLElement;
}
