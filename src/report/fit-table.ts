/**
 * Tables that fit where they are read: 80 columns. Cells of the columns allowed to wrap
 * (names, folders, verdicts) are broken into lines, widest column first, until the table
 * fits; numbers are never broken. The breaking is done here, not by cli-table3, because its
 * word wrap cuts words it cannot break with an ellipsis, and a cut folder name is useless.
 */
import { displayWidth, fitIndex, terminalText } from '../io/terminal-text.js';
import { plainTable } from './tables.js';

/** The width every text table is held to. */
const TABLE_WIDTH = 80;

/** A wrapped column is not made narrower than this. */
const MIN_WRAP = 10;

/**
 * The widest line of a rendered text, in terminal columns: an East Asian wide character
 * counts two, a combining mark none (cli-table3 draws with one-column box characters).
 */
export function textWidth(text: string): number {
  return displayWidth(text);
}

// Characters after which a long name may break: a path, a model id, words.
const BREAK_AFTER = new Set([' ', '/', '\\', '-', '_', '.', ':', ',', '·']);

const DIGIT = /[0-9]/;

/** True when a cut before `i` would split a number ("$0.|0622", "20260|826", "1,|234"). */
function insideNumber(text: string, i: number): boolean {
  const before = text[i - 1] ?? '';
  const after = text[i] ?? '';
  if (DIGIT.test(before) && DIGIT.test(after)) return true;
  // A point or comma with digits on both sides belongs to the number.
  return (before === '.' || before === ',') && DIGIT.test(text[i - 2] ?? '') && DIGIT.test(after);
}

/**
 * Breaks one line into pieces at most `width` columns wide, at a separator where one is near
 * (in the second half of the piece) and not inside a number; else before the word, else
 * mid-word (a number wider than the column too), never inside a wide character.
 */
function breakLine(line: string, width: number): string[] {
  const out: string[] = [];
  let rest = line;
  while (displayWidth(rest) > width) {
    const fit = Math.max(fitIndex(rest, width), rest.codePointAt(0)! > 0xffff ? 2 : 1);
    let cut = fit;
    const half = fitIndex(rest, Math.floor(width / 2));
    let found = false;
    for (let i = fit - 1; i >= half && i > 0; i--) {
      if (BREAK_AFTER.has(rest[i]!) && !insideNumber(rest, i + 1)) {
        cut = i + 1;
        found = true;
        break;
      }
    }
    // No separator near: a number is moved whole to the next line, where it fits.
    if (!found && insideNumber(rest, cut)) {
      const space = rest.lastIndexOf(' ', cut - 1);
      if (space > 0) cut = space + 1;
    }
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).replace(/^ +/, '');
  }
  out.push(rest);
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

/** Renders a table at most `width` (80) columns wide, wrapping the `wrap` columns as needed. */
export function fitTable(head: string[], rawRows: string[][], opts: FitOptions = {}): string {
  const width = opts.width ?? TABLE_WIDTH;
  // Terminal-safe before measuring: a model name or folder read from a run folder must not
  // move the cursor, reorder the line (bidi) or hide (zero-width), nor throw off the widths.
  const rows = rawRows.map((r) => r.map(terminalText));
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
