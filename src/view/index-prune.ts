/**
 * Keeps the folder of kept indexes (index-store.ts) from growing without end. Its files come in
 * entries, one per results file, named by a hash of the file's path: `H.idx` (the index),
 * `H.report.json` (the run's report) and, while one is written, io's temporary file beside it
 * (`.H.idx.*.tmp`, atomic-file.ts). Pruning drops:
 *
 * - an entry whose results file is gone (its run folder deleted or moved);
 * - an index whose file changed (another file at the path, cut below what was read, other
 *   bytes where the index read), and a report whose file is not the size and time it was made
 *   at: neither would be used again;
 * - an index or report that cannot be read, and a `.tmp` left by a write an hour old or more;
 * - then, while the entries left hold more than the cap, the least recently used (an entry's
 *   files are touched when it is used).
 *
 * Only files named as this store names them are looked at; anything else in the folder is left
 * alone. Nothing here ever throws: a file that cannot be read or removed is left as it is.
 */
import { lstat, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tempTarget } from '../io/atomic-file.js';
import { readSmallFile } from '../io/jsonl.js';

/** A store file: its entry's hash, and what it is. */
const NAME = /^([0-9a-f]{40})\.(idx|report\.json)$/;
/** A kept report is a few KB; past this a file named as one is not read (index-store.ts's bound). */
const MAX_KEPT_JSON_BYTES = 16 * 1024 * 1024;
/** A `.tmp` this old is a write that did not finish (a killed server), not one going on. */
const TMP_AGE_MS = 60 * 60 * 1000;

/** What a kept file describes: its results file, and whether it still fits that file. */
export interface EntryCheck {
  /** The results file an index names, and whether the file is still the one it read. */
  index(path: string): Promise<{ results: string; fits: boolean } | null>;
  /** Whether the results file a report names is the file it was made of; false when it cannot say. */
  report(path: string): Promise<boolean>;
}

interface StoreFile {
  name: string;
  kind: 'idx' | 'report.json' | 'tmp';
  bytes: number;
  mtimeMs: number;
}

/** What a pruning did: how many files it removed. */
export interface Pruned {
  removed: number;
}

/** The store's files, grouped by entry. */
async function entries(dir: string): Promise<Map<string, StoreFile[]>> {
  const groups = new Map<string, StoreFile[]>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return groups;
  }
  for (const name of names) {
    const target = tempTarget(name);
    const m = NAME.exec(target ?? name);
    if (!m) continue;
    // A link or a special file is none of the store's own files: left alone, never read.
    const st = await lstat(join(dir, name)).catch(() => null);
    if (!st?.isFile()) continue;
    const kind = target !== null ? 'tmp' : (m[2] as 'idx' | 'report.json');
    const group = groups.get(m[1]!) ?? [];
    group.push({ name, kind, bytes: st.size, mtimeMs: st.mtimeMs });
    groups.set(m[1]!, group);
  }
  return groups;
}

/** The files of one entry that are of no more use (see the header). */
async function useless(dir: string, files: StoreFile[], check: EntryCheck, now: number): Promise<StoreFile[]> {
  const out = files.filter((f) => f.kind === 'tmp' && now - f.mtimeMs >= TMP_AGE_MS);
  const idx = files.find((f) => f.kind === 'idx');
  const report = files.find((f) => f.kind === 'report.json');
  const i = idx ? await check.index(join(dir, idx.name)) : null;
  if (idx && (i === null || !i.fits)) out.push(idx);
  if (report && !(await check.report(join(dir, report.name)))) out.push(report);
  if (i !== null && (await stat(i.results).catch(() => null)) === null) out.push(...files.filter((f) => f !== idx));
  return [...new Set(out)];
}

/** Removes `files`; returns the bytes they took (those that could not be removed not counted). */
async function remove(dir: string, files: StoreFile[]): Promise<number> {
  let bytes = 0;
  for (const f of files) {
    try {
      await rm(join(dir, f.name));
      bytes += f.bytes;
    } catch {
      // Left as it is.
    }
  }
  return bytes;
}

/**
 * Prunes the store folder `dir`: with `check`, what is of no more use, then the least recently
 * used entries past `maxBytes` (never the entry `keep`, the one just written).
 */
export async function pruneStore(
  dir: string,
  maxBytes: number,
  check: EntryCheck | null,
  keep: string | null = null,
  now = Date.now(),
): Promise<Pruned> {
  const groups = await entries(dir);
  const result: Pruned = { removed: 0 };
  for (const [hash, files] of groups) {
    const gone = check ? await useless(dir, files, check, now) : [];
    result.removed += gone.length;
    await remove(dir, gone);
    const left = files.filter((f) => !gone.includes(f));
    if (left.length > 0) groups.set(hash, left);
    else groups.delete(hash);
  }
  const used = (files: StoreFile[]) => Math.max(...files.map((f) => f.mtimeMs));
  const size = (files: StoreFile[]) => files.reduce((a, f) => a + f.bytes, 0);
  const byUse = [...groups].sort((a, b) => used(a[1]) - used(b[1]));
  let total = byUse.reduce((a, [, files]) => a + size(files), 0);
  for (const [hash, files] of byUse) {
    if (total <= maxBytes) break;
    if (hash === keep) continue;
    result.removed += files.length;
    total -= await remove(dir, files);
  }
  return result;
}

/** A kept report's JSON, read; null when it cannot be read. */
export async function readKeptJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(readSmallFile(path, MAX_KEPT_JSON_BYTES, true)) as unknown;
  } catch {
    return null;
  }
}
