/**
 * Reading a run folder back: results.jsonl one line at a time (so a run of any length is read
 * in memory proportional to what the caller keeps), run.json, and where the two are.
 *
 * A crash can leave the last line half-written: that line is skipped with a warning. A bad
 * line anywhere else means the file was damaged or edited, and is refused with its number.
 */
import { createReadStream, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError } from '../errors.js';
import { redact } from '../io/secrets.js';
import { terminalText } from '../io/terminal-text.js';
import type { TaskConfig } from '../task/types.js';
import { checkRecord, type RolloutRecord } from './record.js';
import { readShard, shardSize } from './shard.js';
import { existsSync, readFileSync } from 'node:fs';
import { RUN_FILE, type RunInfo } from './store.js';
import { BAS_VERSION, runGenerator } from './versions.js';
import { GENERATOR_VERSION } from '../task/generate.js';

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

export type Warn = (message: string) => void;
export const stderrWarn: Warn = (m) => process.stderr.write(`bas: warning: ${terminalText(redact(m))}\n`);

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

export async function readRunJson(path: string): Promise<RunFile | null> {
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

/** Reads a saved run.json for --resume. */
export function readSavedRun(dir: string): RunInfo {
  const file = join(dir, RUN_FILE);
  if (!existsSync(file)) throw new ConfigError(`--resume: ${dir} is not a run folder (no ${RUN_FILE})`);
  let info: unknown;
  try {
    info = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new ConfigError(`--resume: ${file} is not valid JSON`);
  }
  const i = info as Partial<RunInfo>;
  if (typeof i !== 'object' || i === null || typeof i.model !== 'string' || typeof i.n !== 'number' || typeof i.task !== 'object') {
    throw new ConfigError(`--resume: ${file} does not look like a bas run file`);
  }
  if (i.indices != null) throw new ConfigError(`--resume: ${file} was written by bas score, not bas eval: there is nothing to resume`);
  const generator = runGenerator(i);
  if (generator !== GENERATOR_VERSION) {
    throw new ConfigError(
      `--resume: ${dir} was made with task generator ${generator}, and this bas (${BAS_VERSION}) has generator ${GENERATOR_VERSION}: the same indices would be different tasks; finish it with the bas that started it, or start a new run`,
    );
  }
  if (readShard(i.shard) === undefined) throw new ConfigError(`--resume: ${file} has an unreadable "shard" (it needs {"index": I, "count": N} with 1 <= I <= N)`);
  return i as RunInfo;
}
