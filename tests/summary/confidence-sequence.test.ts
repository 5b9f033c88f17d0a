import { describe, expect, it } from 'vitest';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { ConfidenceSequence, PairedConfidenceSequence, verdictOf } from '../../src/summary/confidence-sequence.js';
import { FixedMeanTest } from '../../src/summary/fixed-mean-test.js';
import { sequentialStop } from '../support/sequential-stop.js';
import { wilsonInterval } from '../../src/summary/stats.js';

/**
 * Draws from a seeded xoroshiro128+ (pure-rand), two 16-bit uniforms per 32-bit output, so
 * distributions are given by thresholds out of 65,536 and their means are exact.
 */
class Draws {
  private readonly gen;
  private spare = -1;
  constructor(seed: number) {
    this.gen = xoroshiro128plus(seed);
  }
  u16(): number {
    if (this.spare >= 0) {
      const u = this.spare;
      this.spare = -1;
      return u;
    }
    const w = this.gen.next() >>> 0;
    this.spare = w & 0xffff;
    return w >>> 16;
  }
}

/** A discrete distribution: values with cumulative thresholds out of 65,536. */
interface Discrete {
  name: string;
  values: number[];
  upTo: number[];
  binary: boolean;
}

function meanOf(d: Discrete): number {
  let m = 0;
  let below = 0;
  d.values.forEach((v, i) => {
    m += (v * (d.upTo[i]! - below)) / 65536;
    below = d.upTo[i]!;
  });
  return m;
}

function sdOf(d: Discrete): number {
  const m = meanOf(d);
  let v = 0;
  let below = 0;
  d.values.forEach((x, i) => {
    v += ((x - m) ** 2 * (d.upTo[i]! - below)) / 65536;
    below = d.upTo[i]!;
  });
  return Math.sqrt(v);
}

function draw(d: Discrete, r: Draws): number {
  const u = r.u16();
  for (let i = 0; i < d.upTo.length; i++) if (u < d.upTo[i]!) return d.values[i]!;
  return d.values[d.values.length - 1]!;
}

const BERNOULLI_01: Discrete = { name: 'Bernoulli(0.1)', values: [1, 0], upTo: [6554, 65536], binary: true };
const BERNOULLI_05: Discrete = { name: 'Bernoulli(0.5)', values: [1, 0], upTo: [32768, 65536], binary: true };
/** Shaped like the reward: 0 (40%), 0.4 (20%), 0.6 (15%), 1 (25%). */
const FOUR_POINT: Discrete = {
  name: 'four-point',
  values: [0, 0.4, 0.6, 1],
  upTo: [26214, 39322, 49152, 65536],
  binary: false,
};
/** Paired differences of independent Bernoulli(0.7) and Bernoulli(0.3), mapped by (a - b + 1)/2. */
const PAIRED_07_03: Discrete = {
  name: 'paired 0.7 vs 0.3',
  values: [0, 0.5, 1],
  upTo: [Math.round(0.09 * 65536), Math.round(0.51 * 65536), 65536],
  binary: false,
};

/** The grid of bets, computed here independently of the module, for the hand-worked cases. */
const BETS = Array.from({ length: 30 }, (_, k) => 1.5 * (0.02 / 1.5) ** (k / 29));

/** The mixture wealth against m on the "mean above m" side, straight from the definition. */
function wealthAbove(xs: number[], m: number): number {
  let total = 0;
  for (const lambda of BETS) {
    const b = Math.min(lambda, 0.8 / m);
    total += xs.reduce((w, x) => w * (1 + b * (x - m)), 1);
  }
  return total / BETS.length;
}

