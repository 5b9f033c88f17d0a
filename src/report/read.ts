/**
 * Reading a run folder (run.json beside results.jsonl) as a stream, one line at a time, so a
 * run of any length is summarised in memory proportional to its number of rollouts.
 *
 * A crash can leave the last line half-written: that line is skipped with a warning. A bad
 * line anywhere else means the file was damaged or edited, and is refused with its number.
 */
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError } from '../errors.js';
import type { TaskConfig } from '../task/types.js';
import { checkRecord, type RolloutRecord } from './record.js';
import { readShard, shardSize } from '../run/shard.js';
import { SummaryBuilder, type Summary } from './summary.js';

/** The fields of run.json a report reads; everything else is kept as it was. */
export interface RunFile {
  model?: string;
  task?: TaskConfig;
  n?: number;
  rollouts?: number;
  indices?: number[] | null;
  /** The slice of the tasks a sharded run covers (`bas eval --shard`). */
  shard?: { index: number; count: number } | null;
  prices?: { in: number | null; out: number | null };
  status?: 'running' | 'complete' | 'interrupted' | 'failed' | string;
  started_at?: string;
  ended_at?: string | null;
  [key: string]: unknown;
}

/** A run folder, summarised. */
export interface RunData {
  dir: string;
  resultsPath: string;
  /** run.json, or null when the folder has only results.jsonl (say, `bas score --out`). */
  run: RunFile | null;
  model: string;
  /** The task configuration (run.json's, else the first record's); null if neither says. */
  task: TaskConfig | null;
  builder: SummaryBuilder;
  summary: Summary;
  /** Rollouts the run set out to do (tasks × rollouts), when run.json says. */
  expected: number | null;
  /** Plain sentences about the state of the run: in progress, cut off, mixed configs. */
  notes: string[];
}

type Warn = (message: string) => void;
const stderrWarn: Warn = (m) => process.stderr.write(`bas: warning: ${m}\n`);

/**
 * Calls `fn` for every record of a results file, in order, with its 1-based line number.
 * A torn (unparseable) last line is skipped with a warning; any other bad line throws a
 * ConfigError naming the file and line.
 */
export async function forEachRecord(
  path: string,
  fn: (r: RolloutRecord, line: number) => void,
  warn: Warn = stderrWarn,
): Promise<void> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input, crlfDelay: Infinity });
  // A line that did not parse is held back until we know whether it was the last one.
  let pending: { line: number; reason: string } | null = null;
  let lineNo = 0;
  try {
    for await (const text of lines) {
      lineNo++;
      if (text.trim() === '') continue;
      if (pending) throw new ConfigError(`${path}: line ${pending.line} is not valid JSON (${pending.reason}); the file is damaged`);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        pending = { line: lineNo, reason: (err as Error).message };
        continue;
      }
      const r = checkRecord(value);
      if (typeof r === 'string') throw new ConfigError(`${path}: line ${lineNo} is not a rollout record: ${r}`);
      fn(r, lineNo);
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`);
  } finally {
    lines.close();
    input.destroy();
  }
  if (pending) warn(`${path}: skipped line ${pending.line}, cut off mid-write (the run probably stopped while writing it)`);
}

async function readRunJson(path: string): Promise<RunFile | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConfigError(`cannot read ${path}: ${(err as Error).message}`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not a JSON object');
    return v as RunFile;
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON (${(err as Error).message})`);
  }
}

/** Where the results are: DIR/results.jsonl, or the path itself when it is a file. */
export function locateRun(path: string): { dir: string; resultsPath: string; runPath: string | null } {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ConfigError(`run folder ${path} does not exist`);
  }
  if (st.isFile()) return { dir: path, resultsPath: path, runPath: null };
  const resultsPath = join(path, 'results.jsonl');
  try {
    statSync(resultsPath);
  } catch {
    throw new ConfigError(`${path} is not a run folder: it has no results.jsonl (bas eval --output writes one)`);
  }
  return { dir: path, resultsPath, runPath: join(path, 'run.json') };
}

/** How many rollouts run.json says the run was to do, or null when it cannot say. */
export function expectedRollouts(run: RunFile | null): number | null {
  if (!run) return null;
  const rollouts = typeof run.rollouts === 'number' ? run.rollouts : 1;
  if (Array.isArray(run.indices)) return run.indices.length * rollouts;
  const shard = readShard(run.shard);
  if (run.indices == null && typeof run.n === 'number' && shard !== undefined) return shardSize(run.n, shard) * rollouts;
  return null;
}

/** Reads and summarises a run folder (or a bare results file). */
export async function readRun(path: string, warn: Warn = stderrWarn): Promise<RunData> {
  const { dir, resultsPath, runPath } = locateRun(path);
  const run = runPath ? await readRunJson(runPath) : null;
  const builder = new SummaryBuilder();
  const configs = new Set<string>();
  let firstConfig: TaskConfig | null = null;
  let firstModel: string | null = null;
  await forEachRecord(
    resultsPath,
    (r, line) => {
      builder.add(r, line);
      if (r.config && configs.size < 20) {
        const key = JSON.stringify([r.config.num_transactions, r.config.fault_rate, r.config.seed]);
        if (!configs.has(key)) configs.add(key);
        firstConfig ??= r.config;
      }
      if (typeof r.model === 'string') firstModel ??= r.model;
    },
    warn,
  );
  const summary = builder.result();
  if (summary.counts.rollouts === 0) {
    throw new ConfigError(`${resultsPath} holds no rollouts yet: nothing to report`);
  }
  const notes: string[] = [];
  const expected = expectedRollouts(run);
  const status = run?.status;
  if (status === 'running') notes.push('This run is still in progress (run.json says "running"): the figures cover what has finished so far.');
  else if (status === 'interrupted' || status === 'failed') notes.push(`This run was ${status} before it finished: the figures cover what completed. \`bas eval --resume ${dir}\` finishes it.`);
  if (expected !== null && summary.counts.rollouts < expected) {
    notes.push(`${summary.counts.rollouts} of ${expected} rollouts are recorded; ${expected - summary.counts.rollouts} are missing.`);
  }
  if (!run && runPath) notes.push(`No run.json beside ${resultsPath}: the model and task configuration come from the records.`);
  if (configs.size > 1) notes.push('The records hold more than one task configuration: their figures are pooled.');
  return {
    dir,
    resultsPath,
    run,
    model: run?.model ?? firstModel ?? '(unknown model)',
    task: run?.task ?? firstConfig,
    builder,
    summary,
    expected,
    notes,
  };
}
