/**
 * Joining run folders (typically the shards of one run) into one. The inputs must measure
 * the same thing (model, task configuration, task count, rollouts, sampling) and hold
 * disjoint (index, rollout) pairs. Within an input the last line of a pair counts, as
 * everywhere. The output is written to a temporary folder and renamed into place, so a
 * refused merge leaves nothing behind.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../errors/index.js';
import { withSpend } from '../summary/spend.js';
import { SummaryBuilder } from '../summary/summary-builder.js';
import type { Summary } from '../summary/summary.js';
import { spendBeside, spendOf } from './sessions.js';
import { buildRunFolder, requireEmptyOutput } from './build.js';
import { RESULTS_FILE, RUN_FILE } from './files.js';
import { readInputRun, type RunInfo } from './run-info.js';
import { versionClash } from './versions.js';
import { pairKey, type PairKey } from './record.js';
import { runBounds, Winners } from './winners.js';
import { mergeEndpoints, runEndpoints } from './endpoints.js';
import { canon } from '../io/canon.js';

interface Input {
  dir: string;
  info: RunInfo;
  /** The line that counts for each of its pairs. */
  winners: Winners | null;
}

export interface MergeOutcome {
  dir: string;
  info: RunInfo;
  summary: Summary;
  missing: number;
  /** Rollouts the merged run was to hold (tasks × rollouts). */
  expected: number;
}

