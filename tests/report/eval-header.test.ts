/**
 * The eval header prints a model name and a folder that may come from a hand-edited run.json
 * (on --resume) or a pasted flag: no control sequence in them may reach the terminal.
 */
import { describe, expect, it } from 'vitest';
import { renderEvalCost, renderEvalHeader } from '../../src/report/eval-header.js';
import { durationText } from '../../src/report/provenance.js';
import { costOf } from '../../src/report/cost.js';
import { summarize } from '../support/summarize.js';
import { done, failed } from './fixtures.js';
import type { RunInfo } from '../../src/runfile/store.js';

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe('renderEvalHeader', () => {
  it('shows a hostile model name and folder without their control sequences', () => {
    const info = {
      model: 'evil\x1b]0;pwned\x07\x1b[2J\u009b31m-model',
      base_url: 'http://127.0.0.1:9/v1',
      task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
      n: 2,
      rollouts: 1,
      pace: { adaptive: true, max: 8, lowest: 8, final: 8, changes: [], dropped: 0 },
    } as unknown as RunInfo;
    const text = renderEvalHeader({
      dir: 'runs/x\x1b[31m',
      info,
      elapsedS: 1,
      ranHere: 2,
    });
    expect(text).toContain('evil');
    expect(text).toContain('-model');
    expect(text).not.toMatch(CONTROL);
  });
});

describe('the time line', () => {
  const info = {
    model: 'm',
    base_url: null,
    task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
    n: 20,
    rollouts: 1,
  } as unknown as RunInfo;
  const timeLine = (elapsedS: number, ranHere: number) =>
    renderEvalHeader({ dir: 'runs/x', info, elapsedS, ranHere })
      .split('\n')
      .find((l) => l.startsWith('time:'));

  it('gives a short run in milliseconds, with a rate to as many figures as the time supports', () => {
    expect(timeLine(0.034, 20)).toBe('time:     34 ms for 20 rollouts (588 rollouts/s)');
    expect(timeLine(0.9, 1449)).toBe('time:     900 ms for 1449 rollouts (1,610 rollouts/s)');
  });

  it('keeps seconds with one decimal from a second up, and small rates to three figures', () => {
    expect(timeLine(8.5, 20)).toBe('time:     8.5 s for 20 rollouts (2.35 rollouts/s)');
    expect(timeLine(1, 20)).toBe('time:     1.0 s for 20 rollouts (20.0 rollouts/s)');
    expect(timeLine(0.9996, 20)).toBe('time:     1.0 s for 20 rollouts (20.0 rollouts/s)');
  });

  it('shows no rate where the time is not measurable or nothing ran, and says "1 rollout"', () => {
    expect(timeLine(0.0002, 20)).toBe('time:     under 1 ms for 20 rollouts');
    expect(timeLine(0, 0)).toBe('time:     under 1 ms for 0 rollouts');
    expect(timeLine(2, 1)).toBe('time:     2.0 s for 1 rollout (0.50 rollouts/s)');
  });
});

describe('durationText', () => {
  it('never writes a nonzero time as 0.0 s', () => {
    expect(durationText(0.034)).toBe('34 ms');
    expect(durationText(0.0004)).toBe('under 1 ms');
    expect(durationText(42)).toBe('42.0 s');
    expect(durationText(725)).toBe('12 min 5 s');
    // rounded before it is split (issue 36: "10 min 60 s")
    expect(durationText(659.6)).toBe('11 min 0 s');
    expect(durationText(59.97)).toBe('1 min 0 s');
    expect(durationText(3599.7)).toBe('1 h 0 min');
    expect(durationText(7199.9)).toBe('2 h 0 min');
    expect(durationText(null)).toBe('unknown');
  });
});

describe('renderEvalCost', () => {
  const usage = (prompt: number, completion: number) => ({
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  });

  it("shows the errored rollouts' part of the cost apart", () => {
    const s = summarize([
      { ...done(0, 0, { bas: 1, audit: 1 }), usage: usage(1_000_000, 100_000) },
      { ...failed(1, 0, 'malformed'), usage: usage(1_000_000, 400_000) },
    ]);
    const text = renderEvalCost(s, { in: 1, out: 10 });
    expect(text).toMatch(/total +│ +\$7\.0000/);
    expect(text).toMatch(/of which bought nothing \(1 errored rollout, 1,400,000 tokens\) +│ +\$5\.0000/);
    const c = costOf(s, {}, { in: 1, out: 10 });
    expect(c.unscored_usd).toBeCloseTo(5, 12);
  });

  it('adds no such row when every token bought a score, and no table without prices', () => {
    const s = summarize([{ ...done(0, 0, { bas: 1, audit: 1 }), usage: usage(10, 10) }, failed(1, 0, 'timeout')]);
    expect(renderEvalCost(s, { in: 1, out: 1 })).not.toMatch(/bought nothing/);
    expect(renderEvalCost(s, { in: null, out: 1 })).toBe('');
    expect(costOf(s, {}, { in: null, out: 1 }).unscored_usd).toBeNull();
  });
});

describe('the rate limits line', () => {
  const header = (pace: Record<string, unknown>) =>
    renderEvalHeader({
      dir: 'runs/x',
      info: {
        model: 'm',
        base_url: 'http://127.0.0.1:9/v1',
        task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
        n: 40,
        rollouts: 1,
        pace: { adaptive: true, max: 8, lowest: 1, final: 2, changes: [], dropped: 0, ...pace },
      } as unknown as RunInfo,
      elapsedS: 7.5,
      ranHere: 40,
    });

  it('says how many requests were refused and the rate learned', () => {
    expect(header({ rate_limited: 5, rate_rps: 5.1234, lowest_rate_rps: 4.6 })).toContain(
      'limits:   5 requests refused (HTTP 429) · paced at 5.12 requests/s at the end',
    );
    expect(header({ rate_limited: 1, rate_rps: null })).toContain('limits:   1 request refused (HTTP 429)\n');
  });

  it('is not there when no limit was met, or the run predates the record', () => {
    expect(header({ rate_limited: 0, rate_rps: null })).not.toContain('limits:');
    expect(header({})).not.toContain('limits:');
  });
});
