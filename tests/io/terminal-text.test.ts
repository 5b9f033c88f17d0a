import { describe, expect, it } from 'vitest';
import { terminalText } from '../../src/io/terminal-text.js';

describe('terminalText', () => {
  it('leaves ordinary text, newlines, tabs and non-ASCII alone', () => {
    const s = 'model gpt-5 · 12 errors\n\tcafé 東京 [0.1, 0.2]';
    expect(terminalText(s)).toBe(s);
  });
  it.each([
    ['a CSI that clears the screen', 'a\x1b[2Jb', 'ab'],
    ['a CSI with parameters', 'a\x1b[1;31mred\x1b[0mb', 'aredb'],
    ['an OSC window title ended by BEL', 'a\x1b]0;pwned\x07b', 'ab'],
    ['an OSC 52 clipboard write ended by ST', 'a\x1b]52;c;cm0gLXJmIH4=\x1b\\b', 'ab'],
    ['a DCS string', 'a\x1bPq#0;2;0;0;0\x1b\\b', 'ab'],
    ['a two-character escape', 'a\x1bcb', 'ab'],
    ['a charset escape', 'a\x1b(Bb', 'ab'],
    ['an 8-bit CSI', 'a\u009b2Jb', 'ab'],
    ['an 8-bit OSC', 'a\u009d0;x\u009cb', 'ab'],
    ['an unterminated OSC', 'a\x1b]0;title and the rest', 'a'],
    ['an unterminated CSI', 'a\x1b[12', 'a'],
  ])('removes %s', (_, input, output) => expect(terminalText(input)).toBe(output));
  it.each([
    ['carriage return', 'a\rb', 'a\\x0db'],
    ['bell', 'a\x07b', 'a\\x07b'],
    ['backspace', 'a\bb', 'a\\x08b'],
    ['DEL', 'a\x7fb', 'a\\x7fb'],
    ['a C1 control', 'a\u0085b', 'a\\x85b'],
    ['a lone ESC at the end', 'a\x1b', 'a\\x1b'],
  ])('shows %s escaped', (_, input, output) => expect(terminalText(input)).toBe(output));
  it('handles a megabyte of escapes and controls (linear: would time out otherwise)', () => {
    const unit = '\x1b[\x1b]\x07\x1b\x1b[1;\r\u009b';
    const out = terminalText(unit.repeat(200_000));
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });
});