describe('hand-worked cases', () => {
  it('is all of [0, 1] before any score, and for a few scores', () => {
    const cs = new ConfidenceSequence();
    expect(cs.interval()).toEqual({ n: 0, mean: null, low: 0, high: 1, halfWidth: 0.5 });
    for (let i = 0; i < 5; i++) cs.push(1);
    // five 1s: the largest bet's wealth is at most 2.5^5 / 30 ≈ 3.3 < 40 at m = 0
    expect(cs.interval()).toMatchObject({ low: 0, high: 1 });
  });

  it('puts the lower end of n 1s where the mixture wealth reaches 2/alpha = 40', () => {
    for (const [n, expected] of [
      [10, 0.42008],
      [30, 0.79943],
    ] as const) {
      const cs = new ConfidenceSequence();
      const xs = Array.from({ length: n }, () => 1);
      for (const x of xs) cs.push(x);
      const { low, high, mean } = cs.interval();
      expect(mean).toBe(1);
      expect(high).toBe(1); // betting that the mean is below m can only lose on 1s
      expect(low).toBeCloseTo(expected, 5);
      expect(wealthAbove(xs, low)).toBeGreaterThanOrEqual(40); // the end is left out (rounded outward)
      expect(wealthAbove(xs, low)).toBeCloseTo(40, 4);
      expect(wealthAbove(xs, low + 1e-6)).toBeLessThan(40);
    }
  });

  it('mirrors: scores 1 - x give the interval [1 - high, 1 - low]', () => {
    const xs = [0, 1, 1, 0, 1, 1, 1, 0.4, 1, 1, 0.6, 0.5, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0.6, 1, 1, 1, 1, 1, 1, 1];
    const a = new ConfidenceSequence();
    const b = new ConfidenceSequence();
    for (const x of xs) {
      a.push(x);
      b.push(1 - x);
    }
    const ia = a.interval();
    const ib = b.interval();
    expect(ia.low).toBeGreaterThan(0);
    expect(ib.high).toBeLessThan(1);
    expect(ib.low).toBeCloseTo(1 - ia.high, 8);
    expect(ib.high).toBeCloseTo(1 - ia.low, 8);
  });

  it('depends on which scores were seen, not their order', () => {
    const r = new Draws(11);
    const xs = Array.from({ length: 300 }, () => draw(FOUR_POINT, r));
    const forward = new ConfidenceSequence();
    const backward = new ConfidenceSequence();
    for (const x of xs) forward.push(x);
    for (const x of [...xs].reverse()) backward.push(x);
    const f = forward.interval();
    const b = backward.interval();
    expect(b.low).toBeCloseTo(f.low, 8);
    expect(b.high).toBeCloseTo(f.high, 8);
  });

  it('maps paired differences to [0, 1] and back', () => {
    const r = new Draws(5);
    const paired = new PairedConfidenceSequence();
    const plain = new ConfidenceSequence();
    for (let i = 0; i < 200; i++) {
      const a = draw(BERNOULLI_05, r);
      const b = draw(FOUR_POINT, r);
      paired.push(a, b);
      plain.push((a - b + 1) / 2);
    }
    const p = paired.interval();
    const q = plain.interval();
    expect(p.low).toBeCloseTo(2 * q.low - 1, 10);
    expect(p.high).toBeCloseTo(2 * q.high - 1, 10);
    expect(p.halfWidth).toBeCloseTo(2 * q.halfWidth, 10);
    expect(p.n).toBe(200);
  });

  it('gives verdicts: excluding 0 first, then within the margin', () => {
    expect(verdictOf(0.01, 0.2, 0.05)).toBe('better');
    expect(verdictOf(-0.3, -0.01, 0.05)).toBe('worse');
    expect(verdictOf(-0.04, 0.03, 0.05)).toBe('equivalent');
    expect(verdictOf(-0.04, 0.06, 0.05)).toBe('undecided');
    expect(verdictOf(-0.04, 0.03)).toBe('undecided');
  });

  it('refuses scores outside [0, 1] and a bad alpha', () => {
    expect(() => new ConfidenceSequence().push(1.2)).toThrow(/\[0, 1\]/);
    expect(() => new ConfidenceSequence().push(Number.NaN)).toThrow(/\[0, 1\]/);
    expect(() => new ConfidenceSequence({ alpha: 0 })).toThrow(/alpha/);
    expect(() => new FixedMeanTest(-0.1)).toThrow(/\[0, 1\]/);
  });

  it('FixedMeanTest answers as ConfidenceSequence.contains after every score', () => {
    const r = new Draws(7);
    for (const m of [0, 0.1, 0.3, 0.45, 0.5, 0.62, 0.9, 1]) {
      const cs = new ConfidenceSequence();
      const test = new FixedMeanTest(m);
      for (let i = 0; i < 400; i++) {
        const x = draw(i % 2 ? FOUR_POINT : BERNOULLI_01, r);
        cs.push(x);
        const inside = test.push(x);
        expect(inside).toBe(cs.contains(m));
        if (!inside) {
          const { low, high } = cs.interval();
          expect(test.excluded).toBe(m < low ? 'above' : 'below');
          expect(m < low || m > high).toBe(true);
        }
      }
    }
  });
});

