/**
 * The one function where provider text enters (issue 16 §1): hidden characters are looked
 * through and shown, the key is cut out of the whole text, and only then is it shortened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { outsideText } from '../../src/io/outside-text.js';
import { forgetSecrets, redact, registerSecret, stringifyRedacted } from '../../src/io/secrets.js';

const KEY = 'sk-proj-Zq81vXk2Lm0Tt';

/** Every way an echo may split the key with something a reader does not see. */
export const SPLITTERS: Array<[string, string]> = [
  ['a CSI', '\x1b[m'],
  ['a CSI with parameters', '\x1b[1;31m'],
  ['an OSC', '\x1b]0;title\x07'],
  ['an OSC ended by ST', '\x1b]52;c;eA==\x1b\\'],
  ['an 8-bit CSI', '\u009b0m'],
  ['a C1 control', '\u0085'],
  ['a zero-width space', '\u200b'],
  ['a zero-width joiner', '\u200d'],
  ['a zero-width non-joiner', '\u200c'],
  ['a byte-order mark', '\ufeff'],
  ['a soft hyphen', '\u00ad'],
  ['a right-to-left override', '\u202e'],
  ['a left-to-right isolate', '\u2066'],
  ['a right-to-left mark', '\u200f'],
  ['a word joiner', '\u2060'],
  ['a tag character', '\u{e0041}'],
  ['a variation selector', '\ufe0f'],
  ['NUL', '\x00'],
  ['DEL', '\x7f'],
  ['a backspace', '\b'],
  ['a carriage return', '\r'],
];

afterEach(forgetSecrets);

describe('outsideText', () => {
  it.each([
    // Whole escape sequences go; other controls and invisible characters are shown escaped.
    ['a\u001b[2Jb', 'ab'],
    ['line\r\nnext', 'line\\x0d next'],
    ['c1\u009b31m', 'c1'],
    ['x'.repeat(400), `${'x'.repeat(300)}…`],
    ['see\u202eevil', 'see\\u202eevil'],
    ['zero\u200bwidth\ufeff', 'zero\\u200bwidth\\ufeff'],
    ['tag\u{e0041}', 'tag\\u{e0041}'],
  ])('%j', (input, out) => {
    expect(outsideText(input)).toBe(out);
  });

  it.each(SPLITTERS)('cuts out a key split by %s, at every position', (_, splitter) => {
    registerSecret(KEY);
    for (let at = 1; at < KEY.length; at++) {
      const echoed = `you sent Bearer ${KEY.slice(0, at)}${splitter}${KEY.slice(at)} here`;
      const out = outsideText(echoed);
      expect(out).toBe('you sent Bearer [redacted] here');
      // Stored as it is (a reply), the split key is gone too, the rest kept byte for byte.
      expect(redact(echoed)).toBe('you sent Bearer [redacted] here');
      expect(JSON.parse(stringifyRedacted({ reply: echoed })).reply).toBe('you sent Bearer [redacted] here');
    }
  });

  it('keeps no piece of the key, wherever the cut falls across it', () => {
    registerSecret(KEY);
    for (let pad = 0; pad <= 40; pad++) {
      for (const splitter of ['', '\u200b', '\x1b[m']) {
        const text = `${'p'.repeat(pad)}${KEY.slice(0, 5)}${splitter}${KEY.slice(5)} and more text after it`;
        for (const max of [10, 20, 30, 40]) {
          const out = outsideText(text, max);
          expect(out.length).toBeLessThanOrEqual(max + 1);
          // No four characters of the key in a row survive, and no piece of the marker.
          for (let i = 0; i + 4 <= KEY.length; i++) expect(out).not.toContain(KEY.slice(i, i + 4));
          expect(out.replace('[redacted]', '')).not.toMatch(/\[red|acted\]|\[r…/);
        }
      }
    }
  });

  it('never cuts inside a visible escape', () => {
    for (let max = 1; max < 12; max++) {
      const out = outsideText(`ab\u202ecd\u200bef`, max);
      expect(out).not.toMatch(/\\u?[0-9a-f]{0,3}…$/);
    }
  });

  it('is linear: a megabyte of hidden characters and a registered key', () => {
    registerSecret(KEY);
    const unit = `\u200b\x1b[m${KEY.slice(0, 3)}\u202e`;
    const out = outsideText(unit.repeat(100_000), 300);
    expect(out.length).toBeLessThanOrEqual(301);
  });
});
