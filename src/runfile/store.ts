/**
 * A run folder: results.jsonl, one line per finished rollout, and run.json, the run's
 * configuration, status and summary.
 *
 * Each line goes to the file in a single write() on a descriptor opened for appending, as
 * soon as its rollout ends, so a killed process (even `kill -9`) loses no finished rollout;
 * at worst the line being written when the process died is torn, and resuming cuts it off.
 * run.json is replaced atomically (write a temporary file, then rename), so a reader sees
 * either the old or the new file, never half of one.
 *
 * A pair (index, rollout) may appear on several lines after resumes (an errored rollout is
 * re-run and its new line appended): the LAST line for a pair is the one that counts.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, FatalRunError } from '../errors.js';
import { stringifyRedacted } from '../io/secrets.js';
import type { RolloutRecord } from './record.js';

export const RESULTS_FILE = 'results.jsonl';
export const RUN_FILE = 'run.json';

export type RunStatus = 'running' | 'complete' | 'interrupted' | 'failed';

/** run.json. Never holds the API key: only the name of the variable it was read from. */
export interface RunInfo {
  bas_version: string;
  /** The task generator's version (eval runs; null where tasks came from a file). */
  generator?: number | null;
  node_version: string;
  openai_version: string;
  model: string;
  /** Null for a built-in model, which talks to no endpoint. */
  base_url: string | null;
  api_key_var: string;
  task: { num_transactions: number; fault_rate: number; seed: number };
  n: number;
  rollouts: number;
  indices: number[] | null;
  shard: unknown;
  sampling: { temperature: number | null; max_tokens: number | null; reasoning_effort: string | null; extra: Record<string, unknown> };
  concurrency: number;
  timeout_s: number;
  request_timeout_s: number;
  max_retries: number;
  prices: { in: number | null; out: number | null };
  status: RunStatus;
  started_at: string;
  ended_at: string | null;
  summary: unknown;
  [extra: string]: unknown;
}

/** Writes run.json atomically: a temporary file beside it, flushed, then renamed over it. */
export function writeRunInfo(dir: string, info: RunInfo): void {
  const tmp = join(dir, `.${RUN_FILE}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, `${stringifyRedacted(info, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, join(dir, RUN_FILE));
}

export const LOCK_FILE = '.bas.lock';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else; ESRCH: gone.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a run folder for this process: two processes appending to one results file (say, a
 * resume started while the run still goes on) would each re-run the other's rollouts. The
 * lock holds our pid; one left by a process that is gone (`kill -9`) is taken over.
 */
function acquireLock(dir: string): void {
  const file = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
      throw new ConfigError(`${dir} is in use by another bas process (pid ${pid}); wait for it to end, or stop it first`);
    }
    rmSync(file, { force: true });
  }
  throw new ConfigError(`cannot lock ${dir}: another process keeps taking it`);
}

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

  private constructor(readonly dir: string) {
    this.fd = openSync(join(dir, RESULTS_FILE), 'a');
  }

  /** A new run folder; refuses one that already holds results. */
  static create(dir: string): ResultStore {
    if (existsSync(join(dir, RESULTS_FILE)) || existsSync(join(dir, RUN_FILE))) {
      throw new ConfigError(`${dir} already holds a run: continue it with --resume ${dir}, or choose another --output`);
    }
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new ConfigError(`cannot create output folder ${dir} (${(err as { code?: string }).code ?? String(err)})`);
    }
    acquireLock(dir);
    return new ResultStore(dir);
  }

  /** An existing run folder, for appending after `repairTail`. */
  static reopen(dir: string): ResultStore {
    acquireLock(dir);
    repairTail(join(dir, RESULTS_FILE));
    return new ResultStore(dir);
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
  private flush(): void {
    if (this.fd === null || this.pending === '') return;
    const bytes = Buffer.from(this.pending, 'utf8');
    this.pending = '';
    try {
      for (let done = 0; done < bytes.length; ) {
        const n = writeSync(this.fd, bytes, done, bytes.length - done);
        if (n <= 0) throw Object.assign(new Error('nothing written'), { code: 'EIO' });
        done += n;
      }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw new FatalRunError(`cannot write ${join(this.dir, RESULTS_FILE)} (${code})`);
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
      rmSync(join(this.dir, LOCK_FILE), { force: true });
    }
  }
}

/** Queued lines are written once they reach this many characters, whatever the turn. */
const FLUSH_AT = 65_536;

/**
 * Cuts a torn last line (the process died in the middle of writing it) so the file ends at
 * a line boundary again. Returns whether anything was cut.
 */
export function repairTail(file: string): boolean {
  if (!existsSync(file)) return false;
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const chunk = Buffer.alloc(Math.min(size, 1 << 16));
    let end = size;
    // Walk back to the last newline; a torn line is at most one record long.
    while (end > 0) {
      const from = Math.max(0, end - chunk.length);
      const got = readSync(fd, chunk, 0, end - from, from);
      const nl = chunk.subarray(0, got).lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = from + nl + 1;
        if (keep === size) return false;
        ftruncateSync(fd, keep);
        return true;
      }
      end = from;
    }
    ftruncateSync(fd, 0);
    return true;
  } finally {
    closeSync(fd);
  }
}
