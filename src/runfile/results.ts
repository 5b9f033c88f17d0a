/**
 * results.jsonl: one line per finished rollout, appended as each one ends.
 *
 * Each line goes to the file in a single write() on a descriptor opened for appending, as
 * soon as its rollout ends, so a killed process (even `kill -9`) loses no finished rollout;
 * at worst the line being written when the process died is torn, and resuming cuts it off.
 *
 * A pair (index, rollout) may appear on several lines after resumes (an errored rollout is
 * re-run and its new line appended): the LAST line for a pair is the one that counts.
 */
import { stringifyRedacted } from '../io/secrets.js';
import { closeSync, existsSync, fstatSync, ftruncateSync, mkdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { BadRecordError, ConfigError, fileError, FatalRunError, fileErrorMessage } from '../errors/index.js';
import { writeFully } from '../io/atomic-file.js';
import { openNoFollow } from '../io/open-file.js';
import { readFullyFd } from '../io/read-fully.js';
import { FolderLock } from './lock.js';
import type { RolloutRecord } from './record.js';
import { forEachRecord, judgeLine } from './read.js';
import { outsideRun, runBounds } from './winners.js';
import { MAX_LINE_CHARS } from '../io/jsonl.js';
import { readRunInfo } from './run-info.js';
import { RESULTS_FILE, RUN_FILE } from './files.js';
import { shellWord } from '../display/format.js';

/**
 * Appends rollout records to a run folder's results.jsonl. Lines are written whole, with
 * one write for all the records of one turn of the event loop (scoring runs in slices of
 * about a millisecond), or sooner when 64 KB have gathered: a record reaches the file at
 * most a slice after its rollout ended, at a fraction of the system calls. A process killed
 * within that slice loses the slice's records; `--resume` runs them again.
 */
export class ResultStore {
  private fd: number | null;
  private pending = '';
  private flushQueued = false;
  private failure: Error | null = null;
  private failureReported = false;

  private constructor(
    readonly dir: string,
    private readonly lock: FolderLock,
    flags: 'a' | 'w' = 'a',
  ) {
    const file = join(dir, RESULTS_FILE);
    try {
      // Never through a link: a results.jsonl that points elsewhere would have records (and,
      // on a resume, the cut of a torn line) land outside the folder.
      this.fd = openNoFollow(file, flags);
    } catch (err) {
      lock.release();
      if (err instanceof ConfigError) throw err;
      throw fileError('write', file, err);
    }
  }

  /** A new run folder; refuses one that already holds results. */
  static create(dir: string): ResultStore {
    makeFolder(dir);
    // Locked before looking: two runs started on one new folder at once cannot both find it
    // empty and then share it (the second waits for no lock and sees the first's files).
    const lock = FolderLock.acquire(dir);
    if (existsSync(join(dir, RESULTS_FILE)) || existsSync(join(dir, RUN_FILE))) {
      lock.release();
      throw new ConfigError(
        `${dir} already holds a run: continue it with --resume ${shellWord(dir)}, or choose another --output`,
      );
    }
    return new ResultStore(dir, lock);
  }

  /**
   * A run folder for a new run: an empty or new folder, or one whose earlier run recorded no
   * scored rollout (it failed at the start: a refused key, an unknown model, a full disk),
   * which is started again from scratch. A folder holding any scored rollout is refused.
   */
  static async start(dir: string): Promise<{ store: ResultStore; restarted: boolean }> {
    const results = join(dir, RESULTS_FILE);
    const held = existsSync(results) || existsSync(join(dir, RUN_FILE));
    if (!held) return { store: ResultStore.create(dir), restarted: false };
    // Locked before looking, so a run starting meanwhile cannot be replaced.
    const lock = FolderLock.acquire(dir);
    try {
      const held = await heldRun(dir);
      if (held === 'scored')
        throw new ConfigError(
          `${dir} already holds a run: continue it with --resume ${shellWord(dir)}, or choose another --output`,
        );
      if (held !== 'failed-start')
        throw new ConfigError(
          `${dir} holds files bas did not write (${held}); they are left as they are: choose another --output`,
        );
    } catch (err) {
      lock.release();
      throw err;
    }
    return { store: new ResultStore(dir, lock, 'w'), restarted: true };
  }

  /** An existing run folder, for appending after `repairTail`. */
  static reopen(dir: string): ResultStore {
    const lock = FolderLock.acquire(dir);
    try {
      repairTail(join(dir, RESULTS_FILE));
    } catch (err) {
      lock.release();
      throw err;
    }
    return new ResultStore(dir, lock);
  }

  /** Queues one line. Lines reach the O_APPEND descriptor whole, so a crash can tear at most the last. */
  append(record: RolloutRecord): void {
    if (this.failure) {
      this.failureReported = true;
      throw this.failure;
    }
    if (this.fd === null) throw new Error('result store is closed');
    this.pending += `${stringifyRedacted(record)}\n`;
    if (this.pending.length >= FLUSH_AT) this.flush();
    else if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(this.flushQueuedLines);
    }
  }

  private readonly flushQueuedLines = (): void => {
    this.flushQueued = false;
    try {
      this.flush();
    } catch (err) {
      // Off the caller's stack: kept, and thrown by the next append, or by close() if no
      // append came to report it.
      this.failure = err as Error;
    }
  };

  /** Writes what is queued, all of it: a short write (a full disk, a file size limit) is retried, then an error. */
  flush(): void {
    if (this.fd === null || this.pending === '') return;
    const bytes = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    try {
      writeFully(this.fd, bytes);
    } catch (err) {
      throw new FatalRunError(fileErrorMessage('write', join(this.dir, RESULTS_FILE), err), { cause: err });
    }
  }

  /** Writes what is queued and closes the file; the folder stays locked until `release()`. */
  close(): void {
    if (this.fd === null) return;
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
      this.fd = null;
    }
    if (this.failure && !this.failureReported) throw this.failure;
  }

  /** Closes the file if still open and gives the folder up for another process. */
  release(): void {
    try {
      this.close();
    } finally {
      this.lock.release();
    }
  }
}

