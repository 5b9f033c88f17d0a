/**
 * What a run sets out to do and what its folder already holds: run.json for the settings, the
 * records read back on a resume (feeding the summary), and which (index, rollout) pairs still
 * need running: those with no line, or whose last line is an error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SummaryBuilder, type Summary } from '../summary/summary.js';
import type { Warn } from '../runfile/read.js';
import { pairKey, splitPairKey, type PairKey, type RolloutRecord } from '../runfile/record.js';
import { modelFolderPart, RESULTS_FILE } from '../runfile/files.js';
import { makeRunInfo, type RunInfo } from '../runfile/run-info.js';
import { foldWinningRecords, Winners, type RunBounds } from '../runfile/winners.js';
import { inShard, shardSize, type Shard } from '../settings/shard.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { PROMPT_VERSION } from '../task/prompt.js';

/** `runs/<UTC time>-<model>`, the model made safe for a folder name. */
export function defaultOutputDir(model: string, shard: Shard | null = null, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  // Cut to 100 characters: a folder name may not pass 255 bytes, and model ids are unbounded.
  const safe = modelFolderPart(model, 100) + (shard ? `-shard${shard.index}of${shard.count}` : '');
  let dir = join('runs', `${stamp}-${safe}`);
  for (let k = 2; existsSync(dir); k++) dir = join('runs', `${stamp}-${safe}-${k}`);
  return dir;
}

/** run.json of a new session: the plan's record (its settings and endpoint), running from `startedAt`. */
export function runInfoFor(record: Record<string, unknown>, startedAt: Date): RunInfo {
  const declared = record as Pick<
    RunInfo,
    | 'model'
    | 'task'
    | 'n'
    | 'rollouts'
    | 'sampling'
    | 'concurrency'
    | 'timeout_s'
    | 'request_timeout_s'
    | 'max_retries'
    | 'prices'
    | 'api_key_var'
    | 'shard'
    | 'base_url'
    | 'provider'
  >;
  return makeRunInfo({
    generator: GENERATOR_VERSION,
    prompt_version: PROMPT_VERSION,
    ...declared,
    indices: null,
    status: 'running',
    started_at: startedAt.toISOString(),
    ended_at: null,
    summary: null,
  });
}

/** What a run folder already holds, read when a run is resumed. */
export interface Recorded {
  /** Pairs whose last line is a scored rollout: not run again. */
  finished: Set<PairKey>;
  /** Pairs whose last line is an error: run again, but recorded already. */
  errored: Set<PairKey>;
  /** Adds a record this session wrote to the summary. */
  add(r: RolloutRecord): void;
  /**
   * The summary of the folder's winning records: the scored ones read back, this session's,
   * and the old errored lines of pairs it did not reach, each rollout once.
   */
  summary(): Promise<Summary>;
}

/**
 * Nothing recorded yet: a new run. With one rollout per task the summary keeps nothing per
 * task, so a long run's memory does not grow with its length.
 */
export function nothingRecorded(rolloutsPerTask = 2): Recorded {
  const builder = new SummaryBuilder({ perTask: rolloutsPerTask > 1 });
  return {
    finished: new Set(),
    errored: new Set(),
    add: (r) => builder.add(r),
    summary: async () => builder.result(),
  };
}

/**
 * Reads what a run folder holds (the caller holds its lock, and a torn last line was cut)
 * through the one reader of winning records; records outside `bounds` are set aside.
 */
export async function readRecorded(dir: string, warn: Warn, bounds: RunBounds | null = null): Promise<Recorded> {
  const builder = new SummaryBuilder();
  const finished = new Set<PairKey>();
  const errored = new Set<PairKey>();
  const winners = await Winners.scan(join(dir, RESULTS_FILE), { bounds, warn });
  await winners.forEach(
    (r) => {
      const key = pairKey(r.index, r.rollout ?? 0);
      if (r.error) errored.add(key);
      else {
        finished.add(key);
        builder.add(r);
      }
    },
    (r) => builder.addReplaced(r),
  );
  // Errored pairs run again; those not reached (a run stopped early) keep their old line.
  const notRerun = new Set(errored);
  return {
    finished,
    errored,
    add(r) {
      builder.add(r);
      notRerun.delete(pairKey(r.index, r.rollout ?? 0));
    },
    async summary() {
      if (errored.size > 0) {
        await winners.forEach((r) => {
          const key = pairKey(r.index, r.rollout ?? 0);
          if (!errored.has(key)) return;
          if (notRerun.has(key)) builder.add(r);
          else builder.addReplaced(r);
        });
        errored.clear();
      }
      return builder.result();
    },
  };
}

/** How many of `keys` are pairs of the run (or of its shard). */
export function countInPlan(keys: Set<PairKey>, n: number, rollouts: number, shard: Shard | null): number {
  let c = 0;
  for (const key of keys) {
    const [index, rollout] = splitPairKey(key);
    if (index < n && rollout < rollouts && inShard(index, shard)) c++;
  }
  return c;
}

/** Every (index, rollout) pair of the run (or of its shard) not yet finished, index by index. */
export function* pendingPairs(
  n: number,
  rollouts: number,
  finished: Set<PairKey>,
  shard: Shard | null = null,
): Generator<readonly [number, number]> {
  const first = shard ? shard.index - 1 : 0;
  const step = shard ? shard.count : 1;
  for (let index = first; index < n; index += step) {
    for (let rollout = 0; rollout < rollouts; rollout++) {
      if (!finished.has(pairKey(index, rollout))) yield [index, rollout] as const;
    }
  }
}

/** Counts the pairs `pendingPairs` will yield. */
export function countPending(n: number, rollouts: number, finished: Set<PairKey>, shard: Shard | null = null): number {
  return shardSize(n, shard) * rollouts - countInPlan(finished, n, rollouts, shard);
}

/**
 * How many rollouts of a saved run remain, read without taking the folder (no lock, no
 * repair of a torn last line), so that --resume can say so before asking for a key.
 */
export async function rolloutsLeft(
  dir: string,
  n: number,
  rollouts: number,
  shard: Shard | null,
): Promise<{ pending: number; total: number }> {
  const results = join(dir, RESULTS_FILE);
  // A fresh set for each pass: the fold starts again when a pair has two lines.
  const finished = existsSync(results)
    ? (
        await foldWinningRecords(
          results,
          () => {
            const scored = new Set<PairKey>();
            const add = (r: RolloutRecord): void => {
              if (!r.error) scored.add(pairKey(r.index, r.rollout ?? 0));
            };
            return { scored, add };
          },
          { bounds: { n, rollouts, shard, indices: null }, warn: () => {} },
        )
      ).fold.scored
    : new Set<PairKey>();
  return { pending: countPending(n, rollouts, finished, shard), total: shardSize(n, shard) * rollouts };
}

/** The summary of a run folder's winning records, read without taking or changing the folder. */
export async function readSummary(dir: string, bounds: RunBounds | null = null): Promise<Summary> {
  const results = join(dir, RESULTS_FILE);
  if (!existsSync(results)) return new SummaryBuilder().result();
  const { fold } = await foldWinningRecords(results, () => new SummaryBuilder(), { bounds, warn: () => {} });
  return fold.result();
}
