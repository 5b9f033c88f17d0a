/**
 * Building a whole run folder in one go (a merge, a scored batch): it is written to a
 * temporary folder beside the target and renamed into place only when complete, so a
 * refused or failed build leaves nothing behind.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { ResultStore, writeRunInfo, type RunInfo } from './store.js';

/** Refuses an output folder that already holds something. */
export function requireEmptyOutput(out: string, flag: string): void {
  if (existsSync(out) && readdirSync(out).length > 0) throw new ConfigError(`${flag} ${out} already exists and is not empty`);
}

/** Runs `fill` on a store in a temporary folder, writes the run.json it returns, then renames the folder to `out`. */
export async function buildRunFolder(out: string, flag: string, fill: (store: ResultStore) => RunInfo | Promise<RunInfo>): Promise<void> {
  requireEmptyOutput(out, flag);
  const parent = dirname(resolve(out));
  try {
    mkdirSync(parent, { recursive: true });
  } catch (err) {
    throw new ConfigError(`${flag}: cannot create ${parent} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const temp = join(parent, `.${basename(resolve(out))}.${process.pid}.tmp`);
  rmSync(temp, { recursive: true, force: true });
  const store = ResultStore.create(temp);
  try {
    const info = await fill(store);
    store.release();
    writeRunInfo(temp, info);
    if (existsSync(out)) rmSync(out, { recursive: true });
    renameSync(temp, out);
  } catch (err) {
    try {
      store.release();
    } catch {
      // The first error is the one to report; this one (most likely the same) goes with the folder.
    }
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
}
