/**
 * Opening a run folder: a fresh one, or a saved one to resume. For a resume this reads what
 * is already there (feeding the summary) and works out which (index, rollout) pairs still
 * need running: those with no line, or whose last line is an error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { SummaryBuilder } from '../report/summary.js';
import { forEachRecord } from '../runfile/read.js';
import { pairKey, splitPairKey, type PairKey } from '../runfile/record.js';
import { ResultStore, RESULTS_FILE, type RunInfo } from '../runfile/store.js';
import { readSavedRun } from '../runfile/read.js';
export { readSavedRun };
import type { EvalSettings, SavedSettings } from './settings.js';
import { builtinPolicy } from './client.js';
import { inShard, readShard, shardSize, type Shard } from '../runfile/shard.js';
import { BAS_VERSION, OPENAI_VERSION, runGenerator } from '../runfile/versions.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { urlWithoutCredentials } from '../io/secrets.js';


/** The parts of a saved run that resolveSettings starts from. */
export function savedSettings(info: RunInfo): SavedSettings {
  return {
    model: info.model,
    n: info.n,
    rollouts: info.rollouts ?? 1,
    task: info.task,
    sampling: { ...{ temperature: null, max_tokens: null, reasoning_effort: null, extra: {} }, ...info.sampling },
    base_url: info.base_url ?? undefined,
    api_key_var: info.api_key_var ?? 'OPENAI_API_KEY',
    concurrency: info.concurrency,
    timeout_s: info.timeout_s,
    request_timeout_s: info.request_timeout_s,
    max_retries: info.max_retries,
    shard: (info.shard as Shard | null) ?? null,
    prices: { in: info.prices?.in ?? null, out: info.prices?.out ?? null },
  };
}

/** `runs/<UTC time>-<model>`, the model made safe for a folder name. */
export function defaultOutputDir(model: string, shard: Shard | null = null, now = new Date()): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  const safe = model.replace(/[^A-Za-z0-9._-]+/g, '_') + (shard ? `-shard${shard.index}of${shard.count}` : '');
  let dir = join('runs', `${stamp}-${safe}`);
  for (let k = 2; existsSync(dir); k++) dir = join('runs', `${stamp}-${safe}-${k}`);
  return dir;
}

/** run.json for these settings; strips credentials from a base URL (`user:pw@`, `?api-key=`). */
export function runInfoFor(s: EvalSettings, startedAt: Date): RunInfo {
  const baseURL = urlWithoutCredentials(s.baseURL);
  return {
    bas_version: BAS_VERSION,
    generator: GENERATOR_VERSION,
    node_version: process.version,
    openai_version: OPENAI_VERSION,
    model: s.model,
    base_url: builtinPolicy(s.model) === null ? baseURL : null,
    api_key_var: s.apiKeyVar,
    task: s.task,
    n: s.n,
    rollouts: s.rollouts,
    indices: null,
    shard: s.shard,
    sampling: s.sampling,
    concurrency: s.concurrency,
    timeout_s: s.timeoutS,
    request_timeout_s: s.requestTimeoutS,
    max_retries: s.maxRetries,
    prices: s.prices,
    status: 'running',
    started_at: startedAt.toISOString(),
    ended_at: null,
    summary: null,
  };
}

/** An open run folder with what it already holds. */
export interface Session {
  dir: string;
  store: ResultStore;
  builder: SummaryBuilder;
  /** Pairs whose last line is a scored rollout: not run again. */
  finished: Set<PairKey>;
}

/** Opens a run folder: new (refusing one that holds a run) or, with `resume`, an existing one. */
export async function openSession(dir: string, resume: boolean): Promise<Session> {
  const builder = new SummaryBuilder();
  const finished = new Set<PairKey>();
  if (!resume) return { dir, store: ResultStore.create(dir), builder, finished };
  const store = ResultStore.reopen(dir);
  await forEachRecord(join(dir, RESULTS_FILE), (r) => {
    builder.add(r);
    const key = pairKey(r.index, r.rollout ?? 0);
    // Last line wins: a later error line un-finishes the pair, a later scored line finishes it.
    if (r.error) finished.delete(key);
    else finished.add(key);
  });
  return { dir, store, builder, finished };
}

/** Every (index, rollout) pair of the run (or of its shard) not yet finished, index by index. */
export function* pendingPairs(n: number, rollouts: number, finished: Set<PairKey>, shard: Shard | null = null): Generator<readonly [number, number]> {
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
