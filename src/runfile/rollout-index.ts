/**
 * What a reader of a run folder needs of its results file besides the summary: each winning
 * rollout's place in the file and the few facts the viewer's filters ask, kept by
 * rollout-facts.ts in typed columns of about 30 bytes a line, so a rollout is read back by its
 * position with one positioned read of its own bytes. A run of 100,000 rollouts is read in well
 * under a second and takes some 3 MB here, however long its replies are (docs/performance.md).
 *
 * The file is read once, in chunks, never whole, and only from where the last read stopped as
 * it grows (a run still going appends). Each line is judged by the one rule of the run file
 * reader (`judgeLine`): a torn last line, without its newline, is left for the next read; a
 * damaged line is counted and named, and the rest is indexed all the same. The last line of
 * each (task, rollout) pair wins, as everywhere else (winners.ts); a record that cannot belong
 * to the run is set aside. The file is opened read-only, never through a link, never written,
 * and the index lives only in memory.
 */
import type { FileHandle } from 'node:fs/promises';
import { resultsPath } from './files.js';
import { judgeLine, openRunFileHandle } from './read.js';
import type { RolloutRecord } from './record.js';
import { RolloutFacts, type RolloutFilter } from './rollout-facts.js';
import type { RunBounds } from './winners.js';
import type { ListRow } from '../display/list.js';

/** Bytes read at a time. */
const CHUNK = 256 * 1024;
/** A line longer than this is not a record bas wrote (the reader's own bound is the same order). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;
/** Damaged lines named one by one; past it they are only counted. */
const MAX_DAMAGE_NAMED = 20;

/** A damaged line: its number and why. */
export interface Damage {
  line: number;
  reason: string;
}

/** What `follow` hands each record of the run: its line number, and whether it replaced an earlier line of its pair. */
export type LineFollower = (r: RolloutRecord, line: number, replaces: boolean) => void;

export class RolloutIndex {
  private facts: RolloutFacts;
  /** Where the next unread line starts. */
  private scanned = 0;
  /** Lines read so far (1-based numbers, blank lines counted, as the reader counts them). */
  private lines = 0;
  /** The last record read had no newline after it: a newline that comes later belongs to it. */
  private pendingNewline = false;
  /** The file's identity when reading began, to notice a file replaced or cut. */
  private ino = -1;
  private refreshing: Promise<void> | null = null;
  /** The file's size when the current (or last) read began: how far this read is going. */
  target = 0;
  /** Records set aside. */
  setAside = 0;
  damaged = 0;
  readonly damage: Damage[] = [];
  /** The first record set aside: its line and why (the report's note names it). */
  firstSetAside: { line: number; reason: string } | null = null;
  /** Whether the file ends in a line without its newline that is not a record yet. */
  torn = false;
  /** Sees each record of the run the first read indexes (`follow`). */
  private follower: LineFollower | null = null;
  /** The file's size when the current (or last) read began, whatever `target` says since. */
  private readTo = 0;

  /** The results file read. */
  readonly path: string;

  /** The index of the results file of run folder `dir`, before any read; `bounds`: what can belong to the run. */
  constructor(
    dir: string,
    private readonly bounds: RunBounds | null,
  ) {
    this.path = resultsPath(dir);
    this.facts = new RolloutFacts(bounds);
  }

  /** Winning rollouts (pairs). */
  get rollouts(): number {
    return this.facts.rollouts;
  }

  /** Bytes of the file indexed so far. */
  get indexedBytes(): number {
    return this.scanned;
  }

  /** Whether a read of the file is going on. */
  get reading(): boolean {
    return this.refreshing !== null;
  }

  /** Memory the index holds, roughly, in bytes. */
  memoryBytes(): number {
    return this.facts.bytes();
  }

