import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidAbn } from '../../src/task/abn.js';
import { checkAgainstInjected } from '../../src/task/check.js';
import { generateTask } from '../../src/task/generate.js';
import { runPolicy } from '../../src/task/policies.js';
import { ABN_THRESHOLD_CENTS, correctGst, deriveKey, isTaxable } from '../../src/task/rules.js';
import { scoreReply } from '../../src/task/score.js';
import { taskToJson } from '../../src/task/serialize.js';
import { CATEGORIES, FAULT_CODES, type TaskConfig } from '../../src/task/types.js';

const DEFAULT: TaskConfig = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

const configArb = fc.record({
  num_transactions: fc.oneof(fc.constantFrom(4, 5, 24, 60), fc.integer({ min: 4, max: 200 })),
  fault_rate: fc.oneof(fc.constantFrom(0, 1, 0.25, 0.35), fc.double({ min: 0, max: 1, noNaN: true })),
  seed: fc.oneof(fc.constantFrom(0, 20260826, Number.MAX_SAFE_INTEGER), fc.nat()),
});

describe('generator', () => {
  it('the same configuration gives byte-identical tasks', () => {
    const a = Array.from({ length: 20 }, (_, i) => JSON.stringify(taskToJson(generateTask(DEFAULT, i))));
    const b = Array.from({ length: 20 }, (_, i) => JSON.stringify(taskToJson(generateTask(DEFAULT, i))));
    expect(b).toEqual(a);
  });

  it('task i does not depend on which other tasks were made, or in what order', () => {
    const forward = [0, 1, 2, 3, 7].map((i) => JSON.stringify(taskToJson(generateTask(DEFAULT, i))));
    const alone = JSON.stringify(taskToJson(generateTask(DEFAULT, 7)));
    expect(alone).toBe(forward[4]);
    expect(JSON.stringify(taskToJson(generateTask(DEFAULT, 2)))).toBe(forward[2]);
  });

  it('different seeds and indices give different ledgers', () => {
    const a = JSON.stringify(generateTask(DEFAULT, 0).ledger);
    expect(JSON.stringify(generateTask(DEFAULT, 1).ledger)).not.toBe(a);
    expect(JSON.stringify(generateTask({ ...DEFAULT, seed: 1 }, 0).ledger)).not.toBe(a);
  });

  it('every draw depends on seed and index, the first one included (the business name)', () => {
    const names = (seed: number) =>
      Array.from({ length: 40 }, (_, i) => generateTask({ ...DEFAULT, seed }, i).ledger.business.name);
    for (const seed of [0, 1, DEFAULT.seed, 2 ** 32, 2 ** 32 + 1]) {
      const firstWords = new Set(names(seed).map((n) => n.split(' ')[0]));
      expect(firstWords.size).toBeGreaterThan(5);
    }
    const first = (seed: number) =>
      Array.from(
        { length: 12 },
        (_, s) => generateTask({ ...DEFAULT, seed: seed + s }, 0).ledger.business.name.split(' ')[0],
      );
    expect(new Set(first(0)).size).toBeGreaterThan(3);
    expect(new Set(first(2 ** 32)).size).toBeGreaterThan(3);
  });

  it('generates all five fault types over many ledgers', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++)
      for (const codes of Object.values(generateTask(DEFAULT, i).injected)) codes.forEach((c) => seen.add(c));
    expect([...seen].sort()).toEqual([...FAULT_CODES].sort());
  });

  it('rows are well formed: ids, ABNs, dates, GST, threshold edges', () => {
    let smallNoAbn = 0;
    let atThreshold = 0;
    for (let i = 0; i < 60; i++) {
      const { ledger } = generateTask(DEFAULT, i);
      expect(isValidAbn(ledger.business.abn)).toBe(true);
      ledger.rows.forEach((r, k) => {
        expect(r.id).toBe(`T${String(k + 1).padStart(2, '0')}`);
        expect(r.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(CATEGORIES).toContain(r.category);
        expect(Number.isSafeInteger(r.amount) && r.amount > 0).toBe(true);
        if (r.type === 'sale') expect(r.abn).toBe('');
        else if (r.abn !== '') expect(isValidAbn(r.abn)).toBe(true);
        if (r.type === 'purchase' && r.abn === '' && r.amount <= ABN_THRESHOLD_CENTS) smallNoAbn++;
        if (r.amount === ABN_THRESHOLD_CENTS || r.amount === ABN_THRESHOLD_CENTS + 1) atThreshold++;
        for (const field of [r.counterparty, r.description, r.invoice]) expect(field).not.toMatch(/[,"\n]/);
      });
    }
    expect(smallNoAbn).toBeGreaterThan(0);
    expect(atThreshold).toBeGreaterThan(0);
  });

  it('fault maps keyed by row id are dictionaries without a prototype', () => {
    // An object literal would get a hidden class per set of faulty rows, each left in V8's old
    // generation for the next full collection (docs/performance.md).
    const t = generateTask(DEFAULT, 7);
    expect(Object.getPrototypeOf(t.injected)).toBe(null);
    expect(Object.getPrototypeOf(t.key.faults)).toBe(null);
    expect(Object.keys(t.key.faults).length).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(t.key.faults))).toEqual({ ...t.key.faults });
  });

  it('pads ids to the width of the count', () => {
    expect(generateTask({ ...DEFAULT, num_transactions: 4 }, 0).ledger.rows.map((r) => r.id)).toEqual([
      'T1',
      'T2',
      'T3',
      'T4',
    ]);
    expect(generateTask({ ...DEFAULT, num_transactions: 100 }, 0).ledger.rows[0]!.id).toBe('T001');
  });

  it('fault rate 0 injects nothing; any rate above 0 injects at least one fault', () => {
    for (let i = 0; i < 30; i++) {
      expect(generateTask({ ...DEFAULT, fault_rate: 0 }, i).injected).toEqual({});
      expect(Object.keys(generateTask({ ...DEFAULT, fault_rate: 1e-9 }, i).injected).length).toBeGreaterThan(0);
    }
  });

  it('the fault rate is the share of faulty rows, roughly', () => {
    let faulty = 0;
    let rows = 0;
    for (let i = 0; i < 200; i++) {
      const t = generateTask({ ...DEFAULT, fault_rate: 0.35, num_transactions: 60 }, i);
      faulty += Object.keys(t.injected).length;
      rows += 60;
    }
    expect(faulty / rows).toBeGreaterThan(0.32);
    expect(faulty / rows).toBeLessThan(0.38);
  });
});

