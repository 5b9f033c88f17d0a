/**
 * The server side of a page drawn by the app from data (display/blocks.ts): the figures its
 * sections name, each put in the page as an inert `<template>` of the SVG svg.ts drew.
 */
import type { Block, Section } from '../../display/blocks.js';
import { terminalText } from '../../io/terminal-text.js';

export class Figures {
  private readonly svgs: string[] = [];

  /** A block showing `svgs` side by side. */
  add(...svgs: string[]): Block {
    const at = this.svgs.length;
    this.svgs.push(...svgs);
    return { figures: svgs.map((_, i) => at + i) };
  }

  /**
   * `sections` drawn without figures, for a reader that holds no templates (`bas view` in a
   * browser): a card left with its heading alone goes, and a note says where they are drawn.
   */
  static omitted(sections: Section[], where: string): Section[] {
    const kept = sections.filter((s) => s.some((b) => !('h2' in b)));
    return [...kept, [{ small: `Figures are drawn in ${where}.` }]];
  }

  /** The templates holding the figures, for the page's body. */
  templates(): string {
    return this.svgs.map((svg, i) => `<template id="bas-figure-${i}">${svg}</template>`).join('\n');
  }
}

/**
 * `sections` with every table cell made safe text (io/terminal-text.ts): the cells name runs,
 * models and folders read from run folders, where a bidi override or a zero-width character
 * would make one name pass for another. The headings and column heads are bas's own (a head's
 * zero-width space is where it may wrap) and are kept.
 */
export function safeCells(sections: Section[]): Section[] {
  return sections.map((s) =>
    s.map((b) =>
      'table' in b ? { table: { ...b.table, rows: b.table.rows.map((r) => r.map((c) => terminalText(c))) } } : b,
    ),
  );
}
