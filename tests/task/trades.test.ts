import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateTask } from '../../src/task/generate.js';
import { runPolicy } from '../../src/task/policies.js';
import { ABN_THRESHOLD_CENTS } from '../../src/task/rules.js';
import { scoreReply } from '../../src/task/score.js';
import { CATEGORIES, FAULT_CODES, type Category, type TaskConfig } from '../../src/task/types.js';
import { TRADES } from '../../src/task/vocabulary.js';

const DEFAULT: TaskConfig = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };
const tradeOf = new Map(TRADES.map((t) => [t.name, t]));

describe('trades', () => {
  it("every trade is drawn, and a business name ends with one of its trade's words", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 300; i++) {
      const { business } = generateTask(DEFAULT, i, { prompt: false }).ledger;
      const trade = tradeOf.get(business.trade)!;
      expect(trade, business.trade).toBeDefined();
      expect(
        trade.suffixes.some((s) => business.name.endsWith(` ${s} Pty Ltd`)),
        business.name,
      ).toBe(true);
      seen.add(business.trade);
    }
    expect([...seen].sort()).toEqual(TRADES.map((t) => t.name).sort());
  });

  it('the trade is the first draw, and it depends on every word of seed and index', () => {
    const trades = (seed: number) =>
      new Set(
        Array.from(
          { length: 12 },
          (_, s) => generateTask({ ...DEFAULT, seed: seed + s }, 0, { prompt: false }).ledger.business.trade,
        ),
      );
    for (const seed of [0, 2 ** 32, 2 ** 40]) expect(trades(seed).size).toBeGreaterThan(3);
    const byIndex = new Set(
      Array.from({ length: 12 }, (_, i) => generateTask(DEFAULT, 2 ** 32 + i, { prompt: false }).ledger.business.trade),
    );
    expect(byIndex.size).toBeGreaterThan(3);
  });

  it('a business sells only what its trade sells, and buys only what its trade buys', () => {
    fc.assert(
      fc.property(fc.nat(), fc.nat({ max: 100_000 }), (seed, index) => {
        const { ledger } = generateTask({ ...DEFAULT, seed, fault_rate: 0 }, index, { prompt: false });
        const trade = tradeOf.get(ledger.business.trade)!;
        const sells = new Set(trade.sales.map((l) => l.category));
        const buys = new Set([...trade.purchases, ...trade.receipts].map((l) => l.category));
        for (const r of ledger.rows) {
          expect((r.type === 'sale' ? sells : buys).has(r.category), `${trade.name} ${r.type} ${r.category}`).toBe(
            true,
          );
          const lines = (r.type === 'sale' ? trade.sales : [...trade.purchases, ...trade.receipts]).filter(
            (l) => l.category === r.category,
          );
          expect(lines.some((l) => l.descriptions.includes(r.description) && l.parties.includes(r.counterparty))).toBe(
            true,
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it("amounts stay inside their line's range, except planted receipts and threshold prices", () => {
    for (let i = 0; i < 200; i++) {
      const { ledger } = generateTask({ ...DEFAULT, fault_rate: 0 }, i, { prompt: false });
      const trade = tradeOf.get(ledger.business.trade)!;
      for (const r of ledger.rows) {
        if (r.amount <= ABN_THRESHOLD_CENTS + 1 && r.type === 'purchase') continue;
        const lines = (r.type === 'sale' ? trade.sales : trade.purchases).filter((l) =>
          l.descriptions.includes(r.description),
        );
        // Whole-dollar rounding may move a price by up to 50 cents past either end.
        expect(
          lines.some((l) => r.amount >= l.min * 100 - 50 && r.amount <= l.max * 100 + 50),
          `${r.description} ${r.amount}`,
        ).toBe(true);
      }
    }
  });

  it('rent is hundreds or thousands a month, and exports are large consignments', () => {
    for (const trade of TRADES) {
      for (const l of [...trade.sales, ...trade.purchases]) {
        if (l.category === 'residential_rent') expect(l.min).toBeGreaterThanOrEqual(1000);
        if (l.category === 'export') expect(l.min).toBeGreaterThanOrEqual(1000);
      }
      for (const l of trade.receipts) expect(l.min * 100).toBeLessThan(ABN_THRESHOLD_CENTS);
    }
  });
});

describe('the task population', () => {
  // 600 tasks at the default configuration: counts over the population, not per ledger.
  const tasks = Array.from({ length: 600 }, (_, i) => generateTask(DEFAULT, i, { prompt: false }));

  it('holds every category, on sales and purchases together', () => {
    const seen = new Set<Category>();
    for (const t of tasks) for (const r of t.ledger.rows) seen.add(r.category);
    expect([...seen].sort()).toEqual([...CATEGORIES].sort());
  });

  it('holds every fault code, in the key and in what was injected', () => {
    const key = new Set<string>();
    const injected = new Set<string>();
    for (const t of tasks) {
      for (const codes of Object.values(t.key.faults)) codes.forEach((c) => key.add(c));
      for (const codes of Object.values(t.injected)) codes.forEach((c) => injected.add(c));
    }
    expect([...key].sort()).toEqual([...FAULT_CODES].sort());
    expect([...injected].sort()).toEqual([...FAULT_CODES].sort());
  });

  it('exercises the threshold: purchases at 82.50 and 82.51, and small receipts without an ABN', () => {
    let at = 0;
    let over = 0;
    let small = 0;
    let smallExactly = 0;
    for (const t of tasks) {
      for (const r of t.ledger.rows) {
        if (r.type !== 'purchase') continue;
        if (r.amount === ABN_THRESHOLD_CENTS && r.abn !== '') at++;
        if (r.amount === ABN_THRESHOLD_CENTS + 1) over++;
        if (r.abn === '' && r.amount < ABN_THRESHOLD_CENTS) small++;
        if (r.abn === '' && r.amount === ABN_THRESHOLD_CENTS) smallExactly++;
      }
    }
    // About 8,600 purchases: 2% at each threshold price, 8% small receipts.
    expect(at).toBeGreaterThan(50);
    expect(over).toBeGreaterThan(50);
    expect(small).toBeGreaterThan(300);
    expect(smallExactly).toBeGreaterThan(50);
  });

  it.each([0.1, 0.25, 0.35, 0.6, 0.9])('the realised share of faulty rows matches fault_rate %f', (rate) => {
    let faulty = 0;
    let rows = 0;
    for (let i = 0; i < 300; i++) {
      const t = generateTask({ num_transactions: 60, fault_rate: rate, seed: 7 }, i, { prompt: false });
      faulty += Object.keys(t.injected).length;
      rows += 60;
    }
    // 18,000 rows: the binomial standard error is at most 0.004; allow about four of them.
    expect(Math.abs(faulty / rows - rate)).toBeLessThan(0.016);
  });
});

describe('builtin:oracle from the prompt alone', () => {
  it('reaches every key over 4..400 rows and fault rates 0..1', () => {
    const config = fc.record({
      num_transactions: fc.oneof(fc.constantFrom(4, 10, 100, 400), fc.integer({ min: 4, max: 400 })),
      fault_rate: fc.oneof(fc.constantFrom(0, 1), fc.double({ min: 0, max: 1, noNaN: true })),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(config, fc.nat({ max: 100_000 }), (c, index) => {
        const t = generateTask(c, index);
        expect(scoreReply(runPolicy('oracle', t.prompt), t.key).reward).toBe(1);
      }),
      { numRuns: 150 },
    );
  });
});
