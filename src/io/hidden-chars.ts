/**
 * What in outside text a reader does not see as itself: terminal escape sequences (which act
 * on the terminal and vanish), control characters, and Unicode's format and default-ignorable
 * characters (zero-width space and joiners, the byte-order mark, the soft hyphen, bidi
 * controls, variation selectors, tag characters). Each of these can sit inside an API key
 * that an endpoint echoes and leave it whole to the eye, so the key's redaction
 * (`secrets.ts`) looks through them, and the terminal-safe text (`terminal-text.ts`) shows
 * them as visible escapes. One scan, no backtracking pattern: cost is linear in the length.
 */

const ESC = 0x1b;
const BEL = 0x07;
/** The 8-bit forms of the sequence introducers and of the string terminator. */
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]); // DCS, SOS, OSC, PM, APC

/**
 * Finds the next character that may be hidden or start a sequence: C0 controls other than tab
 * and newline, DEL, C1, the line and paragraph separators, format (Cf) and default-ignorable
 * code points. Global and unicode, so `lastIndex` walks code points.
 */
const HIDDEN = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Index of the next hidden character or sequence start at or after `from`, or -1. */
export function nextHidden(text: string, from: number): number {
  HIDDEN.lastIndex = from;
  const m = HIDDEN.exec(text);
  return m === null ? -1 : m.index;
}

/** Index just past a CSI sequence whose parameters start at `i`: parameters, then one final byte. */
function endOfCsi(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i++);
    if (c >= 0x40 && c <= 0x7e) return i;
    if (c < 0x20 || c > 0x3f) return i - 1; // not part of a CSI: stop before it
  }
  return i;
}

/** Index just past a control string (OSC, DCS, ...) starting at `i`: up to BEL, ESC \ or ST. */
function endOfString(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i++);
    if (c === BEL || c === C1_ST) return i;
    if (c === ESC && text.charCodeAt(i) === 0x5c) return i + 1;
  }
  return i;
}

/**
 * Where the escape sequence starting at `i` ends (CSI such as `ESC[2J`, OSC such as
 * `ESC]52;c;… ESC\`, DCS, SOS, PM, APC, two-character escapes, and the 8-bit C1 forms), or
 * `i` itself when no sequence starts there (a lone ESC at the end is not one).
 */
export function sequenceEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === ESC && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    if (next === 0x5b) return endOfCsi(text, i + 2); // ESC [
    if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f)
      return endOfString(text, i + 2); // ] P X ^ _
    if (next >= 0x20 && next <= 0x7e) {
      // ESC, intermediates (0x20-0x2f), then one final character: ESC c, ESC ( B, ...
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
      return j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e ? j + 1 : j;
    }
    return i;
  }
  if (c === C1_CSI) return endOfCsi(text, i + 1);
  if (C1_STRINGS.has(c)) return endOfString(text, i + 1);
  return i;
}

/**
 * A hidden character made visible: `\x07` for a control, `\u200b` (or `\u{e0041}` past the
 * basic plane) for a format or ignorable character. Plain ASCII, so it can act on nothing.
 */
export function shownEscape(code: number): string {
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/** Longest escape `shownEscape` writes (`\u{10ffff}`): a cut looks back this far. */
export const LONGEST_ESCAPE = 10;
