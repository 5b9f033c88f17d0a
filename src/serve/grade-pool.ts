/**
 * Grading threads for the reward server, so a batch is graded on every core while the main
 * thread reads the next request. Each thread is a lane of the GradeQueue (grade-queue.ts),
 * which sends items to a lane by a hash of their label: the samples of one prompt meet the
 * same thread, whose key cache then serves all but the first. Scores are equal to grading on
 * the main thread (same function).
 */
import { Worker } from 'node:worker_threads';
import type { Scores } from '../task/types.js';
import type { Lane } from './grade-queue.js';
import type { CacheStats } from './task-keys.js';

interface Pending {
  resolve(scores: Scores[]): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  /** Whether the thread started; one that never did is not replaced (it would fail again). */
  online: Promise<void>;
  started: boolean;
  dead: Error | null;
  pending: Map<number, Pending>;
  cache: CacheStats;
}

interface Reply {
  ready?: true;
  id: number;
  scores?: Scores[];
  cache?: CacheStats;
  error?: string;
}

/** Old-generation heap a grading thread may have beyond its share of the key cache, in MiB. */
const HEAP_ROOM_MB = 96;

/** A fixed number of grading threads, replaced if one dies. */
export class GradePool {
  private readonly slots: Slot[] = [];
  private next = 0;
  private closing = false;
  private readonly share: { keys: number; bytes: number };

  /**
   * @param size threads to start
   * @param cache keys, and bytes of keys, kept in all (each thread keeps its share)
   * @param script the compiled grade-worker.js
   */
  constructor(
    size: number,
    cache: { keys: number; bytes: number },
    private readonly script: URL,
  ) {
    this.share = { keys: Math.ceil(cache.keys / size), bytes: Math.floor(cache.bytes / size) };
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const share = this.share;
    // The thread's heap is held to its share of the cache and room to generate the largest
    // ledger (10,000 rows take some 40 MB while they are built): V8 then collects the garbage
    // of one key before it would grow the heap for the next.
    const worker = new Worker(this.script, {
      workerData: share,
      resourceLimits: { maxOldGenerationSizeMb: Math.ceil(share.bytes / 2 ** 20) + HEAP_ROOM_MB },
    });
    let started = (): void => undefined;
    let never = (_err: Error): void => undefined;
    const online = new Promise<void>((resolve, reject) => {
      started = resolve;
      never = reject;
    });
    online.catch(() => undefined);
    const slot: Slot = {
      worker,
      online,
      started: false,
      dead: null,
      pending: new Map(),
      cache: { size: 0, max: share.keys, bytes: 0, maxBytes: share.bytes, hits: 0, misses: 0 },
    };
    worker.on('message', (r: Reply) => {
      // The thread says it is ready once its module has loaded ('online' comes before that).
      if (r.ready) {
        slot.started = true;
        return started();
      }
      const p = slot.pending.get(r.id);
      if (!p) return;
      slot.pending.delete(r.id);
      if (r.cache) slot.cache = r.cache;
      if (r.scores) p.resolve(r.scores);
      else p.reject(new Error(r.error ?? 'a grading thread gave no scores'));
    });
    const fail = (err: Error): void => {
      slot.dead ??= err;
      never(err);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      const at = this.slots.indexOf(slot);
      // A thread that died takes its cache with it; a fresh one takes its place, unless it
      // never started, where a fresh one would fail the same way, and so on for ever.
      if (!this.closing && at >= 0 && slot.started) this.slots[at] = this.spawn();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`a grading thread exited with code ${code}`)));
    return slot;
  }

  /** Resolves once every thread has started; rejects with the first one's failure to. */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.online));
  }

  private run(slot: Slot, labels: string[], responses: string[]): Promise<Scores[]> {
    return new Promise((resolve, reject) => {
      if (slot.dead) return reject(slot.dead);
      const id = this.next++;
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, labels, responses });
    });
  }

  /** One lane per thread, for a GradeQueue: a lane grades on whichever thread holds its place now. */
  lanes(): Lane[] {
    return this.slots.map((_, k) => (labels, responses) => this.run(this.slots[k]!, labels, responses));
  }

  /** The threads' caches added up, as of their last answers. */
  cache(): CacheStats {
    const sum: CacheStats = { size: 0, max: 0, bytes: 0, maxBytes: 0, hits: 0, misses: 0 };
    for (const s of this.slots) for (const k of Object.keys(sum) as Array<keyof CacheStats>) sum[k] += s.cache[k];
    return sum;
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
