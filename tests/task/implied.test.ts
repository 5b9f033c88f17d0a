import { describe, expect, it } from 'vitest';
import { generateTask } from '../../src/task/generate.js';
import { consistencyOf, impliedBas } from '../../src/task/implied.js';
import { formatAnswer, POLICY_NAMES, runPolicy } from '../../src/task/policies.js';
import { deriveKey } from '../../src/task/rules.js';
import { scoreReply } from '../../src/task/score.js';
import type { Bas, Ledger, Row } from '../../src/task/types.js';

/** A row with the fields the rules ignore filled in. */
function row(r: Pick<Row, 'id' | 'type' | 'category' | 'amount' | 'gst'> & Partial<Row>): Row {
  return {
    date: '2025-08-01',
    counterparty: 'Someone',
    description: 'something',
    invoice: `INV-${r.id}`,
    abn: r.type === 'purchase' ? '51824753556' : '',
    ...r,
  };
}

// Worked by hand (cents). One fault of each kind:
//   T1 sale goods 110.00, GST 10.00                 right
//   T2 sale basic_food 55.00, GST 5.00               gst_on_gst_free
//   T3 purchase equipment 220.00, GST 22.00          gst_miscalculated (should be 20.00)
//   T4 purchase goods 99.00, GST 9.00, no ABN        missing_abn_over_threshold
//   T5 sale services 33.00, GST 3.00, in October     outside_period
//   T6 purchase goods 44.00, GST 4.00, T3's invoice  duplicate_invoice
const ledger: Ledger = {
  business: { name: 'Test Pty Ltd', abn: '51824753556', trade: '' },
  period: { start: '2025-07-01', end: '2025-09-30' },
  rows: [
    row({ id: 'T1', type: 'sale', category: 'goods', amount: 11000, gst: 1000 }),
    row({ id: 'T2', type: 'sale', category: 'basic_food', amount: 5500, gst: 500 }),
    row({ id: 'T3', type: 'purchase', category: 'equipment', amount: 22000, gst: 2200 }),
    row({ id: 'T4', type: 'purchase', category: 'goods', amount: 9900, gst: 900, abn: '' }),
    row({ id: 'T5', type: 'sale', category: 'services', amount: 3300, gst: 300, date: '2025-10-02' }),
    row({ id: 'T6', type: 'purchase', category: 'goods', amount: 4400, gst: 400, invoice: 'INV-T3' }),
  ],
};
// The key: sales T1 and T2 (G1 165.00; 1A only T1's 10.00), purchases T3 at 20.00 (T4 has no
// credit, T6 is the duplicate): 1B 20.00, net -10.00.
const KEY: Bas = { G1: 16500, '1A': 1000, '1B': 2000, net: -1000 };
const TRUE_CLAIMS = {
  T2: ['gst_on_gst_free'],
  T3: ['gst_miscalculated'],
  T4: ['missing_abn_over_threshold'],
  T5: ['outside_period'],
  T6: ['duplicate_invoice'],
};

const claims = (c: Record<string, string[]>) => new Map(Object.entries(c).map(([id, codes]) => [id, new Set(codes)]));

describe('impliedBas', () => {
  it('the hand-worked key is what the rules derive', () => {
    expect(deriveKey(ledger).bas).toEqual(KEY);
    expect(Object.keys(deriveKey(ledger).faults).sort()).toEqual(Object.keys(TRUE_CLAIMS));
  });

  it('claiming nothing takes every row as recorded', () => {
    // G1 110 + 55 + 33; 1A 10 + 5 + 3; 1B 22 + 9 + 4.
    expect(impliedBas(ledger, claims({}))).toEqual({ G1: 19800, '1A': 1800, '1B': 3500, net: -1700 });
  });

  it('every true fault claimed and nothing else implies the key', () => {
    expect(impliedBas(ledger, claims(TRUE_CLAIMS))).toEqual(KEY);
  });

  it('outside_period and duplicate_invoice leave a row out, sale or purchase', () => {
    expect(impliedBas(ledger, claims({ T5: ['outside_period'] }))).toEqual({
      G1: 16500,
      '1A': 1500,
      '1B': 3500,
      net: -2000,
    });
    expect(impliedBas(ledger, claims({ T1: ['duplicate_invoice'], T6: ['outside_period'] }))).toEqual({
      G1: 8800,
      '1A': 800,
      '1B': 3100,
      net: -2300,
    });
  });

  it('gst_on_gst_free zeroes the GST whatever else is claimed; gst_miscalculated takes amount / 11', () => {
    // T3 at 0 instead of 22.00.
    expect(impliedBas(ledger, claims({ T3: ['gst_miscalculated', 'gst_on_gst_free'] }))['1B']).toBe(1300);
    // T3 at 20.00; T1 claimed miscalculated is 110.00 / 11 = 10.00, as recorded.
    expect(impliedBas(ledger, claims({ T3: ['gst_miscalculated'], T1: ['gst_miscalculated'] }))).toEqual({
      G1: 19800,
      '1A': 1800,
      '1B': 3300,
      net: -1500,
    });
    // T2 at 0 instead of 5.00.
    expect(impliedBas(ledger, claims({ T2: ['gst_on_gst_free'] }))['1A']).toBe(1300);
  });

  it('missing_abn_over_threshold takes a purchase out of 1B only, and does nothing to a sale', () => {
    expect(impliedBas(ledger, claims({ T4: ['missing_abn_over_threshold'] }))).toEqual({
      G1: 19800,
      '1A': 1800,
      '1B': 2600,
      net: -800,
    });
    expect(impliedBas(ledger, claims({ T1: ['missing_abn_over_threshold'] }))).toEqual(impliedBas(ledger, claims({})));
  });

  it('ignores ids the ledger lacks and codes that are not one of the five', () => {
    expect(impliedBas(ledger, claims({ T99: ['outside_period'], T1: ['made_up'], t1: ['outside_period'] }))).toEqual(
      impliedBas(ledger, claims({})),
    );
  });
});