/** Wilson (0/1 scores) or Wilson on the effective sample size (other scores), as bas shows at a fixed n. */
function fixedInterval(sum: number, squares: number, n: number, binary: boolean): [number, number] {
  if (binary) return wilsonInterval(sum, n)!;
  const m = sum / n;
  const variance = (squares - n * m * m) / (n - 1);
  const se2 = variance / n;
  const neff = se2 > 0 && m > 0 && m < 1 ? Math.min((m * (1 - m)) / se2, n * n) : n;
  return wilsonInterval(m * neff, neff)!;
}

describe('validity: the chance of ever excluding the true mean before 10,000 tasks', () => {
  const STREAMS = 2000;
  const HORIZON = 10_000;
  /** The naive rule starts looking at 30 tasks, as a careful user of a fixed-n interval would. */
  const NAIVE_FROM = 30;

  for (const [d, seed] of [
    [BERNOULLI_01, 101],
    [BERNOULLI_05, 202],
    [FOUR_POINT, 303],
  ] as const) {
    it(`is at most 5% for ${d.name}, where peeking at the fixed-n interval is not`, () => {
      const mu = meanOf(d);
      const r = new Draws(seed);
      let sequenceMisses = 0;
      let naiveMisses = 0;
      for (let s = 0; s < STREAMS; s++) {
        const test = new FixedMeanTest(mu);
        let sequenceMissed = false;
        let naiveMissed = false;
        let sum = 0;
        let squares = 0;
        for (let n = 1; n <= HORIZON && !(sequenceMissed && naiveMissed); n++) {
          const x = draw(d, r);
          if (!sequenceMissed && !test.push(x)) sequenceMissed = true;
          sum += x;
          squares += x * x;
          if (!naiveMissed && n >= NAIVE_FROM) {
            const [lo, hi] = fixedInterval(sum, squares, n, d.binary);
            if (mu < lo || mu > hi) naiveMissed = true;
          }
        }
        if (sequenceMissed) sequenceMisses++;
        if (naiveMissed) naiveMisses++;
      }
      const sequenceRate = sequenceMisses / STREAMS;
      const naiveRate = naiveMisses / STREAMS;
      // the figures docs/statistics.md quotes
      console.log(`${d.name}: confidence sequence ${sequenceRate}, naive peeking ${naiveRate}`);
      expect(sequenceRate).toBeLessThanOrEqual(0.05);
      expect(naiveRate).toBeGreaterThan(0.2);
    });
  }
});

describe('width: within 1.7 times the fixed-n CLT half-width at every n from 100 to 10,000', () => {
  for (const [d, seed, from] of [
    [BERNOULLI_05, 1, 100],
    [FOUR_POINT, 2, 100],
    [PAIRED_07_03, 3, 100],
    [BERNOULLI_01, 4, 400],
  ] as const) {
    it(`holds for ${d.name} from n = ${from}`, () => {
      const r = new Draws(seed);
      const cs = new ConfidenceSequence();
      let sum = 0;
      let squares = 0;
      let worst = 0;
      for (let n = 1; n <= 10_000; n++) {
        const x = draw(d, r);
        cs.push(x);
        sum += x;
        squares += x * x;
        if (n < from) continue;
        const m = sum / n;
        const clt = 1.959964 * Math.sqrt((squares - n * m * m) / (n - 1) / n);
        worst = Math.max(worst, cs.interval().halfWidth / clt);
      }
      console.log(`${d.name}: worst half-width ratio ${worst.toFixed(3)} (n ${from} to 10,000)`);
      expect(worst).toBeLessThanOrEqual(1.7);
      expect(worst).toBeGreaterThan(1.3); // a time-uniform interval costs width: it cannot match the CLT
    });
  }
});

