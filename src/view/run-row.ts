/**
 * A run's row in `bas view`'s run list (GET /api/runs) and its progress (GET /api/progress):
 * run.json's provenance, the figures of the last report read and the rollouts recorded, made
 * from what is already read, the rest read after the answer has gone (run-state.ts).
 */
import { terminalText } from '../io/terminal-text.js';
import { provenanceOf, samplingShort } from '../report/provenance.js';
import { expectedRollouts } from '../runfile/read.js';
import type { ListFigures, RunRow } from '../display/runs.js';
import type { RunState } from './run-state.js';

/** Runs `fn` once the answer being made has gone: work a request starts never delays it. */
function afterAnswer(fn: () => void): void {
  setImmediate(fn);
}

/**
 * The list's figures, always what the results give (never run.json's stored summary, which
 * an edit or an older bas may have left claiming other figures): the last report read, its
 * next read going on in the background (after this answer) when the file changed.
 */
function listFigures(run: RunState): ListFigures | null {
  afterAnswer(() => void run.summary(false));
  return run.figures;
}

/**
 * Rollouts recorded. A running run's, and that of a run whose index is wanted (`wait`), come
 * from its index brought up to date when little is left to read (what a running run appended
 * since the last ask: the list is current, never one ask behind), else as far as the read has
 * got; a finished run not opened yet takes its figures' count.
 */
async function recordedNow(
  run: RunState,
  status: string,
  figures: ListFigures | null,
  wait: boolean,
): Promise<number | null> {
  const index = run.indexSoFar;
  if (!wait && status !== 'running') {
    if (index !== null) afterAnswer(() => void run.rollouts().catch(() => {}));
    return index?.rollouts ?? figures?.rollouts ?? null;
  }
  try {
    return (await run.rollouts()).rollouts;
  } catch {
    return figures?.rollouts ?? null; // no results file yet
  }
}

/**
 * The row of the run list. `wait` brings a running run's count up to date first (one run's
 * progress); without it (the list) the row is made from run.json and what is already read,
 * and the rest follows in the background, shown by the next ask.
 */
export async function runRow(state: RunState, wait = true): Promise<RunRow> {
  await state.loadInfo();
  const status = state.status();
  const run = state.info;
  const figures = listFigures(state);
  const recorded = await recordedNow(state, status, figures, wait);
  const p = provenanceOf(run, run?.model ?? '(unknown model)', run?.task ?? null);
  const t = p.task;
  return {
    id: state.id,
    kind: 'run',
    sweep: state.sweep,
    model: terminalText(p.model),
    endpoint: p.endpoint === null ? null : terminalText(p.endpoint),
    task: t ? `${t.num_transactions} rows · fault rate ${t.fault_rate} · seed ${t.seed}` : 'unknown',
    sampling: terminalText(samplingShort(p.sampling)),
    status: terminalText(status),
    started_at: p.started_at,
    expected: expectedRollouts(run),
    recorded,
    figures,
    problem: state.infoProblem ?? (figures === null ? state.dataProblem : null),
  };
}
