// "Show open tasks": the vault's open tasks from the index, grouped by note (earliest due first
// within a note), ↑/↓ to move, Enter or a click to open the note at the task's line.

import { Modal, type App } from "obsidian";
import type { TasksResponse } from "../core/api.ts";
import { hostClock, taskCounts, taskLine } from "../core/structured.ts";
import type { SearchHost } from "./host.ts";
import { openAtLine, ResultList, searchErrorText } from "./results.ts";

/** Tasks shown at most (the counts cover every open task). */
const MAX_TASKS = 500;

export class TasksModal extends Modal {
  list!: ResultList;
  infoEl!: HTMLElement;
  /** Resolves when the tasks are rendered (tests). */
  settled: Promise<void> = Promise.resolve();
  response: TasksResponse | null = null;

  constructor(
    app: App,
    private readonly plugin: Pick<SearchHost, "tasks">,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.modalEl.addClass("strata-modal");
    this.contentEl.empty();
    this.titleEl.setText("Open tasks");
    this.infoEl = this.contentEl.createDiv({ cls: "strata-info", text: "Loading…" });
    this.list = new ResultList(this.contentEl.createDiv({ cls: "strata-results" }), () => this.close());
    const onKey = (evt: KeyboardEvent) => {
      if (this.list.handleKey(evt)) evt.preventDefault();
    };
    this.modalEl.addEventListener("keydown", onKey);
    this.modalEl.setAttr("tabindex", "-1");
    this.modalEl.focus();
    this.settled = this.plugin
      .tasks({ status: ["open"], groupBy: "note", sort: "due", limit: MAX_TASKS, today: hostClock().today })
      .then((res) => {
        this.response = res;
        const shown = res.groups.reduce((n, g) => n + g.tasks.length, 0);
        this.infoEl.setText(
          res.total === 0 ? "No open tasks." : `${taskCounts(res.total, res.byStatus)}${shown < res.total ? `, ${shown} shown` : ""}`,
        );
        this.list.set(
          res.groups.flatMap((g) =>
            g.tasks.map((t, i) => ({
              render: (parent: HTMLElement) => {
                const el = parent.createDiv({ cls: "strata-hit" });
                if (i === 0) el.createDiv({ cls: "strata-group-title", text: `${g.key.replace(/\.md$/, "")} (${g.count})` });
                el.createDiv({ cls: "strata-hit-title", text: taskLine(t).replace(/^- /, "") });
                el.createDiv({ cls: "strata-hit-breadcrumb", text: `${t.heading ? `${t.heading} · ` : ""}line ${t.line}` });
                return el;
              },
              open: (newTab: boolean) => openAtLine(this.app, t.path, t.line, newTab),
            })),
          ),
        );
      })
      .catch((err) => {
        const msg = searchErrorText(err);
        this.infoEl.setText(msg ?? "");
      });
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
