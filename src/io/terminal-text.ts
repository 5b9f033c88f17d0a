/**
 * Making text from outside (error bodies, model names, folder names, anything read back from
 * a file) safe to print on a terminal, and measuring it there. A terminal obeys control
 * characters and escape sequences found anywhere in what it is sent: an endpoint's error
 * message could clear the screen, retitle the window, or write the user's clipboard (OSC 52).
 * Bidi controls reorder what is shown (a U+202E makes the rest of a cell read backwards) and
 * zero-width characters make two different names look alike or split a key invisibly. This
 * is the one helper for terminal cells: one pass, no backtracking pattern, linear in the length.
 */
import { LONGEST_ESCAPE, nextHidden, sequenceEnd, shownEscape } from './hidden-chars.js';
import { REDACTED, redact } from './secrets.js';

/**
 * `text` with every registered secret cut out (also one split by hidden characters), every
 * escape sequence removed whole (CSI such as `ESC[2J`, OSC such as `ESC]0;title BEL` or
 * `ESC]52;c;… ESC\`, DCS, other two-character escapes, and their 8-bit C1 forms), and every
 * other control character except newline and tab, and every format or invisible character
 * (zero-width space and joiners, BOM, soft hyphen, bidi controls), shown as a visible escape
 * such as `\x07` or `\u202e`, so that nothing in it can act on the terminal or hide.
 */
export function terminalText(text: string): string {
  text = redact(text);
  let i = nextHidden(text, 0);
  if (i < 0) return text;
  let out = text.slice(0, i);
  while (i < text.length) {
    const seq = sequenceEnd(text, i);
    if (seq > i) i = seq;
    else {
      const code = text.codePointAt(i)!;
      out += shownEscape(code);
      i += code > 0xffff ? 2 : 1;
    }
    const next = nextHidden(text, i);
    const end = next < 0 ? text.length : next;
    out += text.slice(i, end);
    i = end;
  }
  return out;
}

/**
 * Code points a terminal draws two columns wide: East Asian Wide and Fullwidth (Hangul, CJK,
 * kana, fullwidth forms) and the emoji shown in emoji presentation. Sorted, inclusive pairs.
 */
const WIDE: readonly number[] = [
  0x1100, 0x115f, 0x231a, 0x231b, 0x2329, 0x232a, 0x23e9, 0x23ec, 0x23f0, 0x23f0, 0x23f3, 0x23f3, 0x25fd, 0x25fe,
  0x2614, 0x2615, 0x2648, 0x2653, 0x267f, 0x267f, 0x2693, 0x2693, 0x26a1, 0x26a1, 0x26aa, 0x26ab, 0x26bd, 0x26be,
  0x26c4, 0x26c5, 0x26ce, 0x26ce, 0x26d4, 0x26d4, 0x26ea, 0x26ea, 0x26f2, 0x26f3, 0x26f5, 0x26f5, 0x26fa, 0x26fa,
  0x26fd, 0x26fd, 0x2705, 0x2705, 0x270a, 0x270b, 0x2728, 0x2728, 0x274c, 0x274c, 0x274e, 0x274e, 0x2753, 0x2755,
  0x2757, 0x2757, 0x2795, 0x2797, 0x27b0, 0x27b0, 0x27bf, 0x27bf, 0x2b1b, 0x2b1c, 0x2b50, 0x2b50, 0x2b55, 0x2b55,
  0x2e80, 0x303e, 0x3041, 0x33ff, 0x3400, 0x4dbf, 0x4e00, 0x9fff, 0xa000, 0xa4cf, 0xa960, 0xa97f, 0xac00, 0xd7a3,
  0xf900, 0xfaff, 0xfe10, 0xfe19, 0xfe30, 0xfe6f, 0xff00, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4, 0x17000, 0x18aff,
  0x1b000, 0x1b2ff, 0x1f004, 0x1f004, 0x1f0cf, 0x1f0cf, 0x1f18e, 0x1f18e, 0x1f191, 0x1f19a, 0x1f200, 0x1f202, 0x1f210,
  0x1f23b, 0x1f240, 0x1f248, 0x1f250, 0x1f251, 0x1f260, 0x1f265, 0x1f300, 0x1f320, 0x1f32d, 0x1f335, 0x1f337, 0x1f37c,
  0x1f37e, 0x1f393, 0x1f3a0, 0x1f3ca, 0x1f3cf, 0x1f3d3, 0x1f3e0, 0x1f3f0, 0x1f3f4, 0x1f3f4, 0x1f3f8, 0x1f43e, 0x1f440,
  0x1f440, 0x1f442, 0x1f4fc, 0x1f4ff, 0x1f53d, 0x1f54b, 0x1f54e, 0x1f550, 0x1f567, 0x1f57a, 0x1f57a, 0x1f595, 0x1f596,
  0x1f5a4, 0x1f5a4, 0x1f5fb, 0x1f64f, 0x1f680, 0x1f6c5, 0x1f6cc, 0x1f6cc, 0x1f6d0, 0x1f6d2, 0x1f6d5, 0x1f6d7, 0x1f6dc,
  0x1f6df, 0x1f6eb, 0x1f6ec, 0x1f6f4, 0x1f6fc, 0x1f7e0, 0x1f7eb, 0x1f7f0, 0x1f7f0, 0x1f90c, 0x1f93a, 0x1f93c, 0x1f945,
  0x1f947, 0x1f9ff, 0x1fa70, 0x1faff, 0x20000, 0x2fffd, 0x30000, 0x3fffd,
];

