/**
 * One memory budget for the bodies of all replies in flight. `--max-response-mb` bounds one
 * reply; at `-c 64` with 30 MB bodies that alone let a run hold nearly 2 GB, and `-c 4096` ×
 * 32 MiB allowed 128 GiB. Every reader of a response body (the buffered one in http-fetch.ts,
 * a streaming one alike) takes its bytes from this budget as they arrive and gives them back
 * when the body is complete or the attempt ends.
 *
 * A reply is held past its last byte too: the client keeps a `hold` on its text until the
 * runner has recorded the rollout (scoring a long reply takes a while, and replies that wait
 * for it are memory like any other).
 *
 * The rule: while the bytes held exceed the budget, a reader that receives a chunk pauses its
 * connection (TCP backpressure: the server waits, nothing is lost) until others finish. The
 * oldest reader still reading never pauses, so one reply always makes progress and the
 * budget can never deadlock (a hold never forgotten only slows readers down); bytes held are
 * therefore at most the budget plus one reply's cap plus one network chunk (64 KiB) per
 * reader. A request whose reply waited here until its
 * timeout says so (`waitedOnBudget`), so the failure is not mistaken for a slow endpoint.
 *
 * The default budget is 512 MiB, or a quarter of the memory this process may use (its cgroup
 * limit where there is one, else the machine's), whichever is smaller; `BAS_REPLY_BUDGET_MB`
 * overrides it. docs/hostile-input.md gives the figures.
 */
import { totalmem } from 'node:os';
import * as std from '../io/std.js';

const MIB = 1024 * 1024;
const DEFAULT_BUDGET_BYTES = 512 * MIB;

/** The budget when nothing overrides it: 512 MiB, or a quarter of the memory available, if less. */
export function defaultBudgetBytes(env: NodeJS.ProcessEnv = std.env()): number {
  const given = env.BAS_REPLY_BUDGET_MB;
  if (given !== undefined && given.trim() !== '') {
    const mb = Number(given);
    if (Number.isFinite(mb) && mb >= 1 && mb <= 1024 * 1024) return Math.round(mb * MIB);
  }
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.() ?? 0;
  const memory = constrained > 0 && constrained < totalmem() ? constrained : totalmem();
  return Math.max(32 * MIB, Math.min(DEFAULT_BUDGET_BYTES, Math.floor(memory / 4)));
}

/** One reader's share: the bytes of one response body. */
export class BudgetClaim {
  held = 0;
  /** Set while the reader is paused; called to let it read on. */
  private resume: (() => void) | null = null;
  private open = true;

  constructor(
    private readonly budget: ReplyBudget,
    /** False for a hold on a reply already read: it never reads, so never waits. */
    readonly reading: boolean,
  ) {}

  /**
   * Counts `n` more bytes held (they have arrived; they are held whatever the answer). Returns
   * false when the reader must pause: it then calls `pauseUntil` with what resumes it.
   */
  add(n: number): boolean {
    if (!this.open) return true;
    this.held += n;
    this.budget.held += n;
    if (this.budget.held > this.budget.peak) this.budget.peak = this.budget.held;
    return this.budget.held <= this.budget.limit || this.budget.isOldest(this);
  }

  /** Parks the reader until the budget has room (or it becomes the oldest reader). */
  pauseUntil(resume: () => void): void {
    if (!this.open) return resume();
    this.resume = resume;
    this.budget.park(this);
  }

  /** Whether the reader is paused for room. */
  get waiting(): boolean {
    return this.resume !== null;
  }

  /** Wakes a paused reader (called by the budget). */
  wake(): void {
    const resume = this.resume;
    this.resume = null;
    resume?.();
  }

  /** Gives every byte back; called once the body is complete or the attempt ends. Idempotent. */
  release(): void {
    if (!this.open) return;
    this.open = false;
    this.resume = null;
    this.budget.held -= this.held;
    this.held = 0;
    this.budget.close(this);
  }
}

/** The budget shared by every reply in flight. */
export class ReplyBudget {
  held = 0;
  /** The most bytes held at once, and how often a reader paused for room (for tests and the bench). */
  peak = 0;
  waits = 0;
  /** Open claims, oldest first. */
  private readonly claims = new Set<BudgetClaim>();
  private readonly parked: BudgetClaim[] = [];

  constructor(readonly limit: number) {}

  /** A new reader's claim, to be released when its body is done. */
  claim(): BudgetClaim {
    const c = new BudgetClaim(this, true);
    this.claims.add(c);
    return c;
  }

  /** Holds `bytes` of a reply already read until it is released (once its rollout is recorded). */
  hold(bytes: number): BudgetClaim {
    const c = new BudgetClaim(this, false);
    this.claims.add(c);
    c.add(bytes);
    return c;
  }

  /** Whether `c` is the oldest claim still reading (which never waits). */
  isOldest(c: BudgetClaim): boolean {
    for (const open of this.claims) if (open.reading) return open === c;
    return false;
  }

  park(c: BudgetClaim): void {
    this.waits++;
    this.parked.push(c);
    this.wakeSome();
  }

  close(c: BudgetClaim): void {
    this.claims.delete(c);
    const at = this.parked.indexOf(c);
    if (at >= 0) this.parked.splice(at, 1);
    this.wakeSome();
  }

  /** Resumes parked readers in arrival order while there is room, and the oldest reader always. */
  private wakeSome(): void {
    while (this.parked.length > 0) {
      const i = this.held < this.limit ? 0 : this.parked.findIndex((c) => this.isOldest(c));
      if (i < 0) return;
      const [c] = this.parked.splice(i, 1);
      c!.wake();
    }
  }
}

/**
 * What a byte of a reply costs in memory while it is held: its buffers, the string decoded from
 * them, the parsed body and the record made of it (3.4–3.7 times the bytes), with room for the
 * reply being parsed. 64 replies of 30 MB at `-c 64` peaked at 1.14 GiB under a budget of
 * 512 MiB counted in bytes received, at 693 MiB counted four times and at 630 MiB five times:
 * so the budget counts each byte five times, and a budget of memory bounds memory.
 */
const MEMORY_PER_BYTE = 5;

/** The process's budget: every reply of every client in this process shares it. */
export const replyBudget = new ReplyBudget(Math.floor(defaultBudgetBytes() / MEMORY_PER_BYTE));

/** Requests whose reply was waiting for room when they were aborted. */
const abortedWaiting = new WeakSet<AbortSignal>();

/** Notes that the request of `signal` was aborted while its reply waited for room. */
export function noteAbortedWhileWaiting(signal: AbortSignal): void {
  abortedWaiting.add(signal);
}

/** Whether the request of `signal` was aborted while its reply waited for room in the budget. */
export function waitedOnBudget(signal: AbortSignal): boolean {
  return abortedWaiting.has(signal);
}
