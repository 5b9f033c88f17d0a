/**
 * The names of the files a run folder (and a sweep folder) holds, in one place: every reader
 * and writer takes them from here, so no module spells a file name of its own.
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';

/** One line per finished rollout, appended (results.ts writes it, winners.ts reads it back). */
export const RESULTS_FILE = 'results.jsonl';

/** The path of a run folder's results file: the one place outside this folder's modules ask for it. */
export function resultsPath(dir: string): string {
  return join(dir, RESULTS_FILE);
}

/** Whether `dir` is a run folder: it holds a results file. */
export function holdsResults(dir: string): boolean {
  try {
    return statSync(resultsPath(dir)).isFile();
  } catch {
    return false;
  }
}

/** The run's configuration, status and summary (run-info.ts). */
export const RUN_FILE = 'run.json';

/** Present while a process writes the folder (lock.ts). */
export const LOCK_FILE = '.bas.lock';

/** A sweep folder's plan: its points and the eval flags they run with (sweep-file.ts). */
export const SWEEP_FILE = 'sweep.json';

/**
 * A model id as part of a default folder name: characters a path or a shell would trip on
 * become `_`, cut to `maxChars`. A name with characters outside ASCII (which would all read
 * `_`: every Cyrillic or Chinese id the same) also gets 8 hex digits of a hash of the whole id,
 * so two such models started in the same second do not share a folder name.
 */
export function modelFolderPart(model: string, maxChars: number): string {
  const safe = model.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, maxChars);
  if (!/[^\x00-\x7f]/.test(model)) return safe;
  return `${safe}-${createHash('sha256').update(model).digest('hex').slice(0, 8)}`;
}