function isWide(code: number): boolean {
  if (code < 0x1100) return false;
  let lo = 0;
  let hi = WIDE.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (code < WIDE[2 * mid]!) hi = mid - 1;
    else if (code > WIDE[2 * mid + 1]!) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Characters drawn on the one before them, or not at all: combining and enclosing marks. */
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;

/** Columns one code point takes on a terminal: 2 for wide, 0 for combining, else 1. */
function codeWidth(code: number, ch: string): number {
  if (code < 0x300) return code < 0x20 || (code >= 0x7f && code < 0xa0) ? 0 : 1;
  if (isWide(code)) return 2;
  return ZERO_WIDTH.test(ch) ? 0 : 1;
}

/**
 * Columns `line` takes on a terminal (its widest line, when it has several): East Asian wide
 * characters count two, combining marks none. Measure terminal-safe text (`terminalText`).
 */
export function displayWidth(text: string): number {
  let widest = 0;
  let w = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code === 0x0a) {
      widest = Math.max(widest, w);
      w = 0;
    } else w += codeWidth(code, ch);
  }
  return Math.max(widest, w);
}

/**
 * The longest start of one line of `text` that fits `width` columns, as the index where it
 * ends: a wide character that would straddle the edge is left out, and combining marks stay
 * with the character they belong to.
 */
export function fitIndex(text: string, width: number): number {
  let w = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.codePointAt(i)!;
    const ch = String.fromCodePoint(code);
    const cw = codeWidth(code, ch);
    if (w + cw > width) break;
    w += cw;
    i += ch.length;
  }
  return i;
}

/**
 * Moves a cut at `cut` back so that it falls neither inside the `[redacted]` marker nor inside
 * a visible escape such as `\u202e`: a piece of either would read as something else.
 */
export function safeCut(text: string, cut: number): number {
  const marker = text.lastIndexOf(REDACTED, cut - 1);
  if (marker >= 0 && marker + REDACTED.length > cut) cut = marker;
  for (let back = 1; back < LONGEST_ESCAPE && cut - back >= 0; back++) {
    if (text.charCodeAt(cut - back) !== 0x5c) continue; // a backslash
    const m = /^\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{1,6}\})/.exec(text.slice(cut - back, cut - back + 11));
    if (m && m[0].length > back) return cut - back;
  }
  return cut;
}

/**
 * One line of terminal-safe text at most `width` columns wide: cut with `…` when longer,
 * never inside the `[redacted]` marker or a visible escape.
 */
export function fitWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return `${text.slice(0, safeCut(text, fitIndex(text, Math.max(0, width - 1))))}…`;
}
