/**
 * The facts of a run's rollouts that the viewer's filters ask (reward, outcome, fault codes
 * missed or wrongly flagged, consistency, an unparseable reply) and each line's place in
 * results.jsonl, in typed columns of about 30 bytes a line; which line wins each (task, rollout)
 * pair (the last, as winners.ts has it); and the filters and list rows made from them. Filled
 * one record at a time by rollout-index.ts as it reads the file.
 */
import type { ListRow } from '../display/list.js';
import { FAULT_CODES } from '../task/types.js';
import { pairKey, type PairKey, type RolloutRecord } from './record.js';
import { outsideRun, type RunBounds } from './winners.js';

/** Bits of `flags`. */
const FLAG = {
  errored: 1,
  /** bas_correct is 0 (a completed rollout). */
  basWrong: 2,
  /** A later line of the same pair replaced this one. */
  replaced: 4,
  /** The record cannot belong to the run (a task past n, another shard's): not one of its rollouts. */
  outside: 8,
  /** `detail.consistency.bas_consistent` is recorded ... */
  consistencyKnown: 16,
  /** ... and is 1. */
  consistent: 32,
  /** The reply could not be parsed (metrics.parsed 0). */
  unparsed: 64,
} as const;

/** A growable set of typed columns, one slot per indexed line. */
class Columns {
  size = 0;
  offset = new Float64Array(1024);
  length = new Uint32Array(1024);
  index = new Uint32Array(1024);
  rollout = new Uint16Array(1024);
  /** The record's reward as it is (a double: a row gives it to the bit, as the record's row does). */
  reward = new Float64Array(1024);
  flags = new Uint8Array(1024);
  /** Bit k: fault code FAULT_CODES[k] has a pair missed (fn > 0) / wrongly flagged (fp > 0). */
  missed = new Uint8Array(1024);
  wrong = new Uint8Array(1024);

  push(): number {
    if (this.size === this.offset.length) {
      const grow = <T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.offset = grow(this.offset);
      this.length = grow(this.length);
      this.index = grow(this.index);
      this.rollout = grow(this.rollout);
      this.reward = grow(this.reward);
      this.flags = grow(this.flags);
      this.missed = grow(this.missed);
      this.wrong = grow(this.wrong);
    }
    return this.size++;
  }

  bytes(): number {
    return this.offset.length * SLOT_BYTES;
  }
}

/** Bytes a slot takes over all the columns. */
const SLOT_BYTES = 8 + 4 + 4 + 2 + 8 + 1 + 1 + 1;

/**
 * Which slot holds each pair's winning line: a typed array over the run's pairs when they are
 * known and few (slot + 1, so a new array, zero-filled by the system, says "none" without a
 * pass over it), else a map.
 */
class PairSlots {
  private readonly dense: Int32Array | null;
  private readonly sparse = new Map<PairKey, number>();

  constructor(private readonly bounds: RunBounds | null) {
    const slots = bounds && bounds.indices === null ? bounds.n * bounds.rollouts : Infinity;
    this.dense = slots <= 1 << 24 ? new Int32Array(slots) : null;
  }

  /** Makes `slot` the pair's winner; returns the slot it replaced, or -1. */
  set(index: number, rollout: number, slot: number): number {
    if (this.dense !== null) {
      const at = index * this.bounds!.rollouts + rollout;
      const before = this.dense[at]! - 1;
      this.dense[at] = slot + 1;
      return before;
    }
    const key = pairKey(index, rollout);
    const before = this.sparse.get(key) ?? -1;
    this.sparse.set(key, slot);
    return before;
  }

  get(index: number, rollout: number): number {
    if (this.dense !== null) {
      if (this.bounds && (index >= this.bounds.n || rollout >= this.bounds.rollouts)) return -1;
      return this.dense[index * this.bounds!.rollouts + rollout]! - 1;
    }
    return this.sparse.get(pairKey(index, rollout)) ?? -1;
  }
}

/** What the filters of the rollout list ask; every field is optional (absent: no condition). */
export interface RolloutFilter {
  errored?: boolean;
  basWrong?: boolean;
  /** A fault code with a pair missed in the rollout. */
  missed?: string;
  /** A fault code wrongly flagged in the rollout. */
  wrong?: string;
  rewardMin?: number;
  rewardMax?: number;
  /** `consistent`, `inconsistent` (detail.consistency.bas_consistent 1 / 0) or `unknown`. */
  consistency?: 'consistent' | 'inconsistent' | 'unknown';
  /** Whether the reply could not be parsed (metrics.parsed 0; an errored rollout has no reply, so never). */
  unparseable?: boolean;
}

function codeBits(codes: unknown, field: 'fn' | 'fp'): number {
  if (typeof codes !== 'object' || codes === null) return 0;
  let bits = 0;
  FAULT_CODES.forEach((c, k) => {
    const counts = (codes as Record<string, Record<string, unknown> | undefined>)[c];
    if (counts && typeof counts[field] === 'number' && counts[field] > 0) bits |= 1 << k;
  });
  return bits;
}

/** What `add` made of a record: set aside (why), or one of the run's rollouts (whether it replaced an earlier line of its pair). */
type Added = { outside: string } | { outside: null; replaces: boolean };

