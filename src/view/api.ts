/**
 * The JSON answers of `bas view`, one function per route. Each takes the query's parameters
 * as given (outside input: checked here, a bad one is an ApiError with a 4xx) and builds its
 * answer with the report code: the run's report as `bas report` makes it, a rollout as
 * `bas report --rollout` reads it, two runs as `bas compare` pairs them. Text that comes from
 * a run folder (models, replies, messages) is made terminal-safe here, and the page only ever
 * puts it into the document as text.
 */
import { RequestError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import { buildComparison, renderComparison } from '../report/compare.js';
import { drillDataOf } from '../report/html/drilldown.js';
import { rolloutDetail } from '../display/drill.js';
import { provenanceLines } from '../report/provenance.js';
import { expectedRollouts } from '../runfile/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { FAULT_CODES } from '../task/types.js';
import type { Catalog } from './catalog.js';
import { runRow } from './run-row.js';
import type { RunState } from './run-state.js';
import type { RolloutRecord } from '../runfile/record.js';
import type { RolloutFilter } from '../runfile/rollout-facts.js';
import type { RolloutIndex } from '../runfile/rollout-index.js';

/** Most rows of one page of the rollout list. */
const MAX_PAGE = 500;
/** Tasks listed where two runs disagree most. */
const MAX_DISAGREEMENTS = 50;

type Query = URLSearchParams;

/**
 * A value with every string in it (keys too) made terminal-safe: escape sequences out, hidden
 * characters shown as visible escapes. What the page shows of a run folder passes here.
 */
export function safeStrings(value: unknown): unknown {
  if (typeof value === 'string') return terminalText(value);
  if (Array.isArray(value)) return value.map(safeStrings);
  if (typeof value === 'object' && value !== null) {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) out[terminalText(k)] = safeStrings(v);
    return out;
  }
  return value;
}

/** The run a query names under `key`: a 400 when it names none, a 404 when the walk found no such folder. */
export async function runOf(catalog: Catalog, q: Query, key = 'run'): Promise<RunState> {
  const id = q.get(key);
  if (id === null || id === '')
    throw new RequestError(400, `"${key}" is missing: name a run by its folder under the served one`);
  const run = await catalog.run(id);
  if (run === null) throw new RequestError(404, `no run folder ${JSON.stringify(terminalText(id.slice(0, 200)))} here`);
  return run;
}

function intParam(q: Query, key: string, fallback: number, min: number, max: number): number {
  const v = q.get(key);
  if (v === null || v === '') return fallback;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new RequestError(400, `"${key}" must be a whole number from ${min} to ${max}`);
  return n;
}

function numParam(q: Query, key: string): number | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new RequestError(400, `"${key}" must be a number`);
  return n;
}

function boolParam(q: Query, key: string): boolean | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new RequestError(400, `"${key}" must be 1 or 0`);
}

function codeParam(q: Query, key: string): string | undefined {
  const v = q.get(key);
  if (v === null || v === '') return undefined;
  if (!(FAULT_CODES as readonly string[]).includes(v))
    throw new RequestError(400, `"${key}" must be one of ${FAULT_CODES.join(', ')}`);
  return v;
}

/** The filter a query asks for. */
function filterOf(q: Query): RolloutFilter {
  const consistency = q.get('consistency');
  if (consistency && !['consistent', 'inconsistent', 'unknown'].includes(consistency))
    throw new RequestError(400, '"consistency" must be consistent, inconsistent or unknown');
  return {
    errored: boolParam(q, 'errored'),
    basWrong: boolParam(q, 'bas_wrong'),
    unparseable: boolParam(q, 'unparseable'),
    missed: codeParam(q, 'missed'),
    wrong: codeParam(q, 'wrong'),
    rewardMin: numParam(q, 'reward_min'),
    rewardMax: numParam(q, 'reward_max'),
    consistency: (consistency || undefined) as RolloutFilter['consistency'],
  };
}

function percent(part: number, whole: number): string {
  return `${whole > 0 ? Math.floor((100 * part) / whole) : 100}%`;
}

/** GET /api/runs: every run and sweep under the folder. */
export async function runsAnswer(catalog: Catalog): Promise<unknown> {
  return { root: terminalText(catalog.root), ...(await catalog.list()) };
}

/** What the index says of a run's file: rollouts, damage, a line being written. */
function indexState(run: RunState, index: Awaited<ReturnType<RunState['rollouts']>> | null) {
  if (index === null) return null;
  return {
    rollouts: index.rollouts,
    set_aside: index.setAside,
    damaged_lines: index.damaged,
    damage: index.damage.map((d) => ({ line: d.line, reason: terminalText(d.reason) })),
    torn_last_line: index.torn,
    expected: expectedRollouts(run.info),
    /** While the file is being read (the first time, or a large part it gained): bytes read of how many. */
    reading: index.reading ? { read: index.indexedBytes, of: index.target } : null,
  };
}

async function indexOrProblem(
  run: RunState,
): Promise<{ index: Awaited<ReturnType<RunState['rollouts']>> | null; problem: string | null }> {
  try {
    return { index: await run.rollouts(), problem: null };
  } catch (err) {
    return { index: null, problem: terminalText((err as Error).message) };
  }
}

/** GET /api/run: one run's report (provenance first) and the state of its file. */
export async function runAnswer(catalog: Catalog, q: Query): Promise<unknown> {
  const run = await runOf(catalog, q);
  const { index, problem } = await indexOrProblem(run);
  const kept = await run.summaryNow();
  catalog.keepFew();
  const report = kept?.report ?? null;
  return {
    id: run.id,
    status: run.status(),
    /** The report is being read (a large file): the page asks again. */
    summary_pending: run.summaryPending,
    model: terminalText(report?.run.model ?? run.info?.model ?? '(unknown model)'),
    provenance: report ? provenanceLines(report.run.provenance).map(([k, v]) => [k, terminalText(v)]) : null,
    notes: report ? report.notes.map((n) => terminalText(n)) : [],
    text: kept?.text ?? null,
    report: report ? safeStrings(report) : null,
    problem: run.infoProblem ?? run.dataProblem ?? problem,
    index: indexState(run, index),
    codes: FAULT_CODES,
  };
}

