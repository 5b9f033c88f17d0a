import { describe, expect, it } from 'vitest';
import { generateTask } from '../../src/task/generate.js';
import { formatAnswer, runPolicy } from '../../src/task/policies.js';
import { auditF1, scoreReply } from '../../src/task/score.js';
import type { AnswerKey, Bas, FaultMap } from '../../src/task/types.js';

const key: AnswerKey = {
  bas: { G1: 123450, '1A': 11223, '1B': 4000, net: 7223 },
  faults: { T03: ['gst_miscalculated'], T07: ['duplicate_invoice', 'outside_period'] },
};
const reply = (bas: Partial<Record<keyof Bas, unknown>>, faults: unknown) =>
  `<answer>${JSON.stringify({ G1: '1234.50', '1A': '112.23', '1B': '40.00', net: '72.23', ...bas, faults })}</answer>`;

describe('scoreReply', () => {
  it('the gold answer scores 1.0 on both rewards', () => {
    const s = scoreReply(formatAnswer(key.bas, key.faults), key);
    expect(s.reward).toBe(1);
    expect(s.rewards).toEqual({ bas_correct: 1, fault_audit: 1 });
    expect(s.metrics).toEqual({
      bas_label_accuracy: 1,
      fault_precision: 1,
      fault_recall: 1,
      num_flagged: 3,
      parsed: 1,
    });
  });

  it('accepts every tolerated way of writing a figure', () => {
    const s = scoreReply(reply({ G1: 1234.5, '1A': '$112.23', '1B': '40', net: ' 72.23 ' }, key.faults), key);
    expect(s.rewards.bas_correct).toBe(1);
    const c = scoreReply(reply({ G1: '1,234.50' }, key.faults), key);
    expect(c.rewards.bas_correct).toBe(1);
  });

  it('three labels of four earn no bas_correct but 0.75 label accuracy', () => {
    const s = scoreReply(reply({ net: '72.24' }, key.faults), key);
    expect(s.rewards.bas_correct).toBe(0);
    expect(s.metrics.bas_label_accuracy).toBe(0.75);
    expect(s.detail.labels).toEqual({ G1: true, '1A': true, '1B': true, net: false });
    expect(s.reward).toBeCloseTo(0.4);
  });

  it('a figure off by a tenth of a cent is wrong', () => {
    expect(scoreReply(reply({ G1: '1234.501' }, key.faults), key).detail.labels.G1).toBe(false);
  });

  it('the right row for the wrong reason earns no audit credit', () => {
    const s = scoreReply(reply({}, { T03: ['outside_period'] }), key);
    expect(s.rewards.fault_audit).toBe(0);
    expect(s.metrics.fault_precision).toBe(0);
    expect(s.detail.codes.outside_period.fp).toBe(1);
    expect(s.detail.codes.gst_miscalculated.fn).toBe(1);
  });

  it('an invented code costs precision', () => {
    const s = scoreReply(reply({}, { ...key.faults, T09: ['suspicious_vibes'] }), key);
    expect(s.metrics.fault_precision).toBe(0.75);
    expect(s.metrics.fault_recall).toBe(1);
    expect(s.rewards.fault_audit).toBeCloseTo((2 * 0.75) / 1.75);
    expect(s.detail.unknown_codes).toBe(1);
  });

  it('repeated pairs count once; num_flagged counts pairs, not rows', () => {
    const s = scoreReply(
      reply({}, { T07: ['outside_period', 'outside_period', 'duplicate_invoice'], ' T07': 'outside_period' }),
      key,
    );
    expect(s.metrics.num_flagged).toBe(2);
    expect(s.metrics.fault_precision).toBe(1);
    expect(s.metrics.fault_recall).toBeCloseTo(2 / 3);
  });

  it('an unparseable reply scores 0 everywhere with parsed = 0', () => {
    const s = scoreReply('<answer>{oops</answer>', key);
    expect(s.reward).toBe(0);
    expect(s.metrics).toEqual({
      bas_label_accuracy: 0,
      fault_precision: 0,
      fault_recall: 0,
      num_flagged: 0,
      parsed: 0,
    });
    expect(s.detail.unparseable).toMatch(/JSON/);
  });

  describe('clean quarter', () => {
    const clean: AnswerKey = { bas: key.bas, faults: {} };
    it('an empty faults object scores 1.0 on the audit', () => {
      const s = scoreReply(reply({}, {}), clean);
      expect(s.rewards.fault_audit).toBe(1);
      expect(s.reward).toBe(1);
      expect(s.metrics.fault_recall).toBe(0);
      expect(s.metrics.fault_precision).toBe(0);
    });
    it('any flag scores 0.0 on the audit', () => {
      expect(scoreReply(reply({}, { T01: 'outside_period' }), clean).rewards.fault_audit).toBe(0);
    });
  });

  it('F1 is the harmonic mean of precision and recall', () => {
    expect(auditF1(2, 4, 2)).toBeCloseTo(2 / 3);
    expect(auditF1(0, 3, 2)).toBe(0);
    expect(auditF1(0, 0, 0)).toBe(1);
    expect(auditF1(0, 1, 0)).toBe(0);
  });
});

