import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SummaryBuilder } from '../../src/summary/summary-builder.js';
import { summarize } from '../support/summarize.js';
import { percentileSorted } from '../../src/summary/stats.js';
import { renderSummary } from '../../src/report/tables.js';
import { done, failed } from '../report/fixtures.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';

describe('summarize', () => {
  // Four tasks, one rollout each: rewards 1.0, 0.4, 0.2 and a timeout.
  const records = [
    done(0, 0, { bas: 1, audit: 1, codes: { 0: [2, 0, 0], 1: [1, 0, 0] }, latency: 1000 }),
    done(1, 0, { bas: 0, audit: 1, codes: { 1: [1, 1, 1] }, latency: 2000 }),
    done(2, 0, { bas: 0, audit: 0.5, codes: { 3: [1, 0, 1] }, latency: 4000 }),
    failed(3, 0, 'timeout'),
  ];
  const s = summarize(records);

  it('counts completed and errored rollouts by type', () => {
    expect(s.counts).toMatchObject({
      lines: 4,
      rollouts: 4,
      tasks: 4,
      completed: 3,
      errored: 1,
      errors_by_type: { timeout: 1 },
    });
  });

  it('means over completed rollouts, and with errors as 0', () => {
    // rewards: 1.0, 0.4, 0.2
    expect(s.reward.mean).toBeCloseTo(1.6 / 3, 12);
    expect(s.reward.n).toBe(3);
    // sd of (1, .4, .2): mean .5333, ss = .217777+.017777+.111111 = .346667, var .173333
    expect(s.reward.stderr).toBeCloseTo(Math.sqrt(0.346666666 / 2) / Math.sqrt(3), 6);
    expect(s.reward_errors_as_zero.mean).toBeCloseTo(1.6 / 4, 12);
    expect(s.reward_errors_as_zero.n).toBe(4);
    expect(s.rewards.bas_correct.mean).toBeCloseTo(1 / 3, 12);
    expect(s.rewards.bas_correct.method).toBe('wilson');
    expect(s.rewards.fault_audit.mean).toBeCloseTo(2.5 / 3, 12);
    expect(s.metrics.parsed.mean).toBe(1);
  });

  it('per-label accuracy and pooled per-code precision/recall', () => {
    expect(s.labels.G1.mean).toBeCloseTo(1 / 3, 12);
    expect(s.labels['1A'].mean).toBe(1);
    expect(s.codes.gst_on_gst_free).toEqual({ tp: 2, fp: 0, fn: 0, precision: 1, recall: 1 });
    expect(s.codes.gst_miscalculated).toEqual({ tp: 2, fp: 1, fn: 1, precision: 2 / 3, recall: 2 / 3 });
    expect(s.codes.outside_period).toMatchObject({ precision: 1, recall: 0.5 });
    expect(s.codes.duplicate_invoice).toMatchObject({ precision: null, recall: null });
  });

  it('tokens over every rollout with usage, latency over completed ones', () => {
    expect(s.tokens).toEqual({
      prompt: 3000,
      completion: 600,
      total: 3600,
      reasoning: 0,
      cached: 0,
      rollouts_with_usage: 3,
      ignored: 0,
      unscored: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
      unrecorded: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
      in_flight: { requests: 0, prompt: 0, completion: 0 },
      beyond_completion: 0,
      unreported: { requests: 0, prompt: 0, completion: 0 },
    });
    expect(s.latency_ms.p50).toBe(2000);
    expect(s.latency_ms.p95).toBeCloseTo(2000 + 0.9 * 2000, 9);
  });

  it('a histogram of completed rewards', () => {
    const counts = s.reward_histogram.map((b) => b.count);
    expect(counts).toEqual([0, 0, 1, 0, 1, 0, 0, 0, 0, 1]);
  });

  it('no pass@k with one rollout per task', () => expect(s.pass_at_k).toEqual([]));

  it('renders tables', () => {
    const text = renderSummary(s, { title: 'run' });
    expect(text).toContain('reward (errors as 0)');
    expect(text).toContain('0.533');
    expect(text).toContain('timeout');
    expect(text).toContain('gst_miscalculated');
    expect(text).not.toContain('\u001b['); // no colour codes
  });
});