/** The value at a dotted run.json path (`sampling.temperature`); null when absent. */
function at(info: RunInfo, path: string): unknown {
  let v: unknown = info;
  for (const part of path.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  return v ?? null;
}

/**
 * Merges the run folders `dirs` into a new run folder `out`. `mustAgree` lists the dotted
 * run.json keys the inputs must share (the settings declaration's measured ones, given by
 * the caller: this layer does not read the declaration).
 */
export async function mergeRuns(dirs: string[], out: string, mustAgree: readonly string[]): Promise<MergeOutcome> {
  if (dirs.length < 2) throw new ConfigError('merge needs at least two run folders');
  const seen = new Map<string, string>();
  for (const d of dirs) {
    const twin = seen.get(resolve(d));
    // The CLI prints "bas: " before the message, as for compare: "merge: …", never "bas: bas merge: …".
    if (twin !== undefined) throw new ConfigError(`merge: ${d} is given twice (as ${twin}): give each run folder once`);
    seen.set(resolve(d), d);
  }
  requireEmptyOutput(out, '--output');
  const inputs = await readInputs(dirs, mustAgree);
  const first = inputs[0]!;
  const owner = await claimPairs(inputs);
  // Pass 2: copy the winning lines, streaming, into the new folder.
  const builder = new SummaryBuilder();
  const expected = first.info.n * (first.info.rollouts ?? 1);
  const missing = expected - owner.size;
  let merged: RunInfo | null = null;
  await buildRunFolder(out, '--output', async (store) => {
    const scored = new Map<Input, number>();
    for (const input of inputs) {
      let n = 0;
      await input.winners!.forEach((r) => {
        store.append(r);
        builder.add(r);
        if (r.error === null) n++;
      });
      scored.set(input, n);
    }
    const endpoints = mergeEndpoints(inputs.map((i) => runEndpoints(i.info, scored.get(i)!)));
    merged = mergedInfo(inputs, missing, builder, endpoints);
    return merged;
  });
  return { dir: out, info: merged!, summary: merged!.summary as Summary, missing, expected };
}

/** Reads every input's run.json and refuses inputs that do not measure the same thing. */
async function readInputs(dirs: string[], mustAgree: readonly string[]): Promise<Input[]> {
  const inputs: Input[] = [];
  for (const dir of dirs) {
    if (!existsSync(join(dir, RESULTS_FILE)))
      throw new ConfigError(`${dir} is not a run folder (it has no ${RESULTS_FILE})`);
    inputs.push({ dir, info: await readInputRun(dir), winners: null });
  }
  const first = inputs[0]!;
  for (const input of inputs.slice(1)) {
    const clash = versionClash(input.info, first.info);
    if (clash) {
      const why = clash.what === 'prompt' ? 'their models were asked differently' : 'their tasks differ';
      throw new ConfigError(
        `cannot merge: ${input.dir} was made with ${clash.what} ${clash.a ?? 'unknown'}, ${first.dir} with ${clash.b ?? 'unknown'}: ${why}`,
      );
    }
    for (const field of mustAgree) {
      if (canon(at(input.info, field)) !== canon(at(first.info, field))) {
        throw new ConfigError(
          `cannot merge: ${input.dir} has ${field} ${canon(at(input.info, field))}, ${first.dir} has ${canon(at(first.info, field))}`,
        );
      }
    }
  }
  return inputs;
}

/**
 * Pass 1: the winning line of each pair, and no pair in two inputs. A record outside its
 * input's run (a task past n, outside the input's shard, a rollout past the count) is
 * refused: the merged folder would count it as one of the run's rollouts.
 */
async function claimPairs(inputs: Input[]): Promise<Map<PairKey, string>> {
  const owner = new Map<PairKey, string>();
  for (const input of inputs) {
    const results = join(input.dir, RESULTS_FILE);
    const bounds = runBounds(input.info);
    if (bounds === null) throw new ConfigError(`cannot merge: ${join(input.dir, RUN_FILE)} has an unreadable "shard"`);
    const claim = (index: number, rollout: number): void => {
      const key = pairKey(index, rollout);
      const other = owner.get(key);
      if (other !== undefined && other !== input.dir) {
        throw new ConfigError(
          `cannot merge: task ${index} rollout ${rollout} is in both ${other} and ${input.dir} (overlapping shards)`,
        );
      }
      owner.set(key, input.dir);
    };
    input.winners = await Winners.scan(results, { bounds, outside: 'refuse' });
    input.winners.forEachPair(claim);
  }
  return owner;
}

/** The merged run.json: the first input's settings, with what the inputs say together. */
function mergedInfo(
  inputs: Input[],
  missing: number,
  builder: SummaryBuilder,
  endpoints: ReturnType<typeof mergeEndpoints>,
): RunInfo {
  const first = inputs[0]!;
  const allComplete = inputs.every((i) => i.info.status === 'complete');
  // Prices are bookkeeping, not what was measured: kept where every input agrees, else unknown.
  const agreed = (k: 'in' | 'out') => {
    const v = first.info.prices?.[k] ?? null;
    return inputs.every((i) => (i.info.prices?.[k] ?? null) === v) ? v : null;
  };
  // How one process paced its requests, when it was resumed and how long its sessions took
  // say nothing of the merged run (shards may have run side by side). What each input spent
  // beside its records is kept in `merged_from[].spend`, and counted (spendBeside).
  const { pace: _pace, resumed_at: _resumed, sessions: _sessions, elapsed_s: _elapsed, ...base } = first.info;
  const spends = inputs.map((i) => spendBeside(i.info));
  const strictest = strictestErrorRate(inputs.map((i) => i.info.max_error_rate));
  const { max_error_rate: _rate, ...rest } = base;
  return {
    ...rest,
    // The error budget the merged run is ranked by: the strictest any input was run under, so
    // the verdict does not depend on the order the inputs were given in.
    ...(strictest === null ? {} : { max_error_rate: strictest }),
    prices: { in: agreed('in'), out: agreed('out') },
    shard: null,
    indices: null,
    // `incomplete`: rollouts are in none of the inputs (a shard missing); `bas eval --resume` of the
    // merged folder runs them, since a merged run.json keeps the whole run's n and no shard.
    status: missing > 0 ? 'incomplete' : allComplete ? 'complete' : 'interrupted',
    started_at: inputs.map((i) => i.info.started_at).sort()[0] ?? first.info.started_at,
    ended_at: inputs.some((i) => !i.info.ended_at)
      ? null
      : inputs
          .map((i) => i.info.ended_at!)
          .sort()
          .at(-1)!,
    merged_from: inputs.map((i, k) => ({
      dir: i.dir,
      shard: i.info.shard ?? null,
      status: i.info.status,
      pace: i.info.pace ?? null,
      spend: spends[k],
    })),
    ...(endpoints ? { endpoints } : {}),
    // The summary counts what the inputs' sessions spent beside their records, as eval's does.
    summary: withSpend(builder.result(), spendOf(spends.map((spend) => ({ spend })))),
  };
}

/** The smallest of the inputs' recorded `max_error_rate` values (those in 0..1), or null when none records one. */
function strictestErrorRate(rates: ReadonlyArray<unknown>): number | null {
  const valid = rates.filter((r): r is number => typeof r === 'number' && r >= 0 && r <= 1);
  return valid.length === 0 ? null : Math.min(...valid);
}