describe('properties over random configurations', () => {
  it('the re-derived key holds exactly what was injected, plus only chance collisions', () => {
    fc.assert(
      fc.property(configArb, fc.nat({ max: 10_000 }), (config, index) => {
        const t = generateTask(config, index);
        for (const [id, codes] of Object.entries(t.injected))
          for (const c of codes) expect(t.key.faults[id]).toContain(c);
        const check = checkAgainstInjected(t.ledger, t.injected);
        expect(check.valid).toBe(true);
        for (const p of check.accidental) expect(p.code).toBe('duplicate_invoice');
      }),
      { numRuns: 150 },
    );
  });

  it('oracle scores 1.0 from the prompt alone, including 4-row and 1,000-row ledgers and rates 0 and 1', () => {
    const big = fc.record({
      num_transactions: fc.constantFrom(4, 1000),
      fault_rate: fc.constantFrom(0, 1),
      seed: fc.nat(),
    });
    fc.assert(
      fc.property(fc.oneof(configArb, big), fc.nat({ max: 1000 }), (config, index) => {
        const t = generateTask(config, index);
        expect(scoreReply(runPolicy('oracle', t.prompt), t.key).reward).toBe(1);
      }),
      { numRuns: 60 },
    );
  });

  it('the corrected BAS follows its definition', () => {
    fc.assert(
      fc.property(configArb, fc.nat({ max: 1000 }), (config, index) => {
        const { ledger, key } = generateTask(config, index);
        let g1 = 0;
        let a = 0;
        let b = 0;
        for (const r of ledger.rows) {
          const codes = key.faults[r.id] ?? [];
          if (codes.includes('outside_period') || codes.includes('duplicate_invoice')) continue;
          if (r.type === 'sale') {
            g1 += r.amount;
            if (isTaxable(r.category)) a += correctGst(r);
          } else if (isTaxable(r.category) && !codes.includes('missing_abn_over_threshold')) b += correctGst(r);
        }
        expect(key.bas).toEqual({ G1: g1, '1A': a, '1B': b, net: a - b });
        expect(deriveKey(ledger)).toEqual(key);
      }),
      { numRuns: 100 },
    );
  });
});
