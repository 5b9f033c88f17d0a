/** The noise split (src/summary/noise.ts): a hand-worked case, the cost model, and a policy of known noise. */
import { describe, expect, it } from 'vitest';
import { bestRollouts, noiseSplit } from '../../src/summary/noise.js';
import { SummaryBuilder } from '../../src/summary/summary-builder.js';
import { generateTask } from '../../src/task/generate.js';
import { policyReplier, runPolicy, slipsDraw, SLIPS_RATES } from '../../src/task/policies.js';
import { scoreReply } from '../../src/task/score.js';

/** The split of rewards given per task. */
function split(tasks: number[][]) {
  let sum = 0;
  let squares = 0;
  for (const t of tasks) for (const x of t) ((sum += x), (squares += x * x));
  return noiseSplit(
    tasks.map((t) => ({ count: t.length, sum: t.reduce((a, b) => a + b, 0) })),
    sum,
    squares,
  );
}

describe('noiseSplit', () => {
  it('a hand-worked case: three tasks of two rollouts, rewards (1, 0), (1, 1), (0, 0)', () => {
    // Grand mean 1/2. Within: SSW = 1/4 + 1/4 = 1/2 over N − n = 3, MSW = 1/6.
    // Between: SSB = 2·(0 + 1/4 + 1/4) = 1 over n − 1 = 2, MSB = 1/2; k₀ = (6 − 12/6)/2 = 2,
    // so σ²_b = (1/2 − 1/6)/2 = 1/6. Data noise σ²_b·Σk²/N² = 1/6·12/36 = 1/18; prediction
    // noise σ²_w/N = 1/36; together 1/12, a third of it prediction noise.
    const s = split([
      [1, 0],
      [1, 1],
      [0, 0],
    ])!;
    expect(s.tasks).toBe(3);
    expect(s.rollouts).toBe(6);
    expect(s.within_variance).toBeCloseTo(1 / 6, 14);
    expect(s.between_variance).toBeCloseTo(1 / 6, 14);
    expect(s.data_noise).toBeCloseTo(1 / 18, 14);
    expect(s.prediction_noise).toBeCloseTo(1 / 36, 14);
    expect(s.variance_of_mean).toBeCloseTo(1 / 12, 14);
    expect(s.prediction_share).toBeCloseTo(1 / 3, 14);
    // The same 6 requests as K per task on 6/K tasks: (K·σ²_b + σ²_w)/6.
    const z = 1.959963984540054;
    expect(s.same_requests.map((r) => r.rollouts_per_task)).toEqual([1, 2, 4, 8]);
    expect(s.same_requests[0]!.half_width).toBeCloseTo(z * Math.sqrt(2 / 6 / 6), 14);
    expect(s.same_requests[1]!.half_width).toBeCloseTo(z * Math.sqrt(1 / 12), 14);
    expect(s.best_rollouts_per_task).toBe(1);
  });

  it('an unbalanced case uses k₀ (hand-worked): tasks (1, 0, 1) and (0)', () => {
    // N = 4, n = 2, Σk² = 10, k₀ = (4 − 10/4)/1 = 1.5. Means 2/3 and 0, grand mean 1/2.
    // SSW = 2/3 (the first task's) over 2: MSW = 1/3. SSB = 3·(1/6)² + 1·(1/2)² = 1/3 over 1.
    // σ²_b = max(0, (1/3 − 1/3)/1.5) = 0: no data noise is seen.
    const s = split([[1, 0, 1], [0]])!;
    expect(s.within_variance).toBeCloseTo(1 / 3, 14);
    expect(s.between_variance).toBe(0);
    expect(s.data_noise).toBe(0);
    expect(s.prediction_noise).toBeCloseTo(1 / 12, 14);
    expect(s.prediction_share).toBe(1);
  });

  it('nothing to split with one rollout per task, or one task', () => {
    expect(split([[1], [0], [1]])).toBeNull();
    expect(split([[1, 0, 1]])).toBeNull();
  });

  it('the best rollouts per task for the same cost: √(c·σ²_w/σ²_b), whole, at least 1', () => {
    expect(bestRollouts(3, 1, 0)).toBe(1); // tasks cost nothing: one rollout each
    expect(bestRollouts(3, 1, 3)).toBe(3); // √9
    expect(bestRollouts(1, 1, 100)).toBe(10);
    // √(2·3/1) = 2.449…: cost (1 + 3/K)(2 + K) is 10 at K = 2 and at K = 3: the tie goes to 2.
    expect(bestRollouts(3, 1, 2)).toBe(2);
    // √(2·5/1) = 3.16…: (1 + 5/K)(2 + K) is 13.33 at K = 3, 13.5 at K = 4.
    expect(bestRollouts(5, 1, 2)).toBe(3);
    expect(bestRollouts(0.01, 1, 1)).toBe(1);
    expect(bestRollouts(1, 0, 0)).toBe(1);
  });
});