describe('shortcuts earn little', () => {
  const config = { num_transactions: 24, fault_rate: 0.25, seed: 7 };
  const tasks = Array.from({ length: 40 }, (_, i) => generateTask(config, i));

  it('raw column sums rarely earn the BAS reward: only where every fault leaves the figures alone', () => {
    let right = 0;
    for (const t of tasks) {
      const s = scoreReply(runPolicy('raw-sums', t.prompt), t.key);
      if (s.rewards.bas_correct === 1) {
        right++;
        // Such a ledger's faults sit on rows that add nothing to G1, 1A or 1B (a missing ABN
        // on a GST-free purchase, say): no row with GST on it, and no sale, is faulty.
        for (const id of Object.keys(t.injected)) {
          const row = t.ledger.rows.find((r) => r.id === id)!;
          expect(row.type === 'purchase' && row.gst === 0, `task ${t.index} row ${id}`).toBe(true);
        }
      }
    }
    expect(right / tasks.length).toBeLessThanOrEqual(0.1);
  });

  it('blanket flagging scores worse than silence, and its precision collapses', () => {
    for (const t of tasks) {
      const blanket = scoreReply(runPolicy('blanket', t.prompt), t.key);
      const silent = scoreReply(runPolicy('silent', t.prompt), t.key);
      expect(blanket.reward, `task ${t.index}`).toBeLessThan(silent.reward);
      expect(blanket.metrics.fault_precision).toBeLessThan(0.3);
      expect(blanket.metrics.fault_recall).toBe(1);
      expect(blanket.metrics.num_flagged).toBe(24 * 5);
    }
  });

  it('on a clean quarter silence earns everything and blanket flagging nothing', () => {
    // Fault rate 0 injects nothing; skip past any chance invoice collision to a truly clean quarter.
    const clean = Array.from({ length: 5 }, (_, i) => generateTask({ ...config, fault_rate: 0 }, i)).find(
      (t) => Object.keys(t.key.faults).length === 0,
    );
    if (!clean) throw new Error('no clean quarter among five tasks at fault rate 0');
    expect(scoreReply(runPolicy('silent', clean.prompt), clean.key).reward).toBe(1);
    expect(scoreReply(runPolicy('blanket', clean.prompt), clean.key).reward).toBe(0);
  });

  it('the oracle scores 1.0 from the prompt text alone', () => {
    for (const t of tasks) expect(scoreReply(runPolicy('oracle', t.prompt), t.key).reward).toBe(1);
  });
});

describe('formatAnswer', () => {
  it('round-trips through the parser', () => {
    const faults: FaultMap = { T1: ['outside_period'] };
    const s = scoreReply(formatAnswer({ G1: -5, '1A': 0, '1B': 99, net: -99 }, faults), {
      bas: { G1: -5, '1A': 0, '1B': 99, net: -99 },
      faults,
    });
    expect(s.reward).toBe(1);
  });
});
