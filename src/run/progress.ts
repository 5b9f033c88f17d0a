/**
 * The progress display: listens to the runner's events and writes to stderr. On a terminal
 * one line is redrawn in place (at most ten times a second); in a pipe or a log, a plain line
 * every tenth of the run (and at most every five seconds), so CI logs stay short.
 */
import { terminalText } from '../io/terminal-text.js';
import type { Runner } from './runner.js';

export interface ProgressOptions {
  total: number;
  /** Rollouts already finished before this process started (a resumed run). */
  already: number;
  stream: NodeJS.WriteStream;
  now?: () => number;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Attaches a display to `runner`; returns a function that finishes it (clears the live line). */
export function attachProgress(runner: Runner, o: ProgressOptions): () => void {
  const now = o.now ?? Date.now;
  const tty = Boolean(o.stream.isTTY);
  const started = now();
  let done = 0;
  let errors = 0;
  let retries = 0;
  let rewardSum = 0;
  let scored = 0;
  let lastDraw = 0;
  let nextMilestone = 0.1;
  let drawn = false;

  const line = (): string => {
    const finished = o.already + done;
    const rate = done / Math.max(1e-3, (now() - started) / 1000);
    const eta = rate > 0 ? (o.total - finished) / rate : Number.NaN;
    const mean = scored ? (rewardSum / scored).toFixed(3) : '–';
    return `${finished}/${o.total} done · ${errors} errors · ${retries} retries · mean reward ${mean} · ETA ${duration(eta)}`;
  };

  const update = (): void => {
    const t = now();
    const finished = o.already + done;
    if (tty) {
      if (t - lastDraw < 100 && finished < o.total) return;
      lastDraw = t;
      const text = terminalText(line());
      const width = o.stream.columns ? o.stream.columns - 1 : text.length;
      o.stream.write(`\r${text.slice(0, width)}\x1b[K`);
      drawn = true;
      return;
    }
    const share = finished / o.total;
    if (share >= nextMilestone && (t - lastDraw >= 5000 || finished === o.total)) {
      lastDraw = t;
      while (nextMilestone <= share) nextMilestone += 0.1;
      o.stream.write(`bas: ${terminalText(line())}\n`);
    }
  };

  runner.on('retry', () => {
    retries++;
    update();
  });
  runner.on('done', ({ record }) => {
    done++;
    scored++;
    rewardSum += record.reward ?? 0;
    update();
  });
  runner.on('error', () => {
    done++;
    errors++;
    update();
  });

  return () => {
    if (tty && drawn) o.stream.write('\r\x1b[K');
  };
}
