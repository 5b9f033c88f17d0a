import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from 'decimal.js';
import {
  cents,
  divideRoundHalfUp,
  formatCents,
  wholeDigits,
  gstInclusiveShare,
  parseMoneyString,
  tenPercentOf,
} from '../../src/task/money.js';
import { readFigure } from '../../src/task/answer.js';
import { isValidAbn } from '../../src/task/abn.js';

const amount = fc.integer({ min: -1e13, max: 1e13 });

describe('money', () => {
  it('cents() refuses fractions and unsafe values', () => {
    expect(() => cents(1.5)).toThrow();
    expect(() => cents(2 ** 53)).toThrow();
    expect(cents(-7)).toBe(-7);
  });

  it('wholeDigits writes a whole number as String() does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })), (n) => {
        expect(wholeDigits(n)).toBe(String(n));
      }),
    );
    for (const n of [0, 9, 10, 999_999_999, 1e15, 1e20]) expect(wholeDigits(n)).toBe(String(n));
  });

  it('formatting and parsing round-trip', () => {
    fc.assert(
      fc.property(amount, (c) => {
        expect(parseMoneyString(formatCents(c))).toBe(c);
      }),
    );
    expect(formatCents(123450)).toBe('1234.50');
    expect(formatCents(-1230)).toBe('-12.30');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(-5)).toBe('-0.05');
  });

  it('model figures read back to the same cents in every tolerated spelling', () => {
    fc.assert(
      fc.property(amount, (c) => {
        const text = formatCents(c);
        expect(readFigure(text)).toBe(c);
        expect(readFigure(`$${text}`)).toBe(c);
        expect(readFigure(Number(text))).toBe(c);
        const [whole, frac] = text.replace('-', '').split('.');
        const grouped = `${c < 0 ? '-' : ''}${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
        expect(readFigure(grouped)).toBe(c);
      }),
    );
  });

  it('division rounds half up, exactly as decimal arithmetic does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e12 }), fc.integer({ min: 1, max: 1000 }), (n, d) => {
        const exact = new Decimal(n).div(d).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
        expect(divideRoundHalfUp(n, d)).toBe(exact);
      }),
    );
    expect(divideRoundHalfUp(5, 10)).toBe(1);
    expect(divideRoundHalfUp(-5, 10)).toBe(-1);
  });

  it('GST is one eleventh; the slip is one tenth', () => {
    expect(gstInclusiveShare(11000)).toBe(1000);
    expect(gstInclusiveShare(10505)).toBe(955);
    expect(tenPercentOf(11000)).toBe(1100);
  });

  it('ABN check digits follow the ATO weighting', () => {
    expect(isValidAbn('51 824 753 556')).toBe(true); // the ATO's published example
    expect(isValidAbn('51824753557')).toBe(false);
    expect(isValidAbn('5182475355')).toBe(false);
  });
});
