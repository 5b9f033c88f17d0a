/**
 * The progress display: follows runEval's events and writes to the stream it is given (the
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

/** A display of the run on `o.stream`. */
export function progressDisplay(o: ProgressOptions): ProgressDisplay {
  const now = o.now ?? Date.now;
  const tty = Boolean(o.stream.isTTY);
  // Set by the 'started' event: the run's size, what earlier sessions did, the ceiling (-c).
  let total = 0;
  let already = 0;
  let max = 1;
  let limit = 1;
  let started = now();
  let done = 0;
  let errors = 0;
  let retries = 0;
  // The summary's own sum, so the last line shows the mean the summary prints.
  const rewardSum = new CompensatedSum();
  let scored = 0;
  let lastDraw = 0;
  let nextMilestone = 0.1;
  let drawn = false;

  const state = (): ProgressState => {
    const elapsedS = (now() - started) / 1000;
    return {
      finished: already + done,
      total,
      errors,
      retries,
      meanReward: scored ? rewardSum.value / scored : null,
      elapsedS,
      rate: done / Math.max(1e-3, elapsedS),
      limit,
      max,
    };
  };

  const update = (): void => {
    if (total === 0) return;
    const t = now();
    const finished = already + done;
    if (tty) {
      if (t - lastDraw < 100 && finished < total) return;
      lastDraw = t;
      const width = o.stream.columns ? o.stream.columns - 1 : 200;
      o.stream.write(`\r${terminalText(progressLine(state(), width))}\x1b[K`);
      drawn = true;
      return;
    }
    const share = finished / total;
    if (share >= nextMilestone && (t - lastDraw >= 5000 || finished === total)) {
      lastDraw = t;
      while (nextMilestone <= share) nextMilestone += 0.1;
      o.stream.write(`bas: ${terminalText(progressLine(state(), 200))}\n`);
    }
  };

  const onEvent = (e: EvalEvent): void => {
    switch (e.type) {
      case 'started':
        total = e.total;
        already = e.already;
        max = limit = e.concurrency;
        started = now();
        return;
      case 'pace':
        limit = e.limit;
        break;
      case 'retry':
        retries++;
        break;
      case 'rollout':
        return finished(e.record.error ? null : (e.record.reward ?? 0));
      default:
        return;
    }
    update();
  };

  /** One finished rollout: its reward, null when it errored. */
  const finished = (reward: number | null): void => {
    done++;
    if (reward === null) errors++;
    else {
      scored++;
      rewardSum.add(reward);
    }
    update();
  };

  return {
    onEvent,
    finish: () => {
      if (tty && drawn) o.stream.write('\r\x1b[K');
    },
  };
}
