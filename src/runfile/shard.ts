/**
 * Shards: `--shard I/N` runs the I-th of N disjoint slices of a run's task indices, so a
 * large run can be spread over machines (a CI matrix, a job array) and joined with
 * `bas merge`. Slices are strided (task i goes to shard i mod N + 1), so every shard gets a
 * like mix of tasks and any shard's results alone are a fair sample of the run.
 */
import { ConfigError } from '../errors/index.js';

export interface Shard {
  /** 1-based: the first shard is 1/N. */
  index: number;
  count: number;
}

/** Most shards a run may be split into. */
const MAX_SHARDS = 100_000;

function isShard(index: unknown, count: unknown): boolean {
  return (
    Number.isSafeInteger(index) &&
    Number.isSafeInteger(count) &&
    (count as number) >= 1 &&
    (count as number) <= MAX_SHARDS &&
    (index as number) >= 1 &&
    (index as number) <= (count as number)
  );
}

/** Reads "I/N" (1 <= I <= N); `name` names the flag or key in the error. */
export function parseShard(value: unknown, name: string): Shard {
  const m = typeof value === 'string' ? /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value) : null;
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!isShard(index, count)) {
    throw new ConfigError(
      `${name} must be I/N with 1 <= I <= N <= ${MAX_SHARDS} (e.g. 2/4 for the second of four), got ${JSON.stringify(value)}`,
    );
  }
  return { index, count };
}

/**
 * The `shard` of a run.json: null for a whole run; `undefined` when the value is there but is
 * no shard (the caller says how bad that is), so a hand-edited `{"index": 1, "count": 0}`
 * can never reach the slicing arithmetic.
 */
export function readShard(value: unknown): Shard | null | undefined {
  if (value === null || value === undefined) return null;
  const s = value as Partial<Shard>;
  return typeof value === 'object' && isShard(s.index, s.count) ? { index: s.index!, count: s.count! } : undefined;
}

/** Whether task `i` belongs to `shard` (every task belongs to no shard at all). */
export function inShard(i: number, shard: Shard | null): boolean {
  return shard === null || i % shard.count === shard.index - 1;
}

/** How many of the tasks 0..n-1 a shard holds. */
export function shardSize(n: number, shard: Shard | null): number {
  if (shard === null) return n;
  return n >= shard.index ? Math.floor((n - shard.index) / shard.count) + 1 : 0;
}

/** "2/4", for messages (folder names use "shard2of4", since a slash cannot go in one). */
export function shardLabel(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}
