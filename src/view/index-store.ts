/**
 * Rollout indexes kept on disk between starts of `bas view`, in a folder of the user's
 * (`--index-dir`; by default $XDG_CACHE_HOME/bas/view), never in a run folder: the viewer
 * writes nothing under the folder it serves. A results file's index is one file here, named
 * by a hash of the results file's path: a header (what the index knows of the file, and a
 * hash of the file's first and last 64 KB read) and then its columns as they are in memory.
 *
 * A saved index is used only when it still fits its file: the same file (inode), at least as
 * long as what was read, and the same bytes at the start and just before where reading
 * stopped. Then only what the file gained since is read. A file replaced, cut or rewritten is
 * read anew, and an entry that is damaged, of another version or cut short is a miss, never
 * an error: the index is then built from the file as if there were none. An entry that cannot
 * be written (a read-only home, a full disk) costs only the time to build the index again.
 * Beside each index, the run's report is kept too, under a `ReportKey` (the results file's
 * identity, size and time, run.json's, the status and the bas version): a run unchanged since
 * opens without its fold.
 * Reading an entry marks it used; the folder is pruned as the server starts and held under its
 * cap after each write (index-prune.ts).
 */
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, statSync, utimesSync } from 'node:fs';
import { stat, type FileHandle } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { writeFileAtomic } from '../io/atomic-file.js';
import { readSmallFile } from '../io/jsonl.js';
import { openNoFollowHandle } from '../io/open-file.js';
import { readFullyFd } from '../io/read-fully.js';
import { redact } from '../io/secrets.js';
import { pruneStore, readKeptJson, type EntryCheck, type Pruned } from './index-prune.js';
import type { RunReport } from '../report/run-report.js';
import { openRunFile } from '../runfile/read.js';
import { BAS_VERSION } from '../runfile/versions.js';
import type { IndexState, RolloutIndex } from './rollout-index.js';

const MAGIC = 'BASVIDX1';
/** Bumped whenever the header or the columns change shape. */
const VERSION = 1;
/** Bytes at the start of the file, and before where reading stopped, that must be the same. */
const CHECK_BYTES = 64 * 1024;
const MAX_HEADER_BYTES = 1024 * 1024;
/** A kept report is a few KB (a run's tables and notes); past this an entry is not one. */
const MAX_REPORT_BYTES = 16 * 1024 * 1024;
/** An index of fewer bytes read than this is not kept: the file reads again in well under a second. */
const MIN_KEEP_BYTES = 16 * 1024 * 1024;
/** Bytes the kept indexes and reports may take together (`--index-max-mb`'s default). */
const MAX_KEPT_BYTES = 1024 * 1024 * 1024;
/**
 * How the store's files are written: private to the user, and not flushed to disk (a flush of
 * a large index would hold the server's event loop). An entry torn by a crash is a miss: its
 * size, header and columns are checked when it is loaded, the report's key when it is read.
 */
const KEPT_FILE = { mode: 0o600, flush: false } as const;

/** While a long first read goes on, the index is kept every so often, so a restart reads on from there. */
const READING_STEP_BYTES = 256 * 1024 * 1024;

/** A run's report as the viewer shows it, kept with its list figures. */
export interface KeptReport {
  report: RunReport;
  text: string;
  figures: unknown;
}

interface Header {
  magic: string;
  version: number;
  path: string;
  /** The run's bounds the index was built with (records outside them are set aside). */
  bounds: string;
  head: string;
  tail: string;
  state: IndexState;
}

/** A hash of bytes [from, to) of an open file. */
function hashOf(fd: number, from: number, to: number): string {
  const buf = Buffer.alloc(Math.max(0, to - from));
  const got = readFullyFd(fd, buf, from);
  return createHash('sha256').update(buf.subarray(0, got)).digest('hex');
}