describe('the slips policy: within-task noise of a known size', () => {
  const config = { num_transactions: 24, fault_rate: 0.25, seed: 20260826 };

  it('finds every fault and gets the sums right at its task rate (1/4 or 3/4), answering each draw anew', () => {
    const t = generateTask(config, 3);
    const text = t.prompt.map((m) => m.content).join('\n');
    const rate = slipsDraw(text, 0).rate;
    expect(SLIPS_RATES).toContain(rate);
    let right = 0;
    for (let d = 0; d < 400; d++) {
      const s = scoreReply(runPolicy('slips', t.prompt, d), t.key);
      expect(s.rewards.fault_audit).toBe(1);
      right += s.rewards.bas_correct;
      expect(s.reward).toBeCloseTo(0.4 + 0.6 * s.rewards.bas_correct, 12);
    }
    // 400 draws at rate 1/4 or 3/4: within ±0.1 by far (sd 0.022).
    expect(Math.abs(right / 400 - rate)).toBeLessThan(0.1);
    // The replier numbers its replies to one prompt: the k-th reply is draw k.
    const reply = policyReplier('slips');
    for (let d = 0; d < 5; d++) expect(reply(t.prompt)).toBe(runPolicy('slips', t.prompt, d));
  });

  it('its split comes out as designed: σ²_w = 0.36·3/16, σ²_b = 0.36·1/16', () => {
    // Reward 0.4 + 0.6·bas with bas ~ Bernoulli(p_i), p_i 1/4 or 3/4 on half the tasks each:
    // within a task 0.36·p(1−p) = 0.0675 (alike for both rates); between tasks the means
    // 0.55 and 0.85 have variance 0.0225. 400 tasks × 8 rollouts, fixed seed: both within
    // about three standard errors (0.0017 and 0.0017 + the rates' own split).
    const b = new SummaryBuilder();
    const reply = policyReplier('slips');
    for (let i = 0; i < 400; i++) {
      const t = generateTask(config, i);
      for (let r = 0; r < 8; r++) {
        const s = scoreReply(reply(t.prompt), t.key);
        b.add({ index: i, rollout: r, reward: s.reward, rewards: s.rewards, metrics: s.metrics, error: null });
      }
    }
    const noise = b.result().noise!;
    expect(noise.tasks).toBe(400);
    expect(noise.rollouts).toBe(3200);
    expect(noise.within_variance).toBeGreaterThan(0.0675 - 0.006);
    expect(noise.within_variance).toBeLessThan(0.0675 + 0.006);
    expect(noise.between_variance).toBeGreaterThan(0.0225 - 0.006);
    expect(noise.between_variance).toBeLessThan(0.0225 + 0.006);
    // Prediction noise σ²_w/N against data noise σ²_b/n: 0.0675/8 vs 0.0225, about 27%.
    expect(noise.prediction_share).toBeGreaterThan(0.2);
    expect(noise.prediction_share).toBeLessThan(0.34);
    expect(noise.best_rollouts_per_task).toBe(1);
  });
});
