/**
 * Several run folders read at once, for `bas compare` and `bas leaderboard` (and their API
 * calls): reading a large results.jsonl is mostly JSON.parse on one core, so with runs of
 * tens of megabytes the folders are shared between the main thread and reading threads
 * (read-worker.ts), each taking the next folder not yet taken, and each read is handed back
 * in the order given, as if read one after the other: its warnings are told then, an error
 * is thrown then (a thread's failed read is done again on the main thread, so the error is
 * the very one it gives), and nothing after a failed read is told.
 *
 * A thread's answer is the same RunData `readRun` gives but for its summary builder, which
 * stays in the thread: its per-task means come instead (FixedTaskMeans), which is all that
 * pairing runs reads. Small inputs, one core, or a bas run from its sources (no compiled
 * read-worker.js) read on the main thread alone.
 */
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RESULTS_FILE } from '../runfile/files.js';
import type { Warn } from '../runfile/read.js';
import { FixedTaskMeans, type TaskMeanColumns } from '../summary/summary.js';
import { readRun, registerReadBackKey, type RunData } from './read.js';

/** Below this many bytes of results in all, a thread costs more than it saves (it starts in some 50 ms). */
const MIN_BYTES = 16 << 20;
const MAX_THREADS = 7;
const WORKER = new URL('./read-worker.js', import.meta.url);

/** One folder's read: its data, or the error reading it on this thread gave; `redo` when a thread's read failed. */
type Settled =
  { data: RunData; warnings: string[] } | { error: unknown; warnings: string[] } | { redo: true; warnings: string[] };

/** What a reading thread answers (read-worker.ts). */
type Answer =
  { ok: true; data: Omit<RunData, 'builder'>; columns: TaskMeanColumns; warnings: string[] } | { ok: false };

function resultsBytes(dir: string): number {
  try {
    const st = statSync(dir);
    return st.isFile() ? st.size : statSync(join(dir, RESULTS_FILE)).size;
  } catch {
    return 0;
  }
}

/** How many reading threads to start for `dirs` beside the main thread: none for small inputs. */
function threadsFor(dirs: readonly string[], minBytes: number): number {
  if (dirs.length < 2 || !existsSync(fileURLToPath(WORKER))) return 0;
  const bytes = dirs.reduce((sum, d) => sum + resultsBytes(d), 0);
  if (bytes < minBytes) return 0;
  return Math.max(0, Math.min(availableParallelism() - 1, dirs.length - 1, MAX_THREADS));
}

/** Reads `dir` on this thread, keeping its warnings and its error for the turn of its folder. */
async function readHere(dir: string): Promise<Settled> {
  const warnings: string[] = [];
  try {
    return { data: await readRun(dir, (m) => warnings.push(m)), warnings };
  } catch (error) {
    return { error, warnings };
  }
}

/** A reading thread; once it has failed (an error, an exit), every folder asked of it is redone on the main thread. */
class ReadingThread {
  private readonly worker = new Worker(WORKER);
  private dead = false;

  constructor() {
    const die = (): void => {
      this.dead = true;
    };
    this.worker.on('error', die).on('exit', die);
  }

  /** Asks the thread to read `dir`. */
  read(dir: string): Promise<Settled> {
    if (this.dead) return Promise.resolve({ redo: true, warnings: [] });
    const worker = this.worker;
    return new Promise((resolve) => {
      const done = (a: Answer): void => {
        worker.off('error', failed).off('exit', failed);
        if (!a.ok) return resolve({ redo: true, warnings: [] });
        registerReadBackKey(a.data.run);
        resolve({ data: { ...a.data, builder: new FixedTaskMeans(a.columns) }, warnings: a.warnings });
      };
      const failed = (): void => {
        worker.off('message', done);
        resolve({ redo: true, warnings: [] });
      };
      worker.once('message', done).once('error', failed).once('exit', failed);
      worker.postMessage(dir);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Every folder of `dirs` read by whichever thread takes it first; resolves once all are read. */
async function readAll(dirs: readonly string[], threads: number): Promise<Settled[]> {
  const settled: Settled[] = new Array<Settled>(dirs.length);
  let next = 0;
  const take = (): number | null => (next < dirs.length ? next++ : null);
  const lane = async (read: (dir: string) => Promise<Settled>): Promise<void> => {
    for (let i = take(); i !== null; i = take()) settled[i] = await read(dirs[i]!);
  };
  const workers = Array.from({ length: threads }, () => new ReadingThread());
  try {
    await Promise.all([lane(readHere), ...workers.map((w) => lane((dir) => w.read(dir)))]);
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
  return settled;
}

/**
 * The folders of `dirs`, read ahead (on several threads when they are large), each handed
 * back by its function in turn: `warn` hears its warnings, then it resolves to its RunData
 * or rejects with its error, as `readRun(dir, warn)` would.
 */
export async function readRunsAhead(
  dirs: readonly string[],
  minBytes = MIN_BYTES,
): Promise<Array<(warn: Warn) => Promise<RunData>>> {
  const threads = threadsFor(dirs, minBytes);
  if (threads === 0) return dirs.map((dir) => (warn: Warn) => readRun(dir, warn));
  const settled = await readAll(dirs, threads);
  return dirs.map((dir, i) => async (warn: Warn) => {
    const s = settled[i]!;
    for (const m of s.warnings) warn(m);
    if ('redo' in s) return readRun(dir, warn);
    if ('error' in s) throw s.error;
    return s.data;
  });
}