/** The hashes a header holds of a results file read up to `scanned`. */
function checksOf(path: string, scanned: number): { head: string; tail: string } {
  const fd = openRunFile(path, 'r');
  try {
    return {
      head: hashOf(fd, 0, Math.min(CHECK_BYTES, scanned)),
      tail: hashOf(fd, Math.max(0, scanned - CHECK_BYTES), scanned),
    };
  } finally {
    closeSync(fd);
  }
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Whether a parsed header has every field a saved index needs, of the right kind. */
function wellFormed(h: Header): boolean {
  const s = h.state as Partial<IndexState> | undefined;
  return (
    h.magic === MAGIC &&
    h.version === VERSION &&
    typeof h.path === 'string' &&
    typeof h.bounds === 'string' &&
    typeof h.head === 'string' &&
    typeof h.tail === 'string' &&
    !!s &&
    [s.ino, s.scanned, s.lines, s.rollouts, s.setAside, s.damaged, s.slots].every(isCount) &&
    typeof s.pendingNewline === 'boolean' &&
    typeof s.torn === 'boolean' &&
    Array.isArray(s.damage) &&
    s.damage.every((d) => isCount(d?.line) && typeof d.reason === 'string')
  );
}

/**
 * Whether the results file is still the one the header describes, grown or not: the file as
 * it was when it was found to fit, or null when it does not.
 */
async function fits(h: Header, path: string): Promise<FileStamp | null> {
  const st = await stat(path);
  if (st.ino !== h.state.ino || st.size < h.state.scanned) return null;
  const now = checksOf(path, h.state.scanned);
  return now.head === h.head && now.tail === h.tail ? stampOf(st) : null;
}

/**
 * An index entry the prune found to fit its file: its header, where its columns start, and the
 * entry and the results file as they were then. While neither has changed since (their stamps,
 * a stat each), loading the entry needs neither its header nor the file's bytes read again.
 */
interface Checked {
  h: Header;
  at: number;
  entry: FileStamp;
  results: FileStamp;
}

/** An entry's header, checked whole, and where its columns start; throws when there is none. */
async function readHeader(fh: FileHandle): Promise<{ h: Header; at: number }> {
  const fixed = Buffer.alloc(MAGIC.length + 4);
  await fh.read(fixed, 0, fixed.length, 0);
  const length = fixed.readUInt32LE(MAGIC.length);
  if (fixed.toString('latin1', 0, MAGIC.length) !== MAGIC || length > MAX_HEADER_BYTES)
    throw new Error('not an index entry');
  const text = Buffer.alloc(length);
  await fh.read(text, 0, length, fixed.length);
  const h = JSON.parse(text.toString('utf8')) as Header;
  if (!wellFormed(h)) throw new Error('not an index entry of this version');
  return { h, at: fixed.length + length };
}

/** A results file as a kept report knows it: any change to the file shows in one of these. */
interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

/**
 * What a kept report is of, and so what it is kept under: the results file as it was, run.json
 * as it was (`runFile`, its time and size), the run's status (a report's notes say whether a
 * bas process still holds the folder), and the bas that made it. Made by `reportKeyOf`, read
 * back by `parseReportKey`, compared by `sameReportKey`: nowhere else.
 */
export interface ReportKey {
  results: FileStamp;
  runFile: string;
  status: string;
  bas: string;
}

function stampOf(st: { ino: number; size: number; mtimeMs: number }): FileStamp {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** The key of a run's report as the run is now; null when its results file cannot be read. */
export function reportKeyOf(resultsPath: string, runFile: string, status: string): ReportKey | null {
  try {
    return { results: stampOf(statSync(resultsPath)), runFile, status, bas: BAS_VERSION };
  } catch {
    return null;
  }
}

/** Whether two keys are the same (null is the same as nothing). */
export function sameReportKey(a: ReportKey | null, b: ReportKey | null): boolean {
  return (
    a !== null &&
    b !== null &&
    sameStamp(a.results, b.results) &&
    a.runFile === b.runFile &&
    a.status === b.status &&
    a.bas === b.bas
  );
}

/** A key as a kept report holds it, checked field by field; null when it is not one. */
function parseReportKey(v: unknown): ReportKey | null {
  const k = v as Partial<ReportKey> | null;
  const r = k?.results as Partial<FileStamp> | undefined;
  if (!r || !isCount(r.ino) || !isCount(r.size) || typeof r.mtimeMs !== 'number') return null;
  if (typeof k!.runFile !== 'string' || typeof k!.status !== 'string' || typeof k!.bas !== 'string') return null;
  return { results: stampOf(r as FileStamp), runFile: k!.runFile, status: k!.status, bas: k!.bas };
}

/**
 * Whether a kept report (its JSON) is of its results file as the file is now: the file it names
 * has the identity, size and time of its key. False when it cannot say.
 */
async function reportFits(kept: unknown): Promise<boolean> {
  const k = kept as { key?: unknown; path?: unknown } | null;
  const key = parseReportKey(k?.key);
  if (key === null || typeof k?.path !== 'string') return false;
  try {
    return sameStamp(stampOf(await stat(k.path)), key.results);
  } catch {
    return false;
  }
}

/** Marks an entry used now (pruning lets the least recently used go first); never throws. */
function touch(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // Not marked: it may go a little sooner.
  }
}

export class IndexStore {
  /** Bytes read when each results file's index was last kept. */
  private readonly kept = new Map<string, number>();

  /** The entries the prune found to fit their files, by entry path, until each is loaded. */
  private readonly checked = new Map<string, Checked>();

  /** Cap-keeping after writes, one at a time. */
  private capping: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly minBytes = MIN_KEEP_BYTES,
    /** Bytes the folder may hold; past them the least recently used entries go. */
    readonly maxBytes = MAX_KEPT_BYTES,
  ) {}

  /** The entry of a results file. */
  entryOf(resultsPath: string): string {
    return join(this.dir, `${createHash('sha256').update(resolve(resultsPath)).digest('hex').slice(0, 40)}.idx`);
  }

  /**
   * Makes `index` (new, not yet read) the saved index of its file, when there is one that
   * still fits the file; false when there is none or it does not fit (a miss).
   */
  async load(index: RolloutIndex, bounds: string): Promise<boolean> {
    const entry = this.entryOf(index.path);
    let fh;
    try {
      // The folder is the user's: a link, a FIFO or a device there is a miss, never read.
      fh = await openNoFollowHandle(entry);
    } catch {
      return false;
    }
    try {
      const entryStat = await fh.stat();
      const checked = await this.checkedBefore(entry, entryStat, index.path);
      const { h, at: columnsAt } = checked ?? (await readHeader(fh));
      if (h.path !== resolve(index.path) || h.bounds !== bounds) return false;
      if (entryStat.size !== columnsAt + h.state.slots * index.slotBytes) return false;
      if (checked === null && (await fits(h, index.path)) === null) return false;
      let at = columnsAt;
      await index.restore(h.state, async (into) => {
        const { bytesRead } = await fh.read(into, 0, into.length, at);
        if (bytesRead !== into.length) throw new Error('the entry is cut short');
        at += into.length;
      });
      this.kept.set(index.path, h.state.scanned);
      touch(entry);
      return true;
    } catch {
      return false;
    } finally {
      await fh.close();
    }
  }

  /** What the prune found of an entry that fits (taken once), when neither it nor its results file has changed since. */
  private async checkedBefore(entry: string, entryStat: FileStamp, resultsPath: string): Promise<Checked | null> {
    const c = this.checked.get(entry);
    if (c === undefined) return null;
    this.checked.delete(entry);
    const results = await stat(resultsPath).catch(() => null);
    return results !== null && sameStamp(stampOf(results), c.results) && sameStamp(stampOf(entryStat), c.entry)
      ? c
      : null;
  }

  /** Where a results file's report is kept. */
  private reportOf(resultsPath: string): string {
    return this.entryOf(resultsPath).replace(/\.idx$/, '.report.json');
  }

  /** The run's report kept under `key`, or null. A damaged entry is null. */
  loadReport(resultsPath: string, key: ReportKey): KeptReport | null {
    try {
      const entry = this.reportOf(resultsPath);
      const kept = JSON.parse(readSmallFile(entry, MAX_REPORT_BYTES, true)) as { key?: unknown; value?: KeptReport };
      const v = kept.value;
      if (
        !sameReportKey(parseReportKey(kept.key), key) ||
        !v ||
        typeof v.text !== 'string' ||
        typeof v.report !== 'object' ||
        v.report === null
      )
        return null;
      touch(entry);
      return v;
    } catch {
      return null;
    }
  }

  /** Keeps a run's report under `key`, written whole then put in place (io's atomic writer); never throws. */
  saveReport(resultsPath: string, key: ReportKey, value: KeptReport): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const entry = this.reportOf(resultsPath);
      writeFileAtomic(entry, JSON.stringify({ key, path: resolve(resultsPath), value }), undefined, true, KEPT_FILE);
      this.capLater(entry);
    } catch {
      // Not kept: the next start reads the summary again.
    }
  }

  /**
   * Drops the entries of no more use (a results file gone or changed, a write left unfinished)
   * and then the least recently used past the cap (index-prune.ts); never throws. What it
   * finds of an index that still fits is kept for its load, which then checks it no more.
   */
  prune(): Promise<Pruned> {
    const check: EntryCheck = {
      index: async (entry) => {
        const fh = await openNoFollowHandle(entry).catch(() => null);
        if (fh === null) return null;
        try {
          const { h, at } = await readHeader(fh);
          const results = await fits(h, h.path).catch(() => null);
          // What was checked here is not checked again when the index is loaded (checkedBefore).
          if (results !== null) this.checked.set(entry, { h, at, entry: stampOf(await fh.stat()), results });
          return { results: h.path, fits: results !== null };
        } catch {
          return null;
        } finally {
          await fh.close();
        }
      },
      report: async (entry) => reportFits(await readKeptJson(entry)),
    };
    return pruneStore(this.dir, this.maxBytes, check);
  }

  /** Resolves once the cap is kept after the last write. */
  get capped(): Promise<void> {
    return this.capping.then(() => undefined);
  }

  /** After an entry is written: the least recently used others go while the folder is past the cap. */
  private capLater(entry: string): void {
    const hash = basename(entry).slice(0, 40);
    this.capping = this.capping.then(() => pruneStore(this.dir, this.maxBytes, null, hash)).catch(() => null);
  }

  /**
   * Called by the index after each chunk it reads (`done` false) and after each read: keeps it
   * when it has read enough more since it was last kept. Never throws.
   */
  checkpoint(index: RolloutIndex, bounds: string, done: boolean): void {
    const scanned = index.indexedBytes;
    const last = this.kept.get(index.path) ?? 0;
    if (scanned < this.minBytes || scanned <= last) return;
    const step = done ? (last === 0 ? 0 : Math.max(this.minBytes, last / 8)) : Math.max(READING_STEP_BYTES, last / 4);
    if (scanned - last < step) return;
    try {
      this.save(index, bounds);
      this.kept.set(index.path, scanned);
    } catch {
      // Not kept: the next start builds it again.
    }
  }

  /**
   * Writes the index's entry whole, then puts it in place (io's atomic writer), so an entry is
   * never half written. Synchronous: the index does not change while it is written.
   */
  private save(index: RolloutIndex, bounds: string): void {
    const state = index.state();
    const header: Header = {
      magic: MAGIC,
      version: VERSION,
      path: resolve(index.path),
      bounds,
      ...checksOf(index.path, state.scanned),
      state,
    };
    // The header's damage reasons quote lines of the file: text, so it passes the one redaction.
    const text = Buffer.from(redact(JSON.stringify(header)));
    const fixed = Buffer.alloc(MAGIC.length + 4);
    fixed.write(MAGIC, 0, 'latin1');
    fixed.writeUInt32LE(text.length, MAGIC.length);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const entry = this.entryOf(index.path);
    // The columns are taken once the temporary file is open (and tracked for a stop signal's cleanup).
    const parts = function* (): Generator<Uint8Array> {
      yield fixed;
      yield text;
      yield* index.columnBytes();
    };
    writeFileAtomic(entry, parts(), undefined, true, KEPT_FILE);
    this.capLater(entry);
  }
}