describe('one record per rollout', () => {
  // Which line of a results file counts is the run folder's rule (tests/runfile/winners.test.ts);
  // the summary counts what it is given, and the lines its reader left out.
  it('counts every record added as a rollout, and lines a reader left out as replaced', () => {
    const b = new SummaryBuilder();
    b.add(done(1, 0, { bas: 0, audit: 0.5 }));
    b.add(done(0, 0, { bas: 1, audit: 1 }));
    b.addReplaced(failed(0, 0, 'rate_limit'));
    const s = b.result();
    expect(s.counts).toMatchObject({ lines: 3, replaced: 1, rollouts: 2, completed: 2, errored: 0 });
    expect(s.reward.mean).toBeCloseTo((1 + 0.2) / 2, 12);
  });
});

describe('per-task means, whatever the indices', () => {
  // Indices counting up find their slot in an array, one far past the rest a map (task-table.ts):
  // the rows must not depend on which, nor on the order the records came in.
  it('gives one row per task, in index order, for dense, strided, huge and out-of-order indices', () => {
    const indices = [5, 0, 3, 2 ** 40, 1, 70_000_000, 2, 4, 900_000, 2 ** 40 + 1];
    const b = new SummaryBuilder();
    const expected = new Map<number, number[]>();
    indices.forEach((index, k) => {
      for (let rollout = 0; rollout < 2; rollout++) {
        const bas = (k + rollout) % 2 === 0 ? 1 : 0;
        b.add(done(index, rollout, { bas, audit: 0.5 }));
        expected.set(index, [...(expected.get(index) ?? []), 0.6 * bas + 0.2]);
      }
    });
    const rows = b.perTask();
    expect(rows.map((t) => t.index)).toEqual([...indices].sort((x, y) => x - y));
    for (const t of rows) {
      const want = expected.get(t.index)!;
      expect(t).toMatchObject({ rollouts: 2, completed: 2 });
      expect(t.reward).toBeCloseTo((want[0]! + want[1]!) / 2, 12);
    }
    // The same rows as columns (what compare and the leaderboard pair on).
    const cols = b.taskMeans();
    expect(Array.from(cols.index)).toEqual(rows.map((t) => t.index));
    expect(Array.from(cols.rewardZero)).toEqual(rows.map((t) => t.rewardZero));
    // A record added after the rows were asked for is in the next rows.
    b.add(done(6, 0, { bas: 1, audit: 1 }));
    expect(b.perTask().map((t) => t.index)).toContain(6);
  });
});

describe('tokens that bought no score', () => {
  const usage = (prompt: number, completion: number, reasoning?: number, cached?: number) => ({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(reasoning === undefined ? {} : { reasoning_tokens: reasoning }),
    ...(cached === undefined ? {} : { cached_tokens: cached }),
  });

  it("count in the totals and apart: errored rollouts' usage, and lines a later line replaced", () => {
    const b = new SummaryBuilder();
    // Rollout 0 errored (an empty reply cut by the limit, paid for), then a resume scored it:
    // the reader hands the replaced line over apart (src/runfile/winners.ts).
    b.addReplaced({ ...failed(0, 0, 'malformed'), usage: usage(1000, 4096, 4096, 512) });
    b.add({ ...done(1, 0, { bas: 1, audit: 1 }), usage: usage(1000, 300) });
    b.add({ ...failed(2, 0, 'malformed'), usage: usage(1000, 4096, 4096) });
    b.add({ ...done(0, 0, { bas: 1, audit: 1 }), usage: usage(1000, 5000, 4700) });
    // An errored rollout that got no response at all reports nothing.
    b.add(failed(3, 0, 'timeout'));
    const s = b.result();
    expect(s.tokens).toMatchObject({
      prompt: 4000,
      completion: 4096 + 300 + 4096 + 5000,
      total: 4000 + 4096 + 300 + 4096 + 5000,
      reasoning: 4096 + 4096 + 4700,
      cached: 512,
      rollouts_with_usage: 3,
    });
    expect(s.tokens.unscored).toEqual({
      prompt: 2000,
      completion: 8192,
      total: 10192,
      reasoning: 8192,
      cached: 512,
      lines: 2,
    });
  });
});

