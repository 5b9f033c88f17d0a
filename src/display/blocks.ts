/**
 * A report page's content as data: sections of headings, tables of text cells, notes and
 * figures, which the server side builds (the leaderboard's and the sweep's pages) and the app
 * draws (src/web/blocks-view.ts). A figure is named, not held: its SVG is markup the server
 * drew, put in the page as a `<template id="bas-figure-N">` that the app moves into place.
 */

/** A table of text cells; `text` columns are left-aligned, `wrap` columns may wrap at a name's separators, `lines` keeps line breaks. */
export interface TableBlock {
  head: string[];
  rows: string[][];
  text?: number[];
  wrap?: number[];
  lines?: boolean;
}

export type Block =
  | { h2: string }
  | { h3: string }
  | { table: TableBlock }
  | { note: string }
  | { small: string }
  /** Figures side by side, by number (`bas-figure-N`). */
  | { figures: number[] };

/** A card of the page. */
export type Section = Block[];
