import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonDict } from '../../src/task/json-dict.js';

/** JSON.parse's outcome and ours, objects compared by their own keys in order. */
function both(text: string): [unknown, unknown] {
  const outcome = (f: () => unknown): unknown => {
    try {
      return { ok: plain(f()) };
    } catch (err) {
      return { threw: err instanceof SyntaxError };
    }
  };
  return [outcome(() => JSON.parse(text)), outcome(() => parseJsonDict(text))];
}

/** A value with its objects' keys listed in order (so order and "__proto__" count). */
function plain(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object')
    return Object.keys(v).map((k) => [k, plain((v as Record<string, unknown>)[k])]);
  return Object.is(v, -0) ? '-0' : v;
}

describe('parseJsonDict', () => {
  it('reads every JSON text as JSON.parse does', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
        ),
        (text) => {
          const [theirs, ours] = both(text);
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses what JSON.parse refuses, texts one edit away from JSON included', () => {
    const edited = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom('', ',', '"', '\\', '}', ']', '0', '-', '.', 'e', ' ', '\u0001', 'x'))
      .map(([text, at, c]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + c + text.slice(i + (c === '' ? 1 : 0));
      });
    fc.assert(
      fc.property(fc.oneof(edited, fc.string()), (text) => {
        const [theirs, ours] = both(text);
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 5000 },
    );
  });

  it('reads numbers of any length, alone and inside text, as JSON.parse does', () => {
    const digits = (min: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: 90 });
    const number = fc
      .tuple(
        fc.constantFrom('', '-'),
        digits(1),
        fc.option(digits(0), { nil: undefined }),
        fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(0)), { nil: undefined }),
      )
      .map(
        ([sign, whole, frac, exp]) =>
          `${sign}${whole}${frac === undefined ? '' : `.${frac}`}${exp ? exp.join('') : ''}`,
      );
    fc.assert(
      fc.property(number, fc.constantFrom('%', '[%]', '{"a":%,"b":1}', '[1,%,2]', ' % '), (n, around) => {
        const [theirs, ours] = both(around.replace('%', n));
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 3000 },
    );
  });

  it("keeps JSON.parse's rules on the edges", () => {
    const cases = [
      '{"a":1,"a":2,"b":3}',
      '{"__proto__":{"x":1}}',
      '{"2":"x","1":"y","b":0}',
      '"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t"',
      '"\\ud800"',
      '-0',
      '1e400',
      '-1.5E-3',
      '0.1e+2',
      '123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890',
      ' \t\r\n[ ] ',
      '01',
      '1.',
      '.5',
      '+1',
      '"\\x41"',
      '"\\u12"',
      '"a\tb"',
      '[1,]',
      '{"a":1,}',
      '{a:1}',
      'tru',
      'nulls',
      '',
      '"',
      '\u00a0 1',
    ];
    for (const text of cases) {
      const [theirs, ours] = both(text);
      expect(ours, text).toEqual(theirs);
    }
  });

  it('makes objects without a prototype', () => {
    const v = parseJsonDict('{"faults":{"T01":["x"]}}') as Record<string, Record<string, unknown>>;
    expect(Object.getPrototypeOf(v)).toBe(null);
    expect(Object.getPrototypeOf(v.faults)).toBe(null);
    expect(Object.keys(v.faults!)).toEqual(['T01']);
  });
});