describe('pass@k over rollouts', () => {
  it('averages the per-task estimator, errors counting as failures', () => {
    // task 0: 4 rollouts, 1 correct; task 1: 4 rollouts, 2 correct, one errored.
    const s = summarize([
      done(0, 0, { bas: 1, audit: 1 }),
      done(0, 1, { bas: 0, audit: 1 }),
      done(0, 2, { bas: 0, audit: 1 }),
      done(0, 3, { bas: 0, audit: 1 }),
      done(1, 0, { bas: 1, audit: 1 }),
      done(1, 1, { bas: 1, audit: 1 }),
      done(1, 2, { bas: 0, audit: 1 }),
      failed(1, 3),
    ]);
    expect(s.counts.max_rollouts).toBe(4);
    const byK = Object.fromEntries(s.pass_at_k.map((r) => [r.k, r.value]));
    expect(byK[1]).toBeCloseTo((0.25 + 0.5) / 2, 12);
    expect(byK[2]).toBeCloseTo((0.5 + (1 - 1 / 6)) / 2, 12);
    expect(byK[4]).toBe(1);
  });
});

describe('scale', () => {
  it('100,000 rollouts summarise in plain numbers', () => {
    const b = new SummaryBuilder();
    const r = done(0, 0, { bas: 1, audit: 0.5 });
    for (let i = 0; i < 100_000; i++) b.add({ ...r, index: i, reward: (i % 10) / 10 });
    const s = b.result();
    expect(s.counts.rollouts).toBe(100_000);
    expect(s.reward.mean).toBeCloseTo(0.45, 9);
  });
});

describe('fault precision, per reply and pooled', () => {
  // Oracle replies on even tasks, silent (claims nothing) on odd ones: every claim is right.
  const records = Array.from({ length: 8 }, (_, i) => makeRecord(SMALL_CONFIG, i, 0, 'm', i % 2 ? 'silent' : 'oracle'));
  const s = summarize(records);

  it('keeps the original fault_precision, 0 for a reply that claims nothing', () => {
    expect(s.metrics.fault_precision.mean).toBeCloseTo(0.5, 12);
  });

  it('heads the breakdown with precision pooled over claimed pairs: 1 when no claim is wrong', () => {
    expect(s.faults_pooled.precision).toBe(1);
    expect(s.faults_pooled.fp).toBe(0);
    const tp = Object.values(s.codes).reduce((a, c) => a + c.tp, 0);
    const fn = Object.values(s.codes).reduce((a, c) => a + c.fn, 0);
    expect(s.faults_pooled.tp).toBe(tp);
    expect(s.faults_pooled.recall).toBeCloseTo(tp / (tp + fn), 12);
    expect(s.faults_pooled.recall!).toBeLessThan(1);
  });

  it('the table says which precision is which', () => {
    const text = renderSummary(s);
    expect(text).toMatch(/all codes, pooled +│ +1\.000/);
    expect(text).toContain('pooled over all claimed and true');
    expect(text).toContain('0 for a reply that claims nothing');
  });

  it('counts unknown codes as false claims in the pooled precision', () => {
    const r = makeRecord(SMALL_CONFIG, 0, 0, 'm', 'oracle');
    r.detail!.unknown_codes = 2;
    const p = summarize([r]).faults_pooled;
    expect(p.fp).toBe(2);
    expect(p.precision).toBeCloseTo(p.tp / (p.tp + 2), 12);
  });
});

describe('every interval in a summary stays in range', () => {
  it.each([1, 2, 4])('%i replies, all zero, all one, or mixed', (n) => {
    for (const choose of ['oracle', 'silent', 'blanket', 'raw-sums'] as const) {
      const s = summarize(Array.from({ length: n }, (_, i) => makeRecord(SMALL_CONFIG, i, 0, 'm', choose)));
      const bounded = [
        s.reward,
        s.reward_errors_as_zero,
        s.rewards.bas_correct,
        s.rewards.fault_audit,
        s.metrics.bas_label_accuracy,
        s.metrics.fault_precision,
        s.metrics.fault_recall,
        s.metrics.parsed,
        ...Object.values(s.labels),
      ];
      for (const e of bounded) {
        expect(e.ci95![0]).toBeGreaterThanOrEqual(0);
        expect(e.ci95![1]).toBeLessThanOrEqual(1);
      }
      expect(s.metrics.num_flagged.ci95![0]).toBeGreaterThanOrEqual(0);
      expect(s.metrics.num_flagged.method).toBe('poisson-neff');
    }
  });
});