describe('decisions: 0.7 against 0.3', () => {
  function median(xs: number[]): number {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)]!;
  }

  it('is decided in a median of at most 150 tasks, paired, whatever -n', () => {
    const r = new Draws(77);
    const independent: number[] = [];
    const correlated: number[] = [];
    for (let s = 0; s < 400; s++) {
      // independent outcomes per task, and outcomes sharing a task difficulty
      const z1: number[] = [];
      const z2: number[] = [];
      for (let i = 0; i < 1000; i++) {
        z1.push(((r.u16() < 45875 ? 1 : 0) - (r.u16() < 19661 ? 1 : 0) + 1) / 2);
        const easy = r.u16() < 32768;
        const a = r.u16() < (easy ? 0.9 : 0.5) * 65536 ? 1 : 0;
        const b = r.u16() < (easy ? 0.5 : 0.1) * 65536 ? 1 : 0;
        z2.push((a - b + 1) / 2);
      }
      const first = sequentialStop(z1, { kind: 'decided', margin: 0 });
      const second = sequentialStop(z2, { kind: 'decided', margin: 0 });
      expect(first.verdict).toBe('better');
      expect(second.verdict).toBe('better');
      independent.push(first.n);
      correlated.push(second.n);
    }
    console.log(
      `0.7 vs 0.3 paired: median ${median(independent)} (independent), ${median(correlated)} (shared difficulty)`,
    );
    expect(median(independent)).toBeLessThanOrEqual(150);
    expect(median(correlated)).toBeLessThanOrEqual(150);
  });

  it('is decided unpaired too: a 0.7 run leaves 0.3 out in a median of at most 150 tasks', () => {
    const r = new Draws(78);
    const taken: number[] = [];
    for (let s = 0; s < 400; s++) {
      const test = new FixedMeanTest(0.3);
      let n = 0;
      while (test.push(r.u16() < 45875 ? 1 : 0)) n++;
      expect(test.excluded).toBe('above');
      taken.push(n + 1);
    }
    console.log(`0.7 against a fixed 0.3: median ${median(taken)}`);
    expect(median(taken)).toBeLessThanOrEqual(150);
  });

  it('stops on precision when the half-width reaches the target, and calls a tie equivalent', () => {
    const r = new Draws(9);
    const xs = Array.from({ length: 5000 }, () => draw(FOUR_POINT, r));
    const stop = sequentialStop(xs, { kind: 'precision', width: 0.05 });
    expect(stop.stopped).toBe(true);
    const cs = new ConfidenceSequence();
    for (let i = 0; i < stop.n; i++) cs.push(xs[i]!);
    expect(cs.interval().halfWidth).toBeLessThanOrEqual(0.05);
    const before = new ConfidenceSequence();
    for (let i = 0; i < stop.n - 1; i++) before.push(xs[i]!);
    expect(before.interval().halfWidth).toBeGreaterThan(0.05);

    const ties = Array.from({ length: 5000 }, () => (draw(BERNOULLI_05, r) - draw(BERNOULLI_05, r) + 1) / 2);
    const tie = sequentialStop(ties, { kind: 'decided', margin: 0.1 });
    expect(tie.verdict).toBe('equivalent');
    const short = sequentialStop(ties.slice(0, 50), { kind: 'decided', margin: 0.1 });
    expect(short).toEqual({ n: 50, stopped: false, verdict: 'undecided' });
  });
});
