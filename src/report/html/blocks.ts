/**
 * The server side of a page drawn by the app from data (display/blocks.ts): the figures its
 * sections name, each put in the page as an inert `<template>` of the SVG svg.ts drew.
 */
import type { Block, Section } from '../../display/blocks.js';

export class Figures {
  private readonly svgs: string[] = [];

  /** A block showing `svgs` side by side. */
  add(...svgs: string[]): Block {
    const at = this.svgs.length;
    this.svgs.push(...svgs);
    return { figures: svgs.map((_, i) => at + i) };
  }

  /**
   * `sections` for a reader that holds no templates (`bas view` in a browser): the figures
   * left out, and a note on where they are drawn.
   */
  static without(sections: Section[], where: string): Section[] {
    const kept = sections.map((s) => s.filter((b) => !('figures' in b))).filter((s) => s.some((b) => !('h2' in b)));
    return [...kept, [{ small: `Figures are drawn in ${where}.` }]];
  }

  /** The templates holding the figures, for the page's body. */
  templates(): string {
    return this.svgs.map((svg, i) => `<template id="bas-figure-${i}">${svg}</template>`).join('\n');
  }
}
