/**
 * Draws a report page's sections (display/blocks.ts) as the server drew them before: tables
 * of text cells, a wrapped cell breaking only after a name's separators, notes, and the figures
 * the page holds as templates of SVG markup drawn by the server (moved, never parsed here).
 */
import type { Block, Section, TableBlock } from '../display/blocks.js';
import { el } from './dom.js';

/** Text with a break opportunity after each separator of a name or path, never inside a number. */
function breakable(text: string): Array<Node | string> {
  const out: Array<Node | string> = [];
  let last = 0;
  for (const m of text.matchAll(/([/:_·,&]|[.-](?!\d))(?=\S)/g)) {
    const end = (m.index ?? 0) + m[0].length;
    out.push(text.slice(last, end), el('wbr'));
    last = end;
  }
  out.push(text.slice(last));
  return out;
}

function cellClass(t: TableBlock, i: number, td: boolean): string | null {
  const c = [
    t.text?.includes(i) ? 'text' : '',
    td && t.wrap?.includes(i) ? 'wrap' : '',
    td && t.lines ? 'lines' : '',
  ].filter(Boolean);
  return c.length ? c.join(' ') : null;
}

function tableOf(t: TableBlock): HTMLElement {
  const head = el(
    'tr',
    null,
    t.head.map((h, i) => el('th', { cls: cellClass(t, i, false), text: h })),
  );
  const rows = t.rows.map((r) =>
    el(
      'tr',
      null,
      r.map((c, i) => el('td', { cls: cellClass(t, i, true) }, t.wrap?.includes(i) ? breakable(c) : [c])),
    ),
  );
  return el('table', null, [el('thead', null, [head]), el('tbody', null, rows)]);
}

/** The figure the page holds as template `bas-figure-N`; nothing when it holds none (bas view). */
function figure(n: number): Node | null {
  const t = document.getElementById(`bas-figure-${n}`);
  return t instanceof HTMLTemplateElement ? el('div', null, [t.content.cloneNode(true)]) : null;
}

function blockOf(b: Block): Node | null {
  if ('h2' in b) return el('h2', { text: b.h2 });
  if ('h3' in b) return el('h3', { text: b.h3 });
  if ('table' in b) return el('div', { cls: 'block' }, [tableOf(b.table)]);
  if ('note' in b) return el('p', { cls: 'note', text: b.note });
  if ('small' in b) return el('p', { cls: 'small', text: b.small });
  return el('div', { cls: 'grid block' }, b.figures.map(figure));
}

/** The sections as cards. */
export function sectionsView(sections: readonly Section[]): HTMLElement[] {
  return sections.map((s) => el('section', null, s.map(blockOf)));
}