  /** Reads what the file gained since the last call (all of it the first time); one read at a time. */
  refresh(): Promise<void> {
    this.refreshing ??= this.readNew().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /**
   * Starts the first read of the file, handing `see` each record of the run as it is indexed, in
   * file order, with whether it replaced an earlier line of its pair (as winners.ts's first pass
   * does): a reader that needs every record too (the viewer's summary) reads the file once, with
   * the index. Resolves when that read ends, with the size of the file it read whole (a torn last
   * line included, unindexed), or null when `see` did not see it whole (the read failed, or the
   * file was replaced or cut). Null at once when the index has read already.
   */
  follow(see: LineFollower): Promise<number | null> | null {
    if (this.refreshing !== null || this.ino !== -1) return null;
    this.follower = see;
    const seen = (): number | null => {
      const whole = this.follower === see;
      this.follower = null;
      return whole ? this.readTo : null;
    };
    return this.refresh().then(seen, () => {
      seen();
      return null;
    });
  }

  private reset(): void {
    this.follower = null;
    this.facts = new RolloutFacts(this.bounds);
    this.scanned = 0;
    this.lines = 0;
    this.pendingNewline = false;
    this.setAside = 0;
    this.firstSetAside = null;
    this.damaged = 0;
    this.damage.length = 0;
    this.torn = false;
  }

  private async readNew(): Promise<void> {
    // A run folder's file: a link, a FIFO or a device is refused here, before any byte is read.
    const fh = await openRunFileHandle(this.path);
    try {
      const st = await fh.stat();
      if (st.ino !== this.ino || st.size < this.scanned) {
        // Another file, or one cut below what was read: read it again from the start.
        if (this.ino !== -1) this.reset();
        this.ino = st.ino;
      }
      this.target = st.size;
      this.readTo = st.size;
      if (st.size <= this.scanned) return;
      const tail = await this.readLines(fh, st.size);
      this.readTail(tail);
    } finally {
      await fh.close();
    }
  }

  /**
   * Indexes every whole line from where the last read stopped to `end`, in chunks; returns the
   * last line when it has no newline yet. One buffer serves the whole read: the unfinished line
   * stays at its front and the next chunk is read in behind it, searched for a newline from
   * where it starts (the line before holds none), and the buffer doubles when the line outgrows
   * it. So a line of any length costs time linear in it (a 64 MB line was copied and searched
   * again with each chunk, 27.6 s of CPU), and a file of ordinary lines is read in the same
   * few MB. Between chunks the index is whole, and usable, as far as it has read.
   */
  private async readLines(fh: FileHandle, end: number): Promise<{ bytes: Buffer; start: number } | null> {
    let pos = this.scanned;
    let buf = Buffer.allocUnsafe(CHUNK * 2);
    /** Bytes of `buf` holding the unfinished line (from byte `lineStart` of the file). */
    let held = 0;
    let lineStart = pos;
    while (pos < end) {
      const want = Math.min(CHUNK, end - pos);
      if (held + want > buf.length) {
        const bigger = Buffer.allocUnsafe(Math.max(buf.length * 2, held + want));
        buf.copy(bigger, 0, 0, held);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, held, want, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buf.subarray(0, held + bytesRead);
      const from = this.scanChunk(chunk, lineStart, held);
      held = chunk.length - from;
      lineStart += from;
      // What is left is one unfinished line: moved to the front only when lines ended before it.
      if (from > 0 && held > 0) buf.copy(buf, 0, from, from + held);
      if (held > MAX_LINE_BYTES) {
        this.lines++;
        this.noteDamage(`is longer than ${MAX_LINE_BYTES} bytes`);
        this.scanned = lineStart + held;
        lineStart = this.scanned;
        held = 0;
      }
    }
    return held > 0 ? { bytes: buf.subarray(0, held), start: lineStart } : null;
  }

  /**
   * Indexes the whole lines of `chunk` (which starts at byte `chunkStart`); returns where the
   * unfinished rest begins. Its first `searched` bytes are known to hold no newline.
   */
  private scanChunk(chunk: Buffer, chunkStart: number, searched = 0): number {
    let from = 0;
    if (this.pendingNewline && chunkStart === this.scanned && chunk.length > 0) {
      this.pendingNewline = false;
      if (chunk[0] === 0x0a) {
        from = 1;
        this.scanned = chunkStart + 1;
      }
    }
    for (let nl = chunk.indexOf(0x0a, Math.max(from, searched)); nl >= 0; nl = chunk.indexOf(0x0a, from)) {
      this.line(chunk, from, nl, chunkStart + from, true);
      from = nl + 1;
      this.scanned = chunkStart + from;
    }
    return from;
  }

  /**
   * The last line, without its newline: a whole record is kept (its newline may follow);
   * anything else is a line still being written, read again next time.
   */
  private readTail(tail: { bytes: Buffer; start: number } | null): void {
    this.torn = false;
    if (tail === null) return;
    const judged = judgeLine(tail.bytes.toString('utf8'), false);
    if (judged === 'torn' || 'damaged' in judged) this.torn = true;
    else {
      this.line(tail.bytes, 0, tail.bytes.length, tail.start, false, judged);
      this.scanned = tail.start + tail.bytes.length;
      this.pendingNewline = true;
    }
  }

  private noteDamage(reason: string): void {
    this.damaged++;
    if (this.damage.length < MAX_DAMAGE_NAMED) this.damage.push({ line: this.lines, reason });
  }

  /** Indexes the line `buf[from, to)` that starts at byte `start` of the file. */
  private line(buf: Buffer, from: number, to: number, start: number, ended: boolean, judged?: RolloutRecord): void {
    this.lines++;
    let r: RolloutRecord;
    if (judged) r = judged;
    else {
      const text = buf.toString('utf8', from, to);
      if (text.trim() === '') return;
      const j = judgeLine(text, ended);
      if (j === 'torn') return; // only without a newline, handled by the caller
      if ('damaged' in j) return this.noteDamage(j.damaged);
      r = j;
    }
    const added = this.facts.add(r, start, to - from);
    if (added.outside !== null) {
      this.setAside++;
      this.firstSetAside ??= { line: this.lines, reason: added.outside };
      return;
    }
    this.follower?.(r, this.lines, added.replaces);
  }

  /** The slots of the winning rollouts that pass `f`, in file order. */
  select(f: RolloutFilter): Uint32Array {
    return this.facts.select(f);
  }

  /** The list row of slot `s`. */
  row(s: number): ListRow {
    return this.facts.row(s);
  }

  /** The slot of the winning line of (index, rollout), or -1. */
  slotOf(index: number, rollout: number): number {
    return this.facts.slotOf(index, rollout);
  }

  /** The record at slot `s`, read back from the file with one positioned read. */
  async record(s: number): Promise<RolloutRecord> {
    const { offset, length } = this.facts.place(s);
    const buf = Buffer.allocUnsafe(length);
    const fh = await openRunFileHandle(this.path);
    try {
      await fh.read(buf, 0, length, offset);
    } finally {
      await fh.close();
    }
    const j = judgeLine(buf.toString('utf8'), true);
    if (j === 'torn' || 'damaged' in j)
      throw new Error(`${this.path}: the line at byte ${offset} changed since it was indexed`);
    return j;
  }
}
