/**
 * Reading a run folder back: results.jsonl one line at a time (so a run of any length is read
 * in memory proportional to what the caller keeps), run.json, and where the two are.
 *
 * A crash can leave the last line half-written: that line is skipped with a warning. A bad
 * line anywhere else means the file was damaged or edited, and is refused with its number.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BadRecordError, ConfigError, fileError, systemErrorCode } from '../errors/index.js';
import { boundedLines } from '../io/jsonl.js';
import { terminalText } from '../io/terminal-text.js';
import { checkRecord, type RolloutRecord } from './record.js';
import { readShard, shardSize } from '../settings/shard.js';
import { RESULTS_FILE, RUN_FILE } from './files.js';
import type { RunFile } from './run-info.js';
import * as std from '../io/std.js';

export { readRunInfo, type RunFile } from './run-info.js';

export type Warn = (message: string) => void;
export const stderrWarn: Warn = (m) => std.stderr().write(`bas: warning: ${terminalText(m)}\n`);

/**
 * Calls `fn` for every record of a results file, in order, with its 1-based line number; `fn`
 * may return false to stop there. This is the one place the torn-last-line rule lives: a line
 * that does not parse is skipped with a warning when it is the last (a crash cut it mid-write);
 * any other bad line throws a BadRecordError naming the file and line.
 */
export async function forEachRecord(
  path: string,
  fn: (r: RolloutRecord, line: number) => boolean | void,
  warn: Warn = stderrWarn,
): Promise<void> {
  const lines = boundedLines(path);
  // A line that did not parse is held back until we know whether it was the last one.
  let pending: { line: number; reason: string } | null = null;
  let lineNo = 0;
  try {
    for await (const text of lines) {
      lineNo++;
      if (text.trim() === '') continue;
      if (pending)
        throw new BadRecordError(
          `${path}: line ${pending.line} is not valid JSON (${pending.reason}); the file is damaged`,
          pending.line,
        );
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (err) {
        pending = { line: lineNo, reason: (err as Error).message };
        continue;
      }
      const r = checkRecord(value);
      if (typeof r === 'string')
        throw new BadRecordError(`${path}: line ${lineNo} is not a rollout record: ${r}`, lineNo);
      if (fn(r, lineNo) === false) return;
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fileError('read', path, err);
  } finally {
    await lines.return(undefined);
  }
  if (pending)
    warn(`${path}: skipped line ${pending.line}, cut off mid-write (the run probably stopped while writing it)`);
}

/** Where the results are: DIR/results.jsonl, or the path itself when it is a file. */
export function locateRun(path: string): { dir: string; resultsPath: string; runPath: string | null } {
  let st;
  try {
    st = statSync(path);
  } catch (err) {
    if (systemErrorCode(err) === 'ENOENT') throw new ConfigError(`run folder ${path} does not exist`);
    throw fileError('read', path, err);
  }
  if (st.isFile()) return { dir: path, resultsPath: path, runPath: null };
  const resultsPath = join(path, RESULTS_FILE);
  try {
    statSync(resultsPath);
  } catch {
    throw new ConfigError(`${path} is not a run folder: it has no ${RESULTS_FILE} (bas eval --output writes one)`);
  }
  return { dir: path, resultsPath, runPath: join(path, RUN_FILE) };
}

/** The files a report of `path` (a run folder or a results file) reads, for refusing an output that would overwrite one. */
export function runInputs(path: string): string[] {
  return [path, join(path, RESULTS_FILE), join(path, RUN_FILE)];
}

/** How many rollouts run.json says the run was to do, or null when it cannot say. */
export function expectedRollouts(run: RunFile | null): number | null {
  if (!run) return null;
  const rollouts = typeof run.rollouts === 'number' ? run.rollouts : 1;
  if (Array.isArray(run.indices)) return run.indices.length * rollouts;
  const shard = readShard(run.shard);
  if (run.indices == null && typeof run.n === 'number' && shard !== undefined)
    return shardSize(run.n, shard) * rollouts;
  return null;
}
