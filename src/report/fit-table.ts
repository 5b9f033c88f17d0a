/**
 * Tables that fit where they are read: 80 columns. Cells of the columns allowed to wrap
 * (names, folders, verdicts) are broken into lines, widest column first, until the table
 * fits; numbers are never broken. The breaking is done here, not by cli-table3, because its
 * word wrap cuts words it cannot break with an ellipsis, and a cut folder name is useless.
 */
import { plainTable } from './tables.js';

/** The width every text table is held to. */
const TABLE_WIDTH = 80;

/** A wrapped column is not made narrower than this. */
const MIN_WRAP = 10;

/** Display width of one line: code points (cli-table3 draws with one-column box characters). */
function lineWidth(line: string): number {
  let n = 0;
  for (const _ of line) n++;
  return n;
}

/** The widest line of a rendered text. */
export function textWidth(text: string): number {
  let w = 0;
  for (const line of text.split('\n')) w = Math.max(w, lineWidth(line));
  return w;
}

// Characters after which a long name may break: a path, a model id, words.
const BREAK_AFTER = new Set([' ', '/', '\\', '-', '_', '.', ':', ',', '·']);

/** Breaks one line into pieces of at most `width` code points, at a separator where one is near. */
function breakLine(line: string, width: number): string[] {
  const chars = [...line];
  const out: string[] = [];
  let start = 0;
  while (chars.length - start > width) {
    let cut = start + width;
    // Look back at most half a line for a separator; else cut mid-word.
    for (let i = start + width - 1; i >= start + Math.floor(width / 2); i--) {
      if (BREAK_AFTER.has(chars[i]!)) {
        cut = i + 1;
        break;
      }
    }
    out.push(chars.slice(start, cut).join('').trimEnd());
    start = cut;
    while (chars[start] === ' ') start++;
  }
  out.push(chars.slice(start).join(''));
  return out;
}

/** A cell's text with every line at most `width` wide. */
export function wrapCell(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((l) => breakLine(l, width))
    .join('\n');
}

export interface FitOptions {
  align?: Array<'left' | 'right'>;
  separators?: boolean;
  /** Indices of the columns that may wrap. */
  wrap?: number[];
  width?: number;
}

/**
 * A cell's text without control characters (line breaks kept): a model name or folder read
 * from a run folder must not move the cursor or colour the terminal, and would throw off
 * the widths measured here.
 */
function plainCell(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    out += ch === '\n' ? ch : c < 0x20 || (c >= 0x7f && c < 0xa0) ? '?' : ch;
  }
  return out;
}

/** Renders a table at most `width` (80) columns wide, wrapping the `wrap` columns as needed. */
export function fitTable(head: string[], rawRows: string[][], opts: FitOptions = {}): string {
  const width = opts.width ?? TABLE_WIDTH;
  const rows = rawRows.map((r) => r.map(plainCell));
  const widths = head.map((h, i) => Math.max(textWidth(h), ...rows.map((r) => textWidth(r[i] ?? ''))));
  // Each column costs its text, a space either side and one border; plus the last border.
  const total = () => widths.reduce((a, w) => a + w + 3, 1);
  const wrap = opts.wrap ?? [];
  let needWrap = false;
  while (total() > width) {
    let widest = -1;
    for (const i of wrap) if (widths[i]! > MIN_WRAP && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    // Shrink the widest only down to the next widest, so the narrowing is shared.
    const next = Math.max(MIN_WRAP, ...wrap.filter((i) => i !== widest).map((i) => widths[i]!));
    widths[widest] = Math.max(next === widths[widest] ? MIN_WRAP : next, widths[widest]! - (total() - width), MIN_WRAP);
    needWrap = true;
  }
  const fit = (cells: string[]) =>
    needWrap ? cells.map((c, i) => (wrap.includes(i) ? wrapCell(c, widths[i]!) : c)) : cells;
  const t = plainTable(fit(head), opts.align, { separators: opts.separators || needWrap });
  for (const r of rows) t.push(fit(r));
  return t.toString();
}
