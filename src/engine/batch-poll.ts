/**
 * A batch run's waiting and reading: polls every batch still running, with backoff, until
 * each has ended (reporting the provider's status and counts as events), then downloads its
 * output and error files and grades their lines into records. The clock is the caller's
 * `sleep`, so tests run it on fake timers or none at all.
 */
import type OpenAI from 'openai';
import { downloadFile, isFinal, retrieveBatch } from '../endpoint/batch-api.js';
import { readBatchResult, type BatchResult } from '../endpoint/batch-file.js';
import { InputLineError } from '../errors/index.js';
import type { BatchEntry } from '../runfile/batch-state.js';
import type { BatchEvent } from './events.js';

/** Waits `ms`, or rejects when `signal` aborts; the default is a real timer. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** A real timer that an abort ends early. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** How the polls are spaced: the first wait, growing by half each poll up to the longest. */
export interface PollPace {
  firstMs: number;
  maxMs: number;
}

/** What the poll loop needs: the client, the clock, the events, and where to note a change. */
export interface PollContext {
  client: OpenAI;
  sleep: Sleep;
  signal: AbortSignal;
  pace: PollPace;
  emit: (e: BatchEvent) => void;
  /** Records the entries' new statuses (run.json), after every poll that changed one. */
  save: () => void;
}

/** One round of polls over the entries still running; whether any changed. */
async function pollOnce(c: PollContext, live: BatchEntry[]): Promise<boolean> {
  let changed = false;
  for (const e of live) {
    if (isFinal(e.status) || e.batch_id === null) continue;
    const s = await retrieveBatch(c.client, e.batch_id);
    if (s.status !== e.status || s.counts.completed !== e.counts.completed || s.counts.failed !== e.counts.failed)
      changed = true;
    e.status = s.status;
    e.counts = s.counts;
    e.output_file_id = s.output_file_id;
    e.error_file_id = s.error_file_id;
    e.errors = s.errors;
    c.emit({ type: 'batch-status', batch: e.batch_id, status: s.status, counts: s.counts, errors: s.errors });
  }
  return changed;
}

/**
 * Polls until every entry has ended: at once, then after the first wait, each wait half as
 * long again as the last (up to `maxMs`); a change of status or counts starts over from the
 * first wait. An abort of `signal` ends the wait with its reason.
 */
export async function pollUntilEnded(c: PollContext, live: BatchEntry[]): Promise<void> {
  let wait = c.pace.firstMs;
  for (;;) {
    const changed = await pollOnce(c, live);
    if (changed) c.save();
    if (live.every((e) => isFinal(e.status))) return;
    wait = changed ? c.pace.firstMs : Math.min(c.pace.maxMs, Math.max(wait * 1.5, 1));
    await c.sleep(changed ? c.pace.firstMs : wait, c.signal);
  }
}

/** The lines of an output or error file read, each a result; a line that is not one is said in `bad`. */
function readResultLines(text: string, bad: (message: string) => void): BatchResult[] {
  const out: BatchResult[] = [];
  let n = 0;
  for (const line of text.split('\n')) {
    n++;
    if (line.trim() === '') continue;
    try {
      out.push(readBatchResult(JSON.parse(line)));
    } catch (err) {
      if (err instanceof SyntaxError) bad(`line ${n}: not JSON`);
      else if (err instanceof InputLineError) bad(`line ${n}: ${err.message}`);
      else throw err;
    }
  }
  return out;
}

/** The results of an ended batch's output and error files (as its last poll named them). */
export async function downloadResults(
  client: OpenAI,
  e: BatchEntry,
  warn: (message: string) => void,
): Promise<BatchResult[]> {
  const results: BatchResult[] = [];
  for (const id of [e.output_file_id, e.error_file_id]) {
    if (!id) continue;
    const text = await downloadFile(client, id);
    results.push(...readResultLines(text, (m) => warn(`batch ${e.batch_id}, file ${id}, ${m}; the line is left out`)));
  }
  return results;
}
