/**
 * Building a whole run folder in one go (a merge, a scored batch): it is written to a
 * temporary folder beside the target and renamed into place only when complete, so a
 * refused or failed build leaves nothing behind.
 *
 * Nothing a user named is ever deleted: the rename replaces at most an empty folder (rename
 * does that atomically, and refuses a folder with anything in it), so a folder that appeared
 * at the output path while the build ran, with someone's files in it, is refused and kept.
 * The only folder ever removed recursively is our own temporary one.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { forgetTemp, tempNameFor, trackTemp } from '../io/atomic-file.js';
import { ConfigError, fileError, systemErrorCode } from '../errors/index.js';
import { ResultStore } from './results.js';
import { writeRunInfo, type RunInfo } from './run-info.js';

/** Refuses an output folder that already holds something. */
export function requireEmptyOutput(out: string, flag: string): void {
  let entries: string[];
  // A link named as the new folder is refused: the folder is renamed into place by its name,
  // and what the link points to is not the folder being made.
  if (isLink(out))
    throw new ConfigError(
      `${flag} ${out} is a symbolic link: bas makes a run folder only under its own name; give the folder's real path, or another name`,
    );
  try {
    entries = existsSync(out) ? readdirSync(out) : [];
  } catch (err) {
    throw fileError('use', out, err, flag);
  }
  if (entries.length > 0) throw new ConfigError(`${flag} ${out} already exists and is not empty`);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Makes a new, private temporary folder beside `out` (never reusing an existing path). */
function makeTempFolder(out: string, flag: string): string {
  const parent = dirname(resolve(out));
  try {
    mkdirSync(parent, { recursive: true });
  } catch (err) {
    throw fileError('create', parent, err, flag);
  }
  for (let attempt = 0; ; attempt++) {
    const temp = tempNameFor(resolve(out));
    // Tracked before it exists: a stop signal that arrives just after the mkdir must find the
    // cleanup in place, not the default action that kills the process and leaves the folder.
    // A failed mkdir forgets it in the same synchronous step, before any signal handler can run.
    trackTemp(temp, true);
    try {
      mkdirSync(temp);
      return temp;
    } catch (err) {
      forgetTemp(temp);
      if (systemErrorCode(err) !== 'EEXIST' || attempt >= 5) throw fileError('create', temp, err, flag);
    }
  }
}

/** Runs `fill` on a store in a temporary folder, writes the run.json it returns, then renames the folder to `out`. */
export async function buildRunFolder(
  out: string,
  flag: string,
  fill: (store: ResultStore) => RunInfo | Promise<RunInfo>,
): Promise<void> {
  requireEmptyOutput(out, flag);
  const temp = makeTempFolder(out, flag);
  let store: ResultStore | null = null;
  try {
    store = ResultStore.create(temp);
    const info = await fill(store);
    store.release();
    writeRunInfo(temp, info);
    try {
      renameSync(temp, out);
    } catch (err) {
      const code = systemErrorCode(err);
      if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') {
        throw new ConfigError(
          `${flag} ${out} appeared while the run folder was being built and is not empty; it was left as it is and nothing was written`,
        );
      }
      throw fileError('create', out, err, flag);
    }
    forgetTemp(temp);
  } catch (err) {
    try {
      store?.release();
    } catch {
      // The first error is the one to report; this one (most likely the same) goes with the folder.
    }
    rmSync(temp, { recursive: true, force: true });
    forgetTemp(temp);
    throw err;
  }
}
