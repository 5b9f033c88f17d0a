/**
 * After how many scores a sequential rule stops, run over a stream of scores in order: the
 * tests' check of the rule (`--precision`, `--until decided`) on known streams. bas itself
 * simulates the rule with FixedMeanTest (src/summary/power.ts), so this lives with the tests.
 */
import { ConfidenceSequence, type Verdict } from '../../src/summary/confidence-sequence.js';
import type { SequenceOptions } from '../../src/summary/betting.js';
import { FixedMeanTest } from '../../src/summary/fixed-mean-test.js';

/** When a sequential rule stops. */
export type StopRule =
  /** One-sample: stop when the interval's half-width is at most `width`. */
  | { kind: 'precision'; width: number }
  /** Paired differences already mapped to [0, 1] by (a - b + 1) / 2: stop when the interval of a - b excludes 0 or lies within ±margin. */
  | { kind: 'decided'; margin: number };

/** What a rule gave on a stream: how many scores it took (the stream's length if it never stopped) and why. */
export interface StopOutcome {
  n: number;
  stopped: boolean;
  verdict: Verdict | null;
}

/**
 * Runs a rule over `scores` in order (scores in [0, 1]; for `decided`, paired differences
 * mapped by (a - b + 1) / 2) and says after how many it stops. For simulating the expected
 * tasks of the sequential rule, e.g. from a pilot's scores resampled.
 */
export function sequentialStop(scores: ArrayLike<number>, rule: StopRule, options: SequenceOptions = {}): StopOutcome {
  if (rule.kind === 'precision') {
    const cs = new ConfidenceSequence(options);
    for (let i = 0; i < scores.length; i++) {
      cs.push(scores[i]!);
      if (cs.interval().halfWidth <= rule.width) return { n: i + 1, stopped: true, verdict: null };
    }
    return { n: scores.length, stopped: false, verdict: null };
  }
  // a - b > 0 exactly when the [0, 1] mean is above 1/2; within ±margin when above (1 - margin)/2 and below (1 + margin)/2
  const zero = new FixedMeanTest(0.5, options);
  const margin = Math.max(0, rule.margin);
  const lowEdge = margin > 0 ? new FixedMeanTest((1 - margin) / 2, options) : null;
  const highEdge = margin > 0 ? new FixedMeanTest((1 + margin) / 2, options) : null;
  for (let i = 0; i < scores.length; i++) {
    const x = scores[i]!;
    zero.push(x);
    if (zero.excluded !== null)
      return { n: i + 1, stopped: true, verdict: zero.excluded === 'above' ? 'better' : 'worse' };
    if (lowEdge && highEdge) {
      lowEdge.push(x);
      highEdge.push(x);
      if (lowEdge.excluded === 'above' && highEdge.excluded === 'below')
        return { n: i + 1, stopped: true, verdict: 'equivalent' };
    }
  }
  return { n: scores.length, stopped: false, verdict: 'undecided' };
}