describe('summary: why rollouts errored, and what cannot be trusted', () => {
  const err = (index: number, type: string, message: string) => ({
    ...failed(index, 0, type),
    error: { type, message },
  });

  it('lists the commonest messages per type with a count and an example; numbers do not split a message', () => {
    const s = summarize([
      err(0, 'provider', 'HTTP 400: bad temperature (parameter temperature)'),
      err(1, 'provider', 'HTTP 400: bad temperature (parameter temperature)'),
      err(2, 'network', 'connection failed (after 3 attempts)'),
      err(3, 'network', 'connection failed (after 4 attempts)'),
      err(4, 'network', 'socket hang up'),
      done(5, 0, { bas: 1, audit: 1 }),
    ]);
    expect(s.errors).toEqual([
      {
        type: 'network',
        count: 3,
        messages: [
          { count: 2, example: 'connection failed (after 3 attempts)' },
          { count: 1, example: 'socket hang up' },
        ],
        other: 0,
      },
      {
        type: 'provider',
        count: 2,
        messages: [{ count: 2, example: 'HTTP 400: bad temperature (parameter temperature)' }],
        other: 0,
      },
    ]);
    const text = renderSummary(s);
    expect(text).toContain('provider: 2');
    expect(text).toContain('2  HTTP 400: bad temperature (parameter temperature)');
  });

  it('error types such as constructor, toString and __proto__ are counted like any other', () => {
    const s = summarize([
      err(0, 'constructor', 'a'),
      err(1, 'toString', 'b'),
      err(2, '__proto__', 'c'),
      err(3, 'constructor', 'd'),
    ]);
    expect(s.counts.errors_by_type.constructor).toBe(2);
    expect(s.counts.errors_by_type.toString).toBe(1);
    expect(Object.entries(s.counts.errors_by_type).sort()).toEqual([
      ['__proto__', 1],
      ['constructor', 2],
      ['toString', 1],
    ]);
    const text = renderSummary(s);
    expect(text).not.toMatch(/NaN|native code/);
    expect(JSON.parse(JSON.stringify(s)).counts.errors_by_type).toEqual({
      constructor: 2,
      toString: 1,
      ['__proto__']: 1,
    });
  });

  it('ignores negative, fractional and absurd token counts with a note, so no cost goes negative', () => {
    const base = done(0, 0, { bas: 1, audit: 1 });
    const s = summarize([
      { ...base, usage: { prompt_tokens: -5000, completion_tokens: 2.5, total_tokens: 1e12 } },
      {
        ...done(1, 0, { bas: 1, audit: 1 }),
        usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30, reasoning_tokens: 15 },
      },
    ]);
    expect(s.tokens).toMatchObject({ prompt: 10, completion: 20, total: 30, reasoning: 15, ignored: 3 });
    expect(renderSummary(s)).toContain('3 token counts were negative, fractional or absurd');
  });

  // Issue 36: the usage table said "total tokens 0" beneath 13,513 prompt tokens.
  it('a reply whose completion count is absurd: the total counts what is known, as a lower bound, saying why', () => {
    const s = summarize([
      {
        ...done(0, 0, { bas: 1, audit: 1 }),
        usage: { prompt_tokens: 13_513, completion_tokens: 1e15, total_tokens: 1e15 },
      },
    ]);
    expect(s.tokens).toMatchObject({ prompt: 13_513, completion: 0, total: 13_513, ignored: 2 });
    const text = renderSummary(s);
    expect(text).toMatch(/total tokens, at least +│ +13,513/);
    expect(text).toMatch(/not counted: 2 token counts left out \(negative, fractional or absurd\)/);
  });

  it('counts replies cut by the token limit', () => {
    const s = summarize([
      { ...done(0, 0, { bas: 0, audit: 0 }), finish_reason: 'length' },
      done(1, 0, { bas: 1, audit: 1 }),
    ]);
    expect(s.truncated).toBe(1);
    expect(renderSummary(s)).toContain('cut by the token limit');
  });

  it('control characters in a message never reach the table', () => {
    const s = summarize([err(0, 'provider', 'bad \u001b]0;title\u0007 thing')]);
    expect(renderSummary(s)).not.toContain('\u001b');
    // The whole sequence goes, not only its ESC: no `]0;title` left as text (and the spaces either side become one).
    expect(s.errors[0]!.messages[0]!.example).toBe('bad thing');
  });
});

