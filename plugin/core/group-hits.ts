// Search hits grouped by note, each note where its best hit ranks and its hits in rank order:
// how the plugin's sidebar and `strata search` (--group note, the default) show results.

import type { Hit } from "./api.ts";

export interface NoteGroup {
  path: string;
  /** The note's title (its first hit's). */
  title: string;
  /** The note's hits, best first. */
  hits: Hit[];
}

export function groupByNote(hits: readonly Hit[]): NoteGroup[] {
  const groups = new Map<string, NoteGroup>();
  for (const h of hits) {
    const g = groups.get(h.path);
    if (g) g.hits.push(h);
    else groups.set(h.path, { path: h.path, title: h.title, hits: [h] });
  }
  return [...groups.values()];
}