/** Queued lines are written once they reach this many characters, whatever the turn. */
const FLUSH_AT = 65_536;

/**
 * Ends the file at a line boundary again before a resume appends to it, by the reader's own
 * rule for its last line (`judgeLine`): what follows the last newline is cut when it is torn
 * (not JSON: the process died writing it), and given its newline when it is a whole record
 * (the process died just before the newline). A last line that is damage, with its newline or
 * without, is refused: appending after it would bury it in the middle of the file, which every
 * later reader refuses. Returns whether the file was changed.
 */
export function repairTail(file: string): boolean {
  let fd: number;
  try {
    fd = openNoFollow(file, 'r+');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    if (err instanceof ConfigError) throw err;
    throw fileError('write', file, err);
  }
  try {
    const size = fstatSync(fd).size;
    const keep = lastNewlineEnd(fd, size);
    if (keep === size) return false;
    if (size - keep > MAX_LINE_CHARS * 4)
      throw new BadRecordError(
        `${file}: its last line is longer than ${MAX_LINE_CHARS} characters: the file is damaged`,
        0,
      );
    const tail = Buffer.alloc(size - keep);
    if (readFullyFd(fd, tail, keep) < tail.length)
      throw Object.assign(new Error('the file ended early'), { code: 'EIO' });
    const text = tail.toString('utf8');
    const verdict = judgeLine(text.endsWith('\r') ? text.slice(0, -1) : text, false);
    if (text.trim() === '' || verdict === 'torn') {
      ftruncateSync(fd, keep);
      return true;
    }
    if ('damaged' in verdict)
      throw new BadRecordError(`${file}: its last line ${verdict.damaged}; remove that line to continue the run`, 0);
    if (writeSync(fd, Buffer.from('\n'), 0, 1, size) !== 1)
      throw Object.assign(new Error('the write made no progress'), { code: 'EIO' });
    return true;
  } finally {
    closeSync(fd);
  }
}

