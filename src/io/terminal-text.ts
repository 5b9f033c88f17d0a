/**
 * Making text from outside (error bodies, model names, folder names, anything read back from
 * a file) safe to print on a terminal. A terminal obeys control characters and escape
 * sequences found anywhere in what it is sent: an endpoint's error message could clear the
 * screen, retitle the window, or write the user's clipboard (OSC 52). This is one pass over
 * the text, with no regular expression, so its cost is linear in the length whatever it holds.
 */

const ESC = 0x1b;
const BEL = 0x07;
/** The 8-bit forms of the sequence introducers and of the string terminator. */
const C1_CSI = 0x9b;
const C1_ST = 0x9c;
const C1_STRINGS = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]); // DCS, SOS, OSC, PM, APC

/** A control character shown as text, e.g. `\x07`. */
function shown(code: number): string {
  return `\\x${code.toString(16).padStart(2, '0')}`;
}

function isControl(code: number): boolean {
  return (code < 0x20 && code !== 0x0a && code !== 0x09) || (code >= 0x7f && code <= 0x9f);
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
 * `text` with every escape sequence removed whole (CSI such as `ESC[2J`, OSC such as
 * `ESC]0;title BEL` or `ESC]52;c;… ESC\`, DCS, other two-character escapes, and their 8-bit
 * C1 forms) and every other control character except newline and tab shown escaped as
 * `\xNN`, so that nothing in it can act on the terminal.
 */
export function terminalText(text: string): string {
  let i = 0;
  while (i < text.length && !isControl(text.charCodeAt(i))) i++;
  if (i === text.length) return text;
  let out = text.slice(0, i);
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (!isControl(c)) {
      const from = i;
      while (i < text.length && !isControl(text.charCodeAt(i))) i++;
      out += text.slice(from, i);
      continue;
    }
    if (c === ESC && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next === 0x5b)
        i = endOfCsi(text, i + 2); // ESC [
      else if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f)
        i = endOfString(text, i + 2); // ] P X ^ _
      else if (next >= 0x20 && next <= 0x7e) {
        // ESC, intermediates (0x20-0x2f), then one final character: ESC c, ESC ( B, ...
        let j = i + 1;
        while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
        i = j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x7e ? j + 1 : j;
      } else i += 1;
    } else if (c === C1_CSI) i = endOfCsi(text, i + 1);
    else if (C1_STRINGS.has(c)) i = endOfString(text, i + 1);
    else {
      out += shown(c);
      i += 1;
    }
  }
  return out;
}
