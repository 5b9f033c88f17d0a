/**
 * The progress display: follows runPlan's events and writes to the stream it is given (the
 * CLI gives stderr; the engine itself writes nowhere). On a terminal
 * one line is redrawn in place (at most ten times a second); in a pipe or a log, a plain line
 * every tenth of the run (and at most every five seconds), so CI logs stay short.
 */
import { terminalText } from '../io/terminal-text.js';
import { CompensatedSum } from '../summary/compensated-sum.js';
import type { EvalEvent } from './events.js';
import type { OutStream } from '../io/std.js';

export interface ProgressOptions {
  stream: OutStream;
  now?: () => number;
  /** Words before the line (`bas sweep` names the point). */
  label?: string;
  /** In a pipe or a log, a line every tenth of the run (default); false: nothing but on a terminal. */
  milestones?: boolean;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** What the progress line shows. */
export interface ProgressState {
  finished: number;
  total: number;
  errors: number;
  retries: number;
  /** Mean reward of the scored rollouts, null before the first. */
  meanReward: number | null;
  elapsedS: number;
  /** Rollouts finished per second by this process. */
  rate: number;
  /** Requests allowed in flight now, and the ceiling (-c). */
  limit: number;
  max: number;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The line, fitted to `width` columns: lesser parts are dropped first (retries, then the mean
 * reward, the limit, the rate, the elapsed time, the errors), so the count and the ETA stay
 * to the narrowest width; only a width too small even for those cuts the line.
 */
export function progressLine(p: ProgressState, width: number): string {
  const eta = p.rate > 0 ? (p.total - p.finished) / p.rate : Number.NaN;
  // [text, rank]: a higher rank is dropped sooner.
  const parts: Array<[string, number]> = [
    [`${p.finished}/${p.total} done`, 0],
    [plural(p.errors, 'error', 'errors'), 2],
    [plural(p.retries, 'retry', 'retries'), 7],
    [`mean reward ${p.meanReward === null ? '–' : p.meanReward.toFixed(3)}`, 6],
    [`${p.rate.toFixed(p.rate >= 10 ? 0 : 1)}/s`, 4],
    [p.limit < p.max ? `limit ${p.limit} of ${p.max}` : `limit ${p.limit}`, 5],
    [`${duration(p.elapsedS)} elapsed`, 3],
    [`ETA ${duration(eta)}`, 1],
  ];
  for (let rank = 7; ; rank--) {
    const text = parts
      .filter(([, r]) => r <= rank)
      .map(([t]) => t)
      .join(' · ');
    if (text.length <= width || rank <= 1) return text.slice(0, Math.max(0, width));
  }
}

/** What the display takes: every event of the run; `finish()` clears the live line. */
export interface ProgressDisplay {
  onEvent: (e: EvalEvent) => void;
  finish: () => void;
}

/** A display of the run on a stream: a live line on a terminal, a line per tenth of the run elsewhere. */
class Progress implements ProgressDisplay {
  private readonly now: () => number;
  private readonly tty: boolean;
  private readonly prefix: string;
  // Set by the 'started' event: the run's size, what earlier sessions did, the ceiling (-c).
  private total = 0;
  private already = 0;
  private max = 1;
  private limit = 1;
  private started: number;
  private done = 0;
  private errors = 0;
  private retries = 0;
  // The summary's own sum, so the last line shows the mean the summary prints.
  private readonly rewardSum = new CompensatedSum();
  private scored = 0;
  private lastDraw = 0;
  private nextMilestone = 0.1;
  private drawn = false;

  constructor(private readonly o: ProgressOptions) {
    this.now = o.now ?? Date.now;
    this.tty = Boolean(o.stream.isTTY);
    this.prefix = o.label === undefined ? '' : `${o.label}: `;
    this.started = this.now();
  }

  private state(): ProgressState {
    const elapsedS = (this.now() - this.started) / 1000;
    return {
      finished: this.already + this.done,
      total: this.total,
      errors: this.errors,
      retries: this.retries,
      meanReward: this.scored ? this.rewardSum.value / this.scored : null,
      elapsedS,
      rate: this.done / Math.max(1e-3, elapsedS),
      limit: this.limit,
      max: this.max,
    };
  }

  private update(): void {
    if (this.total === 0) return;
    const t = this.now();
    const finished = this.already + this.done;
    if (this.tty) {
      if (t - this.lastDraw < 100 && finished < this.total) return;
      this.lastDraw = t;
      const width = (this.o.stream.columns ? this.o.stream.columns - 1 : 200) - this.prefix.length;
      this.o.stream.write(`\r${terminalText(this.prefix + progressLine(this.state(), Math.max(20, width)))}\x1b[K`);
      this.drawn = true;
      return;
    }
    if (this.o.milestones === false) return;
    const share = finished / this.total;
    if (share >= this.nextMilestone && (t - this.lastDraw >= 5000 || finished === this.total)) {
      this.lastDraw = t;
      while (this.nextMilestone <= share) this.nextMilestone += 0.1;
      const lead = this.o.label === undefined ? 'bas: ' : '';
      this.o.stream.write(`${lead}${terminalText(this.prefix + progressLine(this.state(), 200))}\n`);
    }
  }

  readonly onEvent = (e: EvalEvent): void => {
    switch (e.type) {
      case 'started':
        this.total = e.total;
        this.already = e.already;
        this.max = this.limit = e.concurrency;
        this.started = this.now();
        return;
      case 'pace':
        this.limit = e.limit;
        break;
      case 'retry':
        this.retries++;
        break;
      case 'rollout':
        return this.finished(e.record.error ? null : (e.record.reward ?? 0));
      default:
        return;
    }
    this.update();
  };

  /** One finished rollout: its reward, null when it errored. */
  private finished(reward: number | null): void {
    this.done++;
    if (reward === null) this.errors++;
    else {
      this.scored++;
      this.rewardSum.add(reward);
    }
    this.update();
  }

  readonly finish = (): void => {
    if (this.tty && this.drawn) this.o.stream.write('\r\x1b[K');
  };
}

/** A display of the run on `o.stream`. */
export function progressDisplay(o: ProgressOptions): ProgressDisplay {
  return new Progress(o);
}