describe('consistencyOf', () => {
  const RAW: Bas = { G1: 19800, '1A': 1800, '1B': 3500, net: -1700 };

  it('a right BAS has no cause, and is consistent when its faults imply it', () => {
    expect(consistencyOf(KEY, KEY, KEY)).toEqual({
      bas_consistent: 1,
      bas_error: null,
      labels: { G1: null, '1A': null, '1B': null, net: null },
    });
    // silent: the key's figures, but no fault claimed implies the raw sums.
    expect(consistencyOf(KEY, RAW, KEY).bas_consistent).toBe(0);
    expect(consistencyOf(KEY, RAW, KEY).bas_error).toBeNull();
  });

  it('stating what wrong faults imply is an audit error, label by label', () => {
    expect(consistencyOf(RAW, RAW, KEY)).toEqual({
      bas_consistent: 1,
      bas_error: 'audit',
      labels: { G1: 'audit', '1A': 'audit', '1B': 'audit', net: 'audit' },
    });
  });

  it('faults that imply the key with other figures stated are an arithmetic error', () => {
    const stated = { G1: 16500, '1A': 1000, '1B': 2100, net: -1100 };
    expect(consistencyOf(stated, KEY, KEY)).toEqual({
      bas_consistent: 0,
      bas_error: 'arithmetic',
      labels: { G1: null, '1A': null, '1B': 'arithmetic', net: 'arithmetic' },
    });
    // A missing or unreadable figure is never what anything implies.
    expect(consistencyOf({ ...KEY, net: null }, KEY, KEY).labels.net).toBe('arithmetic');
  });

  it('anything else is both, per label and for the BAS', () => {
    // T5 claimed only: implies G1 165.00, 1A 15.00, 1B 35.00, net -20.00.
    const implied = impliedBas(ledger, claims({ T5: ['outside_period'] }));
    const stated = { G1: 16500, '1A': 1500, '1B': 2000, net: -999 };
    expect(consistencyOf(stated, implied, KEY)).toEqual({
      bas_consistent: 0,
      bas_error: 'both',
      labels: { G1: null, '1A': 'audit', '1B': null, net: 'both' },
    });
  });
});

describe('scoreReply with the ledger', () => {
  it('records the consistency of a parsed reply, and none without the ledger or for an unparseable one', () => {
    const key = deriveKey(ledger);
    const reply = formatAnswer({ G1: 16500, '1A': 1000, '1B': 2100, net: -1100 }, TRUE_CLAIMS as never);
    const s = scoreReply(reply, key, ledger);
    expect(s.detail.consistency).toEqual({
      bas_consistent: 0,
      bas_error: 'arithmetic',
      labels: { G1: null, '1A': null, '1B': 'arithmetic', net: 'arithmetic' },
    });
    // The rewards and metrics are the same with or without it.
    const { detail: withLedger, ...scores } = s;
    const { detail: without, ...plain } = scoreReply(reply, key);
    expect(scores).toEqual(plain);
    expect(without.consistency).toBeUndefined();
    expect({ ...withLedger, consistency: undefined }).toEqual({ ...without, consistency: undefined });
    expect(scoreReply('no answer here', key, ledger).detail.consistency).toBeUndefined();
  });

  it('the built-ins: oracle, raw-sums and blanket state what their faults imply; silent does not where faults change the BAS', () => {
    let silentWrong = 0;
    for (let i = 0; i < 40; i++) {
      const t = generateTask({ num_transactions: 24, fault_rate: 0.3, seed: 11 }, i);
      const grade = (p: (typeof POLICY_NAMES)[number]) => scoreReply(runPolicy(p, t.prompt), t.key, t.ledger);
      expect(grade('oracle').detail.consistency).toEqual({
        bas_consistent: 1,
        bas_error: null,
        labels: { G1: null, '1A': null, '1B': null, net: null },
      });
      for (const p of ['raw-sums', 'blanket'] as const) {
        const c = grade(p).detail.consistency!;
        expect(c.bas_consistent, `${p} on task ${i}`).toBe(1);
        // Consistent and wrong can only be the audit's fault.
        expect(c.bas_error).toBe(grade(p).rewards.bas_correct ? null : 'audit');
      }
      const silent = grade('silent').detail.consistency!;
      const raw = impliedBas(t.ledger, new Map());
      const changes = (['G1', '1A', '1B', 'net'] as const).some((l) => raw[l] !== t.key.bas[l]);
      expect(silent.bas_consistent, `silent on task ${i}`).toBe(changes ? 0 : 1);
      expect(silent.bas_error).toBeNull();
      if (changes) silentWrong++;
    }
    expect(silentWrong).toBeGreaterThan(30);
  });
});
