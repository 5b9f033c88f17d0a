/**
 * Finds one rollout's line in a results file without its index, in a few positioned reads.
 * A run hands out its pairs in order (task by task, each task's rollouts in turn) and at most
 * `concurrency` are in flight, so its records are written in nearly that order: a line is never
 * more than `concurrency` pairs ahead of where it would be in order, and only a slow rollout
 * (a retry, a long reply) falls behind. So a binary search over byte offsets (read a few lines
 * at an offset, take the furthest pair among them, narrow) comes to the part of the file where
 * the pair sits, and a bounded scan around it finds its line.
 *
 * What is found is only a candidate: the caller (catalog.ts) uses it only for a run not merged,
 * where a pair has one line (a resumed run's completed lines are never run again), and only
 * past where its index has read (before that the index knows every line). A pair not in the scanned part (a laggard written
 * far later, a file not in order) is not found, and the caller waits for the index as before.
 * Nothing is written; the file is only read.
 */
import { closeSync, fstatSync } from 'node:fs';
import { readAtFd, readFully, type ReadAt } from '../io/read-fully.js';
import { judgeLine, openRunFile } from '../runfile/read.js';
import type { RolloutRecord } from '../runfile/record.js';
import type { RunFile } from '../runfile/run-info.js';

/** Bytes read at each step of the search: some dozens of lines. */
const PROBE_BYTES = 64 * 1024;
/** A probe that finds no whole line reads on up to this much before giving up (a file of huge lines). */
const MAX_PROBE_BYTES = 1024 * 1024;
/** Whole lines a probe parses at most. */
const PROBE_LINES = 16;
/** The scan around where the search ends reads at most this many bytes. */
const MAX_SCAN_BYTES = 8 * 1024 * 1024;
/** Pairs either side of the search's end that the scan covers, besides twice the run's concurrency. */
const SCAN_PAIRS = 256;

/** What a search is for and where it may look. */
export interface SeekPlan {
  index: number;
  rollout: number;
  /** Rollouts per task, which orders the pairs (index by index, rollout by rollout). */
  rollouts: number;
  /** Requests in flight at most while the run wrote its file. */
  concurrency: number;
  /** Bytes [from, to) of the file are searched; `from` is a line's start. */
  from: number;
  to: number;
}

/** The line found: its record and where it is. */
export interface SeekFound {
  record: RolloutRecord;
  offset: number;
  length: number;
}

/** What a probe found: the furthest pair among the lines it parsed, and the bytes they took. */
interface Probe {
  furthest: number;
  lines: number;
  bytes: number;
}

/** A record, or null when the line is not one. */
function recordOf(buf: Buffer, from: number, to: number): RolloutRecord | null {
  const j = judgeLine(buf.toString('utf8', from, to), true);
  return j === 'torn' || 'damaged' in j ? null : j;
}

/**
 * Seeks rollouts in one file, counting its reads. `order` gives a pair's place in the run's
 * order (index by index, rollout by rollout).
 */
export class Seeker {
  reads = 0;

  constructor(
    private readonly readAt: ReadAt,
    private readonly plan: SeekPlan,
  ) {}

  private order(r: { index: number; rollout?: number }): number {
    return r.index * this.plan.rollouts + (r.rollout ?? 0);
  }

  private read(at: number, bytes: number): Buffer {
    this.reads++;
    const buf = Buffer.allocUnsafe(Math.max(0, Math.min(bytes, this.plan.to - at)));
    return buf.subarray(0, readFully(this.readAt, buf, at));
  }

  /** The first lines wholly past `at` (the line `at` falls in is partial unless `at` is `from`). */
  private probe(at: number): Probe | null {
    for (let bytes = PROBE_BYTES; bytes <= MAX_PROBE_BYTES; bytes *= 4) {
      const buf = this.read(at, bytes);
      const start = at === this.plan.from ? 0 : buf.indexOf(0x0a) + 1;
      let from = start;
      let furthest = -1;
      let lines = 0;
      for (let nl = buf.indexOf(0x0a, from); (start > 0 || at === this.plan.from) && nl >= 0 && lines < PROBE_LINES;) {
        const r = recordOf(buf, from, nl);
        if (r) furthest = Math.max(furthest, this.order(r));
        lines++;
        from = nl + 1;
        nl = buf.indexOf(0x0a, from);
      }
      if (furthest >= 0) return { furthest, lines, bytes: from - start };
      if (buf.length < bytes) return null; // the end of the file, and no record
    }
    return null;
  }

