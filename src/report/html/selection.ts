/**
 * Which rollouts a run's HTML page embeds with their drill-down: a bounded selection, so a
 * page stays a few MB at any number of rollouts. Chosen while the results are read (one pass,
 * memory bounded by the selection): the worst and the best rollouts, a sample of those that
 * missed and of those that wrongly flagged each fault code, a sample per error type, a sample
 * of unparseable replies, and any rollout asked for by name (`--rollout I:R`). Samples are
 * the rollouts with the smallest hash of (index, rollout): spread over the run, the same on
 * every read. Any other rollout is one command away: `bas report DIR --rollout I:R`.
 */
import { pairKey, splitPairKey, type PairKey, type RolloutRecord } from '../../runfile/record.js';
import { FAULT_CODES } from '../../task/types.js';

/** How many of each kind the page embeds (docs/reports.md lists them). */
export const SELECTION_LIMITS = {
  worst: 20,
  best: 10,
  perCodeMissed: 5,
  perCodeWronglyFlagged: 5,
  perErrorType: 5,
  errorTypes: 8,
  unparseable: 10,
} as const;

/** A deterministic, well-spread 32-bit hash of (index, rollout). */
function spread(index: number, rollout: number): number {
  let h = Math.imul(index ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(rollout + 0x165667b1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  return h >>> 0;
}

interface Candidate {
  key: PairKey;
  record: RolloutRecord;
  hash: number;
  /** Lists holding this candidate. */
  lists: Set<Kept>;
}

/** The `k` candidates that sort first under `order`, with the reason they are kept. */
class Kept {
  readonly items: Candidate[] = [];
  constructor(
    readonly reason: string,
    private readonly k: number,
    private readonly order: (a: Candidate, b: Candidate) => number,
    private readonly evicted: (c: Candidate) => void,
  ) {}

  offer(c: Candidate): void {
    const n = this.items.length;
    if (n >= this.k && this.order(c, this.items[n - 1]!) >= 0) return;
    let i = n;
    while (i > 0 && this.order(c, this.items[i - 1]!) < 0) i--;
    this.items.splice(i, 0, c);
    c.lists.add(this);
    if (this.items.length > this.k) {
      const out = this.items.pop()!;
      out.lists.delete(this);
      this.evicted(out);
    }
  }

  remove(c: Candidate): void {
    const i = this.items.indexOf(c);
    if (i >= 0) this.items.splice(i, 1);
  }
}

const byHash = (a: Candidate, b: Candidate) => a.hash - b.hash;
const reward = (c: Candidate) => c.record.reward ?? 0;

/** A rollout chosen for the page, with why. */
export interface Selected {
  record: RolloutRecord;
  reasons: string[];
}

/** Chooses the rollouts a page embeds while the results file is read once. */
export class DrillSelection {
  private readonly held = new Map<PairKey, Candidate>();
  private readonly lists: Kept[] = [];
  private readonly worst: Kept;
  private readonly best: Kept;
  private readonly unparseable: Kept;
  private readonly missed: Kept[];
  private readonly wrong: Kept[];
  private readonly errors = new Map<string, Kept>();
  private readonly requested: Kept;
  private readonly wanted: Set<PairKey>;

  /** `requested`: (index, rollout) pairs embedded whatever they hold. */
  constructor(requested: Array<[number, number]> = []) {
    this.wanted = new Set(requested.map(([i, r]) => pairKey(i, r)));
    const L = SELECTION_LIMITS;
    this.worst = this.list('worst', L.worst, (a, b) => reward(a) - reward(b) || a.hash - b.hash);
    this.best = this.list('best', L.best, (a, b) => reward(b) - reward(a) || a.hash - b.hash);
    this.unparseable = this.list('unparseable', L.unparseable, byHash);
    this.missed = FAULT_CODES.map((c) => this.list(`missed ${c}`, L.perCodeMissed, byHash));
    this.wrong = FAULT_CODES.map((c) => this.list(`wrongly flagged ${c}`, L.perCodeWronglyFlagged, byHash));
    this.requested = this.list('asked for', Math.max(1, this.wanted.size), byHash);
  }

  private list(reason: string, k: number, order: (a: Candidate, b: Candidate) => number): Kept {
    const kept = new Kept(reason, k, order, (c) => this.release(c));
    this.lists.push(kept);
    return kept;
  }

  private release(c: Candidate): void {
    if (c.lists.size === 0 && this.held.get(c.key) === c) this.held.delete(c.key);
  }

  /** Sees one record (in file order: a later line for the same pair replaces an earlier one). */
  add(r: RolloutRecord): void {
    const rollout = r.rollout ?? 0;
    const key = pairKey(r.index, rollout);
    const old = this.held.get(key);
    if (old) {
      // A later line for the pair wins: the earlier one leaves every list it was in.
      for (const l of old.lists) l.remove(old);
      old.lists.clear();
      this.held.delete(key);
    }
    const c: Candidate = { key, record: r, hash: spread(r.index, rollout), lists: new Set() };
    if (this.wanted.has(key)) this.requested.offer(c);
    if (r.error) {
      let kept = this.errors.get(r.error.type);
      if (!kept && this.errors.size < SELECTION_LIMITS.errorTypes) {
        kept = this.list(`errored: ${r.error.type}`, SELECTION_LIMITS.perErrorType, byHash);
        this.errors.set(r.error.type, kept);
      }
      kept?.offer(c);
    } else {
      this.worst.offer(c);
      this.best.offer(c);
      if (r.metrics?.parsed === 0) this.unparseable.offer(c);
      const codes = r.detail?.codes;
      if (codes)
        FAULT_CODES.forEach((code, i) => {
          const b = codes[code];
          if (b && b.fn > 0) this.missed[i]!.offer(c);
          if (b && b.fp > 0) this.wrong[i]!.offer(c);
        });
    }
    if (c.lists.size > 0) this.held.set(key, c);
  }

  /** The chosen rollouts in (index, rollout) order, each with every reason it was chosen. */
  selected(): Selected[] {
    const out = new Map<Candidate, string[]>();
    for (const l of this.lists) for (const c of l.items) out.set(c, [...(out.get(c) ?? []), l.reason]);
    return [...out.entries()]
      .map(([c, reasons]) => ({ record: c.record, reasons }))
      .sort((a, b) => a.record.index - b.record.index || (a.record.rollout ?? 0) - (b.record.rollout ?? 0));
  }

  /** The requested pairs that no line of the file holds. */
  missing(): Array<[number, number]> {
    const found = new Set(this.requested.items.map((c) => c.key));
    return [...this.wanted].filter((k) => !found.has(k)).map(splitPairKey);
  }
}
