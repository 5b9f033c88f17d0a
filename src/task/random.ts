/**
 * Seeded randomness for the generator. Each task gets its own generator, derived from
 * `(seed, index)` alone, so task 7 is the same whatever else a run asks for.
 */
import { xoroshiro128plusFromState } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/** A 32-bit avalanche (the murmur3 finaliser): nearby inputs give unrelated outputs. */
function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Splits a safe integer into its high and low 32-bit words. */
function words(value: number): [number, number] {
  return [Math.floor(value / 0x1_0000_0000) >>> 0, value >>> 0];
}

/** A small façade over a pure-rand generator with the draws the generator needs. */
export class Rng {
  private readonly gen: RandomGenerator;

  private constructor(gen: RandomGenerator) {
    this.gen = gen;
  }

  /** The generator of task `index` under `seed`; both are non-negative safe integers. */
  static forTask(seed: number, index: number): Rng {
    const input = [...words(seed), ...words(index)];
    // Each state word hashes all four input words, with its own salt: xoroshiro128+'s first
    // output is the sum of two state words, so a word that ignored the low words of the seed
    // and the index would make every task's first draw the same.
    const state = [0x9e3779b9, 0x7f4a7c15, 0x94d049bb, 0xbf58476d].map((salt) => {
      let h = salt;
      for (const w of input) h = mix32(h ^ w);
      return h;
    });
    state[3]! |= 1; // never all zero
    return new Rng(xoroshiro128plusFromState(state));
  }

  /**
   * An integer in [from, to], both included. Ranges up to 2^32 use one draw scaled by
   * multiplication (bias below range / 2^32, far under anything a ledger can show); wider
   * ranges combine two draws. pure-rand's own uniformInt is exact but several times slower,
   * and the generator's budget is a few microseconds per row.
   */
  int(from: number, to: number): number {
    const range = to - from + 1;
    if (range <= 0x1_0000_0000) return from + Math.floor(((this.gen.next() >>> 0) * range) / 0x1_0000_0000);
    const high = this.gen.next() >>> 0;
    const low = this.gen.next() >>> 0;
    return from + ((high * 0x1_0000_0000 + low) % range);
  }

  /** A float in [0, 1). */
  float(): number {
    return (this.gen.next() >>> 0) / 0x1_0000_0000;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }
}