describe('the latencies', () => {
  /** The summary's latency figures for these latencies, one completed rollout each. */
  const latencyOf = (ms: number[]) => {
    const b = new SummaryBuilder();
    const base = done(0, 0, { bas: 1, audit: 1 });
    ms.forEach((x, i) => b.add({ ...base, index: i, latency_ms: x }));
    return b.result().latency_ms;
  };
  /** The same figures computed from the latencies directly (a -0 counts as 0). */
  const expected = (ms: number[]) => {
    const sorted = Float64Array.from(ms, (x) => (x === 0 ? 0 : x)).sort();
    return {
      n: ms.length,
      mean: ms.length ? sorted.reduce((a, b) => a + b, 0) / ms.length : null,
      p50: percentileSorted(sorted, 0.5),
      p95: percentileSorted(sorted, 0.95),
    };
  };

  it('are summarised exactly, whole milliseconds (kept 4 bytes each) or any other number (8)', () => {
    const ms = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    const other = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }),
      fc.constant(2 ** 32),
      fc.constant(-1),
      fc.constant(-0),
    );
    fc.assert(
      fc.property(
        fc.array(ms, { maxLength: 3000 }),
        fc.array(fc.oneof(ms, other), { maxLength: 50 }),
        (whole, mixed) => {
          // The column grows past its first 1024 places, and widens when a number is not whole.
          const all = [...whole, ...mixed];
          expect(latencyOf(all)).toEqual(expected(all));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('hold -0 as 0, before and after the column widens (a random case once found it)', () => {
    for (const ms of [[-0, 0.5, -0], [-0], [3, -0, 2 ** 32, -0]]) expect(latencyOf(ms)).toEqual(expected(ms));
  });
});

describe('where a wrong BAS comes from', () => {
  const withSplit = (
    index: number,
    bas: 0 | 1,
    consistent: 0 | 1,
    cause: 'audit' | 'arithmetic' | 'both' | null,
    net: 'audit' | 'arithmetic' | 'both' | null,
  ) => {
    const r = done(index, 0, { bas, audit: 0.5 });
    r.detail!.consistency = {
      bas_consistent: consistent,
      bas_error: cause,
      labels: { G1: null, '1A': null, '1B': null, net },
    };
    return r;
  };
  const s = summarize([
    withSplit(0, 1, 1, null, null),
    withSplit(1, 0, 1, 'audit', 'audit'),
    withSplit(2, 0, 0, 'arithmetic', 'arithmetic'),
    withSplit(3, 0, 0, 'both', 'audit'),
    withSplit(4, 1, 0, null, null),
    // Written by bas 0.4: no split, so left out of it (but not out of the rewards).
    done(5, 0, { bas: 0, audit: 0 }),
    failed(6, 0, 'timeout'),
  ]);

  it('counts only the records that hold the split, and each wrong BAS and label by cause', () => {
    expect(s.consistency.n).toBe(5);
    expect(s.consistency.bas_consistent.mean).toBeCloseTo(2 / 5, 12);
    expect(s.consistency.bas_consistent.method).toBe('wilson');
    expect(s.consistency.bas_errors).toEqual({ audit: 1, arithmetic: 1, both: 1 });
    expect(s.consistency.labels.net).toEqual({ audit: 2, arithmetic: 1, both: 0 });
    expect(s.consistency.labels.G1).toEqual({ audit: 0, arithmetic: 0, both: 0 });
    expect(s.rewards.bas_correct.n).toBe(6);
  });

  it('shows it in the text summary, and not at all for a run without it', () => {
    const text = renderSummary(s);
    expect(text).toContain('BAS as its own faults imply: 0.400');
    expect(text).toMatch(/BAS \(any label\) +│ +1 \(33%\) │ +1 \(33%\) │ +1 \(33%\) │ +3 │/);
    expect(renderSummary(summarize([done(0, 0, { bas: 0, audit: 0 })]))).not.toContain('own faults');
  });
});
