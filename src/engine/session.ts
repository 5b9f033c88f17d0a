/**
 * Opening a run folder: a fresh one, or a saved one to resume. For a resume this reads what
 * is already there (feeding the summary) and works out which (index, rollout) pairs still
 * need running: those with no line, or whose last line is an error.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SummaryBuilder, type Summary } from '../summary/summary.js';
import { pairKey, splitPairKey, type PairKey, type RolloutRecord } from '../runfile/record.js';
import { ResultStore } from '../runfile/results.js';
import { RESULTS_FILE } from '../runfile/files.js';
import { readWinningRecords, Winners, type RunBounds } from '../runfile/winners.js';
import { makeRunInfo, readSavedRun, type RunInfo } from '../runfile/run-info.js';
export { readSavedRun };
import { settingsForRunJson, settingValuesOf, type EvalSettings, type SavedSettings } from '../settings/settings.js';
import { builtinPolicy } from '../endpoint/client.js';
import { inShard, shardSize, type Shard } from '../runfile/shard.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { PROMPT_VERSION } from '../task/prompt.js';
import { urlWithoutCredentials } from '../io/secrets.js';

/** The parts of a saved run that resolveSettings starts from: run.json itself, as declared. */
export function savedSettings(info: RunInfo): SavedSettings {
  return info;
}

/** `runs/<UTC time>-<model>`, the model made safe for a folder name. */
export function defaultOutputDir(model: string, shard: Shard | null = null, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  // Cut to 100 characters: a folder name may not pass 255 bytes, and model ids are unbounded.
  const safe =
    model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) + (shard ? `-shard${shard.index}of${shard.count}` : '');
  let dir = join('runs', `${stamp}-${safe}`);
  for (let k = 2; existsSync(dir); k++) dir = join('runs', `${stamp}-${safe}-${k}`);
  return dir;
}

/** run.json for these settings; strips credentials from a base URL (`user:pw@`, `?api-key=`). */
export function runInfoFor(s: EvalSettings, startedAt: Date): RunInfo {
  const baseURL = urlWithoutCredentials(s.baseURL);
  const declared = settingsForRunJson(settingValuesOf(s)) as Pick<
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
  >;
  return makeRunInfo({
    generator: GENERATOR_VERSION,
    prompt_version: PROMPT_VERSION,
    ...declared,
    base_url: builtinPolicy(s.model) === null ? baseURL : null,
    provider: builtinPolicy(s.model) === null ? s.provider : null,
    indices: null,
    status: 'running',
    started_at: startedAt.toISOString(),
    ended_at: null,
    summary: null,
  });
}

/** An open run folder with what it already holds. */
export interface Session {
  dir: string;
  store: ResultStore;
  /** Pairs whose last line is a scored rollout: not run again. */
  finished: Set<PairKey>;
  /** The folder held an earlier run that recorded no scored rollout, and is being started again. */
  restarted: boolean;
  /** Writes a new record to the folder and to the summary. */
  record(r: RolloutRecord): void;
  /** The summary of the folder's winning records: what was there before and what was recorded since. */
  summary(): Promise<Summary>;
}

/**
 * Opens a run folder: new (refusing one that holds a run) or, with `resume`, an existing one,
 * whose records must fit `bounds` (others are set aside with a warning and counted nowhere).
 *
 * On a resume the summary starts with the scored winners; an errored winner's pair is run
 * again, and its old record joins the summary at the end only if no new one replaced it (a
 * run stopped before reaching it), so every rollout is summarised once, by its last line.
 */
export async function openSession(dir: string, resume: boolean, bounds: RunBounds | null = null): Promise<Session> {
  const builder = new SummaryBuilder();
  const finished = new Set<PairKey>();
  const again = new Set<PairKey>();
  let winners: Winners | null = null;
  let store: ResultStore;
  let restarted = false;
  if (!resume) ({ store, restarted } = await ResultStore.start(dir));
  else {
    store = ResultStore.reopen(dir);
    try {
      winners = await Winners.scan(join(dir, RESULTS_FILE), { bounds });
      await winners.forEach(
        (r) => {
          const key = pairKey(r.index, r.rollout ?? 0);
          if (r.error) again.add(key);
          else {
            finished.add(key);
            builder.add(r);
          }
        },
        (r) => builder.addReplaced(r),
      );
    } catch (err) {
      store.release();
      throw err;
    }
  }
  // Errored pairs run again; those not reached (a run stopped early) keep their old line.
  const erroredBefore = new Set(again);
  return {
    dir,
    store,
    finished,
    restarted,
    record(r) {
      store.append(r);
      builder.add(r);
      again.delete(pairKey(r.index, r.rollout ?? 0));
    },
    async summary() {
      if (erroredBefore.size > 0 && winners !== null) {
        await winners.forEach((r) => {
          const key = pairKey(r.index, r.rollout ?? 0);
          if (!erroredBefore.has(key)) return;
          if (again.has(key)) builder.add(r);
          else builder.addReplaced(r);
        });
        erroredBefore.clear();
      }
      return builder.result();
    },
  };
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
  let c = 0;
  for (const key of finished) {
    const [index, rollout] = splitPairKey(key);
    if (index < n && rollout < rollouts && inShard(index, shard)) c++;
  }
  return shardSize(n, shard) * rollouts - c;
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
  const finished = new Set<PairKey>();
  const results = join(dir, RESULTS_FILE);
  if (existsSync(results)) {
    await readWinningRecords(
      results,
      (r) => {
        if (!r.error) finished.add(pairKey(r.index, r.rollout ?? 0));
      },
      { bounds: { n, rollouts, shard, indices: null }, warn: () => {} },
    );
  }
  return { pending: countPending(n, rollouts, finished, shard), total: shardSize(n, shard) * rollouts };
}

/** The summary of a run folder's winning records, read without taking or changing the folder. */
export async function readSummary(dir: string, bounds: RunBounds | null = null): Promise<Summary> {
  const builder = new SummaryBuilder();
  const results = join(dir, RESULTS_FILE);
  if (existsSync(results)) {
    await readWinningRecords(results, (r) => builder.add(r), {
      bounds,
      warn: () => {},
      onReplaced: (r) => builder.addReplaced(r),
    });
  }
  return builder.result();
}
