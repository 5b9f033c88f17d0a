/**
 * JSON text to values, as `JSON.parse` reads it, except that every object is a dictionary
 * without a prototype (`Object.create(null)`).
 *
 * Why not `JSON.parse`: V8 gives each parsed object a hidden class for its sequence of keys,
 * and an answer's "faults" object is keyed by the row ids a model chose, a new sequence almost
 * every reply. Each new hidden class (and the key cache `Object.keys` adds to it) is made in
 * the old generation and stays there until the next full collection: about 700 bytes per
 * scored reply, the largest part of what a long eval left behind (docs/performance.md). A
 * dictionary object has no hidden class of its own.
 *
 * The grammar is JSON's (RFC 8259), nothing more: a repeated key keeps its first place and
 * its last value, `__proto__` is an ordinary key, and numbers are read by `Number`, which
 * rounds as `JSON.parse` does. Nesting is bounded by the caller (answer.ts checks the shape
 * first); here only the recursion's own limit applies.
 */

/** Parses `text`; throws a SyntaxError naming the offset of the first fault. */
export function parseJsonDict(text: string): unknown {
  const p = new Parser(text);
  p.space();
  const value = p.value();
  p.space();
  if (p.at < text.length) p.fail('unexpected text after the value');
  return value;
}

class Parser {
  at = 0;

  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} at offset ${this.at}`);
  }

  space(): void {
    const s = this.s;
    let i = this.at;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    }
    this.at = i;
  }

  value(): unknown {
    const c = this.s.charCodeAt(this.at);
    if (c === 123) return this.object();
    if (c === 91) return this.array();
    if (c === 34) return this.string();
    if (c === 45 || (c >= 48 && c <= 57)) return this.number();
    if (this.word('true')) return true;
    if (this.word('false')) return false;
    if (this.word('null')) return null;
    return this.fail(this.at < this.s.length ? 'unexpected character' : 'unexpected end');
  }

  private word(w: string): boolean {
    if (!this.s.startsWith(w, this.at)) return false;
    this.at += w.length;
    return true;
  }

  private expect(code: number, what: string): void {
    if (this.s.charCodeAt(this.at) !== code) this.fail(`expected ${what}`);
    this.at++;
  }

  private object(): Record<string, unknown> {
    const out = Object.create(null) as Record<string, unknown>;
    this.at++;
    this.space();
    if (this.s.charCodeAt(this.at) === 125) {
      this.at++;
      return out;
    }
    do {
      if (this.s.charCodeAt(this.at) !== 34) this.fail('expected a key');
      const key = this.string();
      this.space();
      this.expect(58, "':'");
      this.space();
      out[key] = this.value();
      this.space();
    } while (this.another(125, "'}'"));
    return out;
  }

  private array(): unknown[] {
    const out: unknown[] = [];
    this.at++;
    this.space();
    if (this.s.charCodeAt(this.at) === 93) {
      this.at++;
      return out;
    }
    do {
      out.push(this.value());
      this.space();
    } while (this.another(93, "']'"));
    return out;
  }

  /** After a member: true past a ',' (another member follows), false past `close` (the container ends). */
  private another(close: number, closeText: string): boolean {
    const c = this.s.charCodeAt(this.at);
    if (c !== 44 && c !== close) this.fail(`expected ',' or ${closeText}`);
    this.at++;
    if (c === close) return false;
    this.space();
    return true;
  }

  private string(): string {
    const s = this.s;
    const start = ++this.at;
    let i = start;
    // Most strings hold no escape: one slice.
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.at = i + 1;
        return s.slice(start, i);
      }
      if (c === 92) break;
      if (c < 32) {
        this.at = i;
        this.fail('control character in a string');
      }
    }
    let out = s.slice(start, i);
    let from = i;
    for (; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.at = i + 1;
        return out + s.slice(from, i);
      }
      if (c < 32) {
        this.at = i;
        this.fail('control character in a string');
      }
      if (c !== 92) continue;
      out += s.slice(from, i);
      const e = s.charCodeAt(i + 1);
      const simple = ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        i++;
      } else if (e === 117 && /^[0-9A-Fa-f]{4}$/.test(s.slice(i + 2, i + 6))) {
        out += String.fromCharCode(Number.parseInt(s.slice(i + 2, i + 6), 16));
        i += 5;
      } else {
        this.at = i;
        this.fail('bad escape');
      }
      from = i + 1;
    }
    this.at = i;
    return this.fail('unterminated string');
  }

  private number(): number {
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.s);
    if (m === null) return this.fail('bad number');
    this.at = NUMBER.lastIndex;
    return Number(m[0]);
  }
}

/** JSON's number, matched where the parser stands (sticky: no slice of the text, whatever its length). */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The one-character escapes, by the code of the character after the backslash. */
const ESCAPES: Record<number, string> = {
  34: '"',
  92: '\\',
  47: '/',
  98: '\b',
  102: '\f',
  110: '\n',
  114: '\r',
  116: '\t',
};