  /** The part of the file the pair is in, by a binary search on offsets; null when a probe finds no record. */
  private narrow(): { lo: number; hi: number; lineBytes: number } | null {
    const target = this.order(this.plan);
    let lo = this.plan.from;
    let hi = this.plan.to;
    let seen = { lines: 0, bytes: 0 };
    while (hi - lo > PROBE_BYTES) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const p = this.probe(mid);
      if (p === null) return null;
      seen = { lines: seen.lines + p.lines, bytes: seen.bytes + p.bytes };
      if (p.furthest < target) lo = mid;
      else hi = mid;
    }
    return { lo, hi, lineBytes: seen.lines > 0 ? seen.bytes / seen.lines : PROBE_BYTES / PROBE_LINES };
  }

  /** The pair's line, or null when it is not found near where the search ends (or found twice). */
  find(): SeekFound | null {
    if (this.plan.to <= this.plan.from) return null;
    const near = this.narrow();
    if (near === null) return null;
    const pairs = 2 * this.plan.concurrency + SCAN_PAIRS;
    const reach = Math.min(MAX_SCAN_BYTES / 2, Math.ceil(pairs * near.lineBytes));
    const start = Math.max(this.plan.from, near.lo - reach);
    const buf = this.read(start, Math.min(MAX_SCAN_BYTES, near.hi + reach - start));
    return this.scan(buf, start);
  }

  /** The one line of `buf` (which starts at byte `start`) that holds the pair. */
  private scan(buf: Buffer, start: number): SeekFound | null {
    const needle = Buffer.from(`"index":${this.plan.index}`);
    let found: SeekFound | null = null;
    for (let hit = buf.indexOf(needle); hit >= 0; hit = buf.indexOf(needle, hit + needle.length)) {
      const next = buf[hit + needle.length];
      if (next !== undefined && next >= 0x30 && next <= 0x39) continue; // a longer number
      const from = buf.lastIndexOf(0x0a, hit) + 1;
      const nl = buf.indexOf(0x0a, hit);
      // A line cut by the scan's edges is not judged.
      if (nl < 0 || (from === 0 && start !== this.plan.from)) continue;
      const r = recordOf(buf, from, nl);
      if (r === null || r.index !== this.plan.index || (r.rollout ?? 0) !== this.plan.rollout) continue;
      if (found !== null && found.offset !== start + from) return null; // two lines of one pair: not for a guess
      found = { record: r, offset: start + from, length: nl - from };
    }
    return found;
  }
}

/**
 * Seeks one pair in a results file (see Seeker). The reads are synchronous: a few small ones
 * and one scan of at most a few MB, so the answer never waits behind the background reads of
 * the same server.
 */
export function seekRecord(path: string, plan: Omit<SeekPlan, 'to'>): SeekFound | null {
  const fd = openRunFile(path, 'r');
  try {
    const to = fstatSync(fd).size;
    return new Seeker(readAtFd(fd), { ...plan, to }).find();
  } finally {
    closeSync(fd);
  }
}

/** Concurrency assumed of a run.json that does not say. */
const DEFAULT_CONCURRENCY = 64;

/** What a seek may assume of a run's file. */
export interface SeekTerms {
  /** Requests in flight at most while it was written. */
  concurrency: number;
  /**
   * Resumed: each session appended its own part, in order, after the last. A resume runs
   * again only the pairs without a completed line, so a completed line found is still the
   * pair's winner; an errored one may have been run again later and is not taken.
   */
  resumed: boolean;
}

/**
 * Whether a seek may be used on a run's file, and on what terms: a run with run.json, not
 * merged (a merge writes its inputs one after another) and not scored from a list of tasks
 * (whose order is the list's); null when not.
 */
export function seekTerms(info: RunFile | null): SeekTerms | null {
  if (info === null || typeof info.n !== 'number') return null;
  if (info.merged_from !== undefined || Array.isArray(info.indices)) return null;
  const sessions = Array.isArray(info.sessions) ? info.sessions.length : 1;
  const resumes = Array.isArray(info.resumed_at) ? info.resumed_at.length : 0;
  const pace = info.pace as { max?: unknown } | undefined;
  const counts = [info.concurrency, pace?.max].filter((c): c is number => typeof c === 'number' && c >= 1);
  return {
    concurrency: counts.length > 0 ? Math.max(...counts) : DEFAULT_CONCURRENCY,
    resumed: sessions > 1 || resumes > 0,
  };
}
