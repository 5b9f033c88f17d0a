/**
 * The names of the files a run folder (and a sweep folder) holds, in one place: every reader
 * and writer takes them from here, so no module spells a file name of its own.
 */
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';

/** One line per finished rollout, appended (results.ts writes it, winners.ts reads it back). */
export const RESULTS_FILE = 'results.jsonl';

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

/** The path of run folder `dir`'s results file: the one place it is built. */
export function resultsPath(dir: string): string {
  return join(dir, RESULTS_FILE);
}

/**
 * The size of run folder `dir`'s results file as it stands (a link's own size: it is never
 * followed), or -1 when there is none: what a reader compares to know the file changed.
 */
export function resultsSize(dir: string): number {
  try {
    return lstatSync(resultsPath(dir)).size;
  } catch {
    return -1;
  }
}

/**
 * Run folder `dir`'s results file as it stands, in one word (its inode, size and modification
 * time, a link's own), or null when there is none: a read made earlier is still the file's while
 * this is unchanged (bas only appends to it, and a resume's repair of its tail changes its size).
 */
export function resultsStamp(dir: string): string | null {
  try {
    const st = lstatSync(resultsPath(dir), { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}`;
  } catch {
    return null;
  }
}