/** Where the file's last line begins: just past its last newline (0 when it has none). */
function lastNewlineEnd(fd: number, size: number): number {
  const chunk = Buffer.alloc(Math.min(size, 1 << 16));
  for (let end = size; end > 0;) {
    const from = Math.max(0, end - chunk.length);
    const got = readFullyFd(fd, chunk.subarray(0, end - from), from);
    const nl = chunk.subarray(0, got).lastIndexOf(0x0a);
    if (nl >= 0) return from + nl + 1;
    end = from;
  }
  return 0;
}

function makeFolder(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw fileError('create output folder', dir, err);
  }
}

/**
 * What an existing folder holds: a run with a scored rollout, a bas run that failed at its
 * start (which may be started again), or else the reason its files are not a bas run's. Only
 * the last line of results.jsonl may be torn; any other line that is not a bas record means
 * the file is someone else's, and starting again would truncate it.
 */
export async function heldRun(dir: string): Promise<'scored' | 'failed-start' | string> {
  const runFile = await readRunInfo(join(dir, RUN_FILE)).catch((err: unknown) => {
    if (err instanceof ConfigError) return undefined;
    throw err;
  });
  if (runFile === undefined || (runFile !== null && (runFile.model === undefined || runFile.n === undefined))) {
    return `${RUN_FILE} is not a bas run file`;
  }
  // Batches sent to a provider are a run in flight, whatever results.jsonl holds yet.
  const sent = (runFile as { batch?: { batches?: unknown } } | null)?.batch?.batches;
  if (Array.isArray(sent) && sent.length > 0) return 'scored';
  const file = join(dir, RESULTS_FILE);
  if (!existsSync(file)) return 'failed-start';
  let scored = false;
  try {
    // The reader's torn-last-line rule: only the last line may be torn.
    await forEachRecord(
      file,
      (r) => !(scored = r.error === null),
      () => {},
    );
  } catch (err) {
    if (err instanceof BadRecordError) return `${RESULTS_FILE} line ${err.line} is not a bas record`;
    throw err;
  }
  return scored ? 'scored' : 'failed-start';
}

/**
 * The lines behind the cut-off rule (`cutOffRun`): whether every line seen is an error whose
 * reply was cut off by the token limit (`finish_reason` "length"), and there was one. A reader
 * that reads the lines anyway (a resume's, engine/resume-read.ts) counts them here, so the rule
 * needs no read of its own.
 */
export class CutOffTally {
  private cut = 0;
  private other = 0;

  /** Counts one line (null: one that cannot belong to the run, no cut-off reply of it); false once one is not cut off. */
  see(r: RolloutRecord | null): boolean {
    if (r !== null && r.error !== null && r.finish_reason === 'length') this.cut++;
    else this.other++;
    return this.other === 0;
  }

  /** The rule, with run.json's status: the run `failed` (the first-contact rule stopped it) and every line was cut off. */
  cutOff(status: unknown): boolean {
    return status === 'failed' && this.cut > 0 && this.other === 0;
  }
}

/**
 * Whether the run in `dir` is one the first-contact rule stopped because every reply was cut
 * off by the token limit: run.json says `failed`, and results.jsonl holds rollouts, none of
 * them scored, each cut (`finish_reason` "length"). A sweep records such a point as a point
 * where the model scores 0 at that budget, and does not run it again (engine/sweep.ts).
 * Anything unreadable is not such a run (the run itself reports it).
 */
export async function cutOffRun(dir: string): Promise<boolean> {
  try {
    const info = await readRunInfo(join(dir, RUN_FILE));
    if (info?.status !== 'failed' || !existsSync(join(dir, RESULTS_FILE))) return false;
    const bounds = runBounds(info);
    const tally = new CutOffTally();
    await forEachRecord(
      join(dir, RESULTS_FILE),
      (r) => tally.see(bounds !== null && outsideRun(r, bounds) !== null ? null : r),
      () => {},
    );
    return tally.cutOff(info.status);
  } catch {
    return false;
  }
}
