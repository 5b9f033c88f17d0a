/**
 * Where provider text enters: the one function that turns what an endpoint (or a batch file,
 * or a file read back) says into text fit to keep and to print. Its order is the point. An
 * endpoint may echo the API key split by an escape sequence or an invisible character, and
 * may pad its message so that any cut falls inside the key; so hidden characters are looked
 * through and made visible first, the key is cut out of the whole text second, and the text
 * is shortened last, never inside the `[redacted]` marker. Cutting first would leave all but
 * the last characters of a key for the redaction to miss.
 */
import { safeCut, terminalText } from './terminal-text.js';

/** Longest provider message kept, in characters, unless the caller says otherwise. */
const MAX_MESSAGE = 300;

/**
 * Outside text made storable and printable, on one line: escape sequences removed, control,
 * format and invisible characters (NUL, DEL, CR, C1, zero-width, BOM, soft hyphen, bidi
 * controls) shown as visible escapes such as `\x00` or `\u200b`, every registered secret
 * replaced by `[redacted]` (also where hidden characters split it), runs of white space made
 * one space, and the result cut to `max` characters with `…`, never inside a marker or an
 * escape. Run it before the text is kept anywhere: a record, run.json, a message, a summary.
 */
export function outsideText(text: unknown, max = MAX_MESSAGE): string {
  const s = terminalText(String(text ?? ''))
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length <= max) return s;
  let cut = max;
  // Never half a surrogate pair.
  if (cut > 0 && (s.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut--;
  return `${s.slice(0, safeCut(s, cut))}…`;
}

/**
 * A message as a clause of a longer one: without its final full stop (and spaces), so that
 * `; run stopped` or `. Nothing…` can follow without reading `.;` or `..`. An ellipsis stays.
 */
export function asClause(message: string): string {
  let end = message.length;
  while (end > 0 && message[end - 1] === ' ') end--;
  if (end > 1 && message[end - 1] === '.' && message[end - 2] !== '.') end--;
  return message.slice(0, end);
}