/** The facts of every line indexed so far, one slot a line. */
export class RolloutFacts {
  private readonly cols = new Columns();
  private readonly pairs: PairSlots;
  /** Winning rollouts (pairs). */
  rollouts = 0;

  constructor(private readonly bounds: RunBounds | null) {
    this.pairs = new PairSlots(bounds);
  }

  /** Memory the columns hold, roughly, in bytes. */
  bytes(): number {
    return this.cols.bytes();
  }

  /** Takes record `r`, whose line is `length` bytes from byte `start` of the file. */
  add(r: RolloutRecord, start: number, length: number): Added {
    const c = this.cols;
    const slot = c.push();
    c.offset[slot] = start;
    c.length[slot] = length;
    c.index[slot] = Math.min(r.index, 0xffffffff);
    c.rollout[slot] = Math.min(r.rollout ?? 0, 0xffff);
    let flags = 0;
    const outside = this.bounds && outsideRun(r, this.bounds);
    if (outside) {
      c.flags[slot] = FLAG.outside;
      return { outside };
    }
    if (r.error) {
      flags |= FLAG.errored;
      c.reward[slot] = NaN;
    } else {
      c.reward[slot] = r.reward ?? NaN;
      if (r.rewards?.bas_correct === 0) flags |= FLAG.basWrong;
      if (r.metrics && r.metrics.parsed === 0) flags |= FLAG.unparsed;
      const consistent = r.detail?.consistency?.bas_consistent;
      if (consistent === 0 || consistent === 1) {
        flags |= FLAG.consistencyKnown;
        if (consistent === 1) flags |= FLAG.consistent;
      }
      c.missed[slot] = codeBits(r.detail?.codes, 'fn');
      c.wrong[slot] = codeBits(r.detail?.codes, 'fp');
    }
    c.flags[slot] = flags;
    const before = this.pairs.set(r.index, r.rollout ?? 0, slot);
    if (before >= 0) c.flags[before] = c.flags[before]! | FLAG.replaced;
    else this.rollouts++;
    return { outside: null, replaces: before >= 0 };
  }

  /** Whether slot `s` is a winning rollout of the run. */
  private counts(s: number): boolean {
    return (this.cols.flags[s]! & (FLAG.replaced | FLAG.outside)) === 0;
  }

  /** The slots of the winning rollouts that pass `f`, in file order. */
  select(f: RolloutFilter): Uint32Array {
    const c = this.cols;
    const missed = f.missed ? 1 << FAULT_CODES.indexOf(f.missed as (typeof FAULT_CODES)[number]) : 0;
    const wrong = f.wrong ? 1 << FAULT_CODES.indexOf(f.wrong as (typeof FAULT_CODES)[number]) : 0;
    const lo = f.rewardMin ?? -Infinity;
    const hi = f.rewardMax ?? Infinity;
    const byReward = f.rewardMin !== undefined || f.rewardMax !== undefined;
    const out = new Uint32Array(this.rollouts);
    let n = 0;
    for (let s = 0; s < c.size; s++) {
      const flags = c.flags[s]!;
      if (flags & (FLAG.replaced | FLAG.outside)) continue;
      if (f.errored !== undefined && ((flags & FLAG.errored) !== 0) !== f.errored) continue;
      if (f.basWrong && !(flags & FLAG.basWrong)) continue;
      if (f.unparseable !== undefined && ((flags & FLAG.unparsed) !== 0) !== f.unparseable) continue;
      if (missed && !(c.missed[s]! & missed)) continue;
      if (wrong && !(c.wrong[s]! & wrong)) continue;
      if (byReward) {
        const r = c.reward[s]!;
        if (!(r >= lo && r <= hi)) continue;
      }
      if (f.consistency !== undefined) {
        const known = (flags & FLAG.consistencyKnown) !== 0;
        const state = !known ? 'unknown' : flags & FLAG.consistent ? 'consistent' : 'inconsistent';
        if (state !== f.consistency) continue;
      }
      out[n++] = s;
    }
    return out.subarray(0, n);
  }

  /** The list row of slot `s`. */
  row(s: number): ListRow {
    const c = this.cols;
    const flags = c.flags[s]!;
    const errored = (flags & FLAG.errored) !== 0;
    const codes = (bits: number) => FAULT_CODES.filter((_, k) => bits & (1 << k));
    const reward = c.reward[s]!;
    return {
      index: c.index[s]!,
      rollout: c.rollout[s]!,
      reward: errored || Number.isNaN(reward) ? null : reward,
      errored,
      bas_correct: errored ? null : (flags & FLAG.basWrong) === 0,
      consistent: flags & FLAG.consistencyKnown ? (flags & FLAG.consistent) !== 0 : null,
      missed: codes(c.missed[s]!),
      wrong: codes(c.wrong[s]!),
      unparseable: (flags & FLAG.unparsed) !== 0,
    };
  }

  /** The slot of the winning line of (index, rollout), or -1. */
  slotOf(index: number, rollout: number): number {
    const s = this.pairs.get(index, rollout);
    return s >= 0 && this.counts(s) ? s : -1;
  }

  /** Where the line of slot `s` is in the file. */
  place(s: number): { offset: number; length: number } {
    return { offset: this.cols.offset[s]!, length: this.cols.length[s]! };
  }
}
