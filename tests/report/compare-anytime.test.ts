/**
 * `bas compare` shows the anytime-valid interval of a paired difference beside its bootstrap:
 * the confidence sequence of the per-task differences (errors as 0), in text and JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildComparison, renderComparison } from '../../src/report/compare.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { PairedConfidenceSequence } from '../../src/summary/confidence-sequence.js';
import { writeRun } from './make-run.js';

let root: string;
const runs: RunData[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bas-anytime-'));
  // A: the oracle on every task (reward 1); B: the oracle on even tasks, an error on odd ones
  writeRun(join(root, 'a'), { n: 60, model: 'builtin:oracle', choose: () => 'oracle' });
  writeRun(join(root, 'b'), {
    n: 60,
    model: 'builtin:oracle',
    choose: (i) => (i % 2 ? { error: 'timeout' } : 'oracle'),
  });
  for (const k of ['a', 'b']) runs.push(await readRun(join(root, k), () => {}));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('compare: the anytime-valid interval of the paired difference', () => {
  it('is the confidence sequence of the per-task differences, errors as 0, beside the bootstrap', () => {
    const c = buildComparison(runs, 1, 200);
    const p = c.pairings[0]!;
    // by hand: 30 tasks differ by -1 (errored in B), 30 by 0
    const cs = new PairedConfidenceSequence();
    for (let i = 0; i < 60; i++) cs.push(i % 2 ? 0 : 1, 1);
    const want = cs.interval();
    expect(p.anytime).toMatchObject({ method: 'betting-mixture', anytime_valid: true, tasks: 60, mean: -0.5 });
    expect(p.anytime!.ci95[0]).toBeCloseTo(want.low, 9);
    expect(p.anytime!.ci95[1]).toBeCloseTo(want.high, 9);
    // wider than the bootstrap's fixed-n interval, and excluding 0 here
    const boot = p.diff_errors_as_zero!.ci95!;
    expect(p.anytime!.ci95[0]).toBeLessThan(boot[0]);
    expect(p.anytime!.ci95[1]).toBeGreaterThan(boot[1]);
    expect(p.anytime!.ci95[1]).toBeLessThan(0);
    const text = renderComparison(c);
    expect(text.replace(/\s+/g, ' ')).toMatch(
      /anytime-valid 95% interval of B − A \(confidence sequence, errors as 0, 60 tasks\): -0\.500 \[-0\.\d{3}, -0\.\d{3}\]/,
    );
    expect(JSON.parse(JSON.stringify(c)).pairings[0].anytime.ci95).toHaveLength(2);
  });
});
