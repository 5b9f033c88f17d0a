/**
 * What a run sets out to do and what its folder already holds: run.json for the settings, the
 * records read back on a resume (feeding the summary), and which (index, rollout) pairs still
 * need running: those with no line, or whose last line is an error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SummaryBuilder } from '../summary/summary-builder.js';
import type { Summary } from '../summary/summary.js';
import type { Warn } from '../runfile/read.js';
import { CutOffTally } from '../runfile/results.js';
import { pairKey, splitPairKey, type PairKey, type RolloutRecord } from '../runfile/record.js';
import { modelFolderPart, resultsPath } from '../runfile/files.js';
import { makeRunInfo, type RunInfo } from '../runfile/run-info.js';
import { foldWinningRecords, SummaryFold, type RunBounds } from '../runfile/winners.js';
import { inShard, shardSize, type Shard } from '../settings/shard.js';
import type { RunJsonSettings } from '../settings/plan.js';
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
export function runInfoFor(record: RunJsonSettings, startedAt: Date): RunInfo {
  return makeRunInfo({
    generator: GENERATOR_VERSION,
    prompt_version: PROMPT_VERSION,
    ...record,
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
  summary(): Summary;
  /** Prompt and completion tokens over every line read so far, without finishing the summary. */
  tokens(): { prompt: number; completion: number };
  /**
   * The rewards of the finished pairs read back, by pair, when asked for (a run with a stopping
   * rule starts its sequence from them); else null.
   */
  rewards: ReadonlyMap<PairKey, number> | null;
  /** The lines read back, for the cut-off rule (results.ts `cutOffRun`): a resume needs no read of its own for it. */
  lines: CutOffTally;
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
    summary: () => builder.result(),
    tokens: () => ({ prompt: 0, completion: 0 }),
    rewards: null,
    lines: new CutOffTally(),
  };
}

/**
 * A resume's one pass over results.jsonl: which pairs are finished, which errored, the summary
 * so far, and (when `rewards` is given) the finished pairs' rewards.
 */
class RecordedFold extends SummaryFold {
  readonly finished = new Set<PairKey>();
  readonly errored = new Set<PairKey>();
  /** Every line of the run read, replaced ones too (a second pass gives those to `addReplaced`). */
  readonly lines = new CutOffTally();

  constructor(readonly rewards: Map<PairKey, number> | null = null) {
    super();
  }

  override add(r: RolloutRecord): void {
    super.add(r);
    this.lines.see(r);
    const key = pairKey(r.index, r.rollout ?? 0);
    if (r.error) this.errored.add(key);
    else this.scored(key, r);
  }

  override replace(r: RolloutRecord): boolean {
    if (!super.replace(r)) return false;
    this.lines.see(r);
    const key = pairKey(r.index, r.rollout ?? 0);
    if (!r.error) {
      this.errored.delete(key);
      this.scored(key, r);
    }
    return true;
  }

  override addReplaced(r: RolloutRecord): void {
    super.addReplaced(r);
    this.lines.see(r);
  }

  /** A scored line: a checked record has a numeric reward. */
  private scored(key: PairKey, r: RolloutRecord): void {
    this.finished.add(key);
    this.rewards?.set(key, r.reward!);
  }
}

/**
 * Reads what a run folder holds (the caller holds its lock, and a torn last line was cut)
 * through the one reader of winning records, in one pass: records outside `bounds` are set
 * aside, and a pair recorded twice (an error, then its re-run) costs no second read. With
 * `rewards`, the finished pairs' rewards are kept too (a run with a stopping rule needs them).
 */
export async function readRecorded(
  dir: string,
  warn: Warn,
  bounds: RunBounds | null = null,
  opts: { rewards?: boolean } = {},
): Promise<Recorded> {
  const results = resultsPath(dir);
  const start = (): RecordedFold => new RecordedFold(opts.rewards ? new Map() : null);
  let fold = start();
  if (existsSync(results)) {
    const read = await foldWinningRecords(results, start, { bounds, warn });
    fold = read.fold;
    // A line set aside cannot belong to the run: no cut-off reply of it.
    if (read.counts.setAside > 0) fold.lines.see(null);
  }
  return {
    finished: fold.finished,
    errored: fold.errored,
    // This session's records: a re-run makes the old errored line a replaced one.
    add: (r) => fold.supersede(r),
    summary: () => fold.summary(),
    tokens: () => fold.tokens(),
    rewards: fold.rewards,
    lines: fold.lines,
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
 * The rewards of a finished run's rollouts, by pair, errored ones as 0 (`--against RUN`
 * compares with them): its results file read once, its run.json not at all (the caller has it).
 */
export async function readRewards(dir: string, bounds: RunBounds): Promise<Map<PairKey, number>> {
  const results = resultsPath(dir);
  const rewards = new Map<PairKey, number>();
  if (!existsSync(results)) return rewards;
  const take = (r: RolloutRecord): void => {
    rewards.set(pairKey(r.index, r.rollout ?? 0), r.error === null && r.reward !== null ? r.reward : 0);
  };
  await foldWinningRecords(
    results,
    () => ({
      add: take,
      replace: (r: RolloutRecord) => {
        take(r);
        return true;
      },
    }),
    { bounds, warn: () => {} },
  );
  return rewards;
}

/**
 * The summary of a run its rule stopped, read from its folder (the caller holds its lock):
 * tasks 0..`lastIndex` summarised, later tasks' rollouts counted apart (their tokens in the sums).
 */
export async function summaryThrough(dir: string, bounds: RunBounds, lastIndex: number): Promise<Summary> {
  const results = resultsPath(dir);
  const start = (): SummaryFold => new SummaryFold(bounds, lastIndex);
  const fold = existsSync(results)
    ? (await foldWinningRecords(results, start, { bounds, warn: () => {} })).fold
    : start();
  return fold.summary();
}