/** GET /api/progress: a run's status, rollouts recorded and means, cheap enough to poll. */
export async function progressAnswer(catalog: Catalog, q: Query): Promise<unknown> {
  const run = await runOf(catalog, q);
  const row = await runRow(run);
  return { id: run.id, status: row.status, recorded: row.recorded, expected: row.expected, figures: row.figures };
}

/** GET /api/rollouts: one page of a run's rollouts that pass the filter, from the index alone. */
export async function rolloutsAnswer(catalog: Catalog, q: Query): Promise<unknown> {
  const run = await runOf(catalog, q);
  const filter = filterOf(q);
  const offset = intParam(q, 'offset', 0, 0, 2 ** 32);
  const limit = intParam(q, 'limit', 50, 1, MAX_PAGE);
  const { index, problem } = await indexOrProblem(run);
  if (index === null) throw new RequestError(409, problem ?? 'the run has no results file');
  const slots = index.select(filter);
  const rows = [];
  for (let i = offset; i < Math.min(slots.length, offset + limit); i++) rows.push(index.row(slots[i]!));
  return {
    id: run.id,
    total: index.rollouts,
    matching: slots.length,
    offset,
    limit,
    rows,
    index: indexState(run, index),
  };
}

/**
 * The winning record of (taskIndex, rollout), by its place in the file; while a long first
 * read has not reached it, a 409 that says how far the read is (the page asks again).
 */
async function findRollout(index: RolloutIndex, taskIndex: number, rollout: number): Promise<RolloutRecord> {
  const slot = index.slotOf(taskIndex, rollout);
  if (slot >= 0) return index.record(slot);
  if (!index.reading) throw new RequestError(404, `the run has no rollout ${taskIndex}:${rollout}`);
  throw new RequestError(
    409,
    `rollout ${taskIndex}:${rollout} is not among those read so far: the results file is being read (${percent(index.indexedBytes, index.target)} done)`,
  );
}

/** GET /api/rollout: one rollout whole: ledger marked, reply, key, scores, usage, errors. */
export async function rolloutAnswer(catalog: Catalog, q: Query): Promise<unknown> {
  const run = await runOf(catalog, q);
  const taskIndex = intParam(q, 'index', -1, 0, 2 ** 32);
  const rollout = intParam(q, 'rollout', 0, 0, 2 ** 21);
  if (taskIndex < 0) throw new RequestError(400, '"index" is missing: name the task');
  const { index, problem } = await indexOrProblem(run);
  if (index === null) throw new RequestError(409, problem ?? 'the run has no results file');
  const record = await findRollout(index, taskIndex, rollout);
  const task = run.info?.task ?? record.config ?? null;
  const drill = drillDataOf({ run: run.info, task, dir: run.id, summary: { counts: { rollouts: index.rollouts } } }, [
    { record, reasons: [] },
  ]);
  const fields = rolloutDetail(drill, drill.rollouts[0]!);
  const extra = {
    latency_ms: record.latency_ms ?? null,
    ttft_ms: record.ttft_ms ?? null,
    usage: record.usage ?? null,
    finish_reason: record.finish_reason ?? null,
    attempts: record.attempts ?? null,
    metrics: record.metrics ?? null,
    rewards: record.rewards ?? null,
    consistency: record.detail?.consistency ?? null,
    model: record.model ?? run.info?.model ?? null,
  };
  // Everything from the file, reply and ids included, made terminal-safe (hidden characters shown).
  return safeStrings({ id: run.id, max_reply_chars: drill.maxReplyChars, codes: drill.codes, ...fields, ...extra });
}

/** GET /api/compare: two runs paired as `bas compare` pairs them, and the tasks they disagree on most. */
export async function compareAnswer(catalog: Catalog, q: Query): Promise<unknown> {
  const a = await runOf(catalog, q, 'a');
  const b = await runOf(catalog, q, 'b');
  if (a.id === b.id) throw new RequestError(400, 'name two different runs to compare');
  const da = await a.wholeSummary();
  const db = await b.wholeSummary();
  catalog.keepFew();
  if (!da || !db)
    throw new RequestError(409, `cannot compare: ${(!da ? a.dataProblem : b.dataProblem) ?? 'a summary is missing'}`);
  const { seed, resamples } = readFlags(COMMAND_FLAGS.compare, {});
  // Each run named by its id under the served folder, as every view names it.
  const c = buildComparison(
    [
      { ...da, dir: a.id },
      { ...db, dir: b.id },
    ],
    seed,
    resamples,
  );
  const ta = new Map(da.builder.perTask().map((t) => [t.index, t]));
  const rows: Array<{ index: number; a: number; b: number; diff: number }> = [];
  const comparable = c.pairings[0]?.comparable === true;
  for (const t of comparable ? db.builder.perTask() : []) {
    const s = ta.get(t.index);
    if (!s || !s.completed || !t.completed) continue;
    rows.push({ index: t.index, a: s.reward, b: t.reward, diff: t.reward - s.reward });
  }
  rows.sort((x, y) => Math.abs(y.diff) - Math.abs(x.diff) || x.index - y.index);
  return {
    a: a.id,
    b: b.id,
    text: renderComparison(c),
    comparison: safeStrings(c),
    paired_tasks: rows.length,
    disagreements: rows.slice(0, MAX_DISAGREEMENTS),
  };
}
