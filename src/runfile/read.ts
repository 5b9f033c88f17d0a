/**
 * Reading a run folder back: results.jsonl one line at a time (so a run of any length is read
 * in memory proportional to what the caller keeps), run.json, and where the two are.
 *
 * A crash can leave the last line half-written, without its newline: that line is skipped with
 * a warning. Any other bad line means the file was damaged or edited, and is refused with its
 * number (`judgeLine` is the rule).
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { linkRefusal, specialFileRefusal } from '../io/open-file.js';
import { join } from 'node:path';
import { BadRecordError, ConfigError, fileError, systemErrorCode } from '../errors/index.js';
import { boundedFileLineBatches } from '../io/jsonl.js';
import { terminalText } from '../io/terminal-text.js';
import { checkRecord, type RolloutRecord } from './record.js';
import { readShard, shardSize } from '../settings/shard.js';
import { RESULTS_FILE, RUN_FILE } from './files.js';
import type { RunFile } from './run-info.js';
import * as std from '../io/std.js';

export { readRunInfo, type RunFile } from './run-info.js';
/**
 * How a reader opens a run folder's file as a FileHandle: never through a symbolic link, and a
 * FIFO, device or socket is refused at once (src/io/open-file.ts).
 */
export { openNoFollowHandle as openRunFileHandle } from '../io/open-file.js';

export type Warn = (message: string) => void;
export const stderrWarn: Warn = (m) => std.stderr().write(`bas: warning: ${terminalText(m)}\n`);

/**
 * What one line of a results file is: a record, `torn`, or damage (the reason, in words to
 * follow "line N "). This is the one rule for a bad last line, used by the reader for every
 * line and by the resume's cutter for the end of the file (results.ts), so the two never
 * disagree. bas writes each line together with its newline in one write, so a process killed
 * mid-write leaves at most a last line WITHOUT its newline: such a line that is not JSON is
 * torn (skipped, and cut by a resume); one that is a whole record is kept (a resume adds its
 * newline). A line that ended with its newline was written whole: if it is not a record the
 * file was damaged or edited, wherever the line is, and it is refused, never skipped.
 */
export function judgeLine(text: string, ended: boolean): RolloutRecord | 'torn' | { damaged: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    if (!ended) return 'torn';
    return {
      damaged: `is not valid JSON (${(err as Error).message}); the file is damaged (a line cut off mid-write has no newline at its end, and this one has)`,
    };
  }
  const r = checkRecord(value);
  return typeof r === 'string' ? { damaged: `is not a rollout record: ${r}` } : r;
}

/**
 * Calls `fn` for every record of a results file, in order, with its 1-based line number; `fn`
 * may return false to stop there. Each line is judged by `judgeLine`: a torn last line is
 * skipped with a warning; any damaged line throws a BadRecordError naming the file and line.
 */
export async function forEachRecord(
  path: string,
  fn: (r: RolloutRecord, line: number) => boolean | void,
  warn: Warn = stderrWarn,
): Promise<void> {
  // A run folder's file: never read through a link, and a FIFO or device is refused at once.
  const batches = boundedFileLineBatches(path, undefined, true);
  let torn: number | null = null;
  let lineNo = 0;
  try {
    for await (const batch of batches)
      for (const { text, ended } of batch) {
        lineNo++;
        if (text.trim() === '') continue;
        const r = judgeLine(text, ended);
        if (r === 'torn') {
          torn = lineNo; // only the last line lacks its newline
          continue;
        }
        if ('damaged' in r) throw new BadRecordError(`${path}: line ${lineNo} ${r.damaged}`, lineNo);
        if (fn(r, lineNo) === false) return;
      }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fileError('read', path, err);
  } finally {
    await batches.return(undefined);
  }
  if (torn !== null)
    warn(`${path}: skipped line ${torn}, cut off mid-write (the run probably stopped while writing it)`);
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
  // A file named outright may be a link the user made: it is read as the file it names.
  if (st.isFile())
    return { dir: path, resultsPath: lstatSync(path).isSymbolicLink() ? realpathSync(path) : path, runPath: null };
  const resultsPath = join(path, RESULTS_FILE);
  let results;
  try {
    results = lstatSync(resultsPath);
  } catch {
    throw new ConfigError(`${path} is not a run folder: it has no ${RESULTS_FILE} (bas eval --output writes one)`);
  }
  // A run folder's own file is never read through a link (see openNoFollow): name the file
  // itself to read one from elsewhere.
  if (results.isSymbolicLink()) throw linkRefusal(resultsPath);
  if (!results.isFile()) throw specialFileRefusal(resultsPath, results);
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
