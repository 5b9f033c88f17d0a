/**
 * GET /api/sweep: one sweep folder as `bas sweep` shows it at its end (the same code: its
 * settings, a table per model, the notes), built from each point's report as the viewer
 * keeps it, and its points with their runs' ids, statuses and rewards. A point whose folder
 * is not there yet, or whose run has no rollouts yet, is listed as such and left out of the
 * table; the rest are shown.
 */
import { RequestError } from '../errors/index.js';
import { terminalText } from '../io/terminal-text.js';
import {
  buildSweep,
  pointName,
  renderSweep,
  sweepSettingsLines,
  type SweepInput,
  type SweepResult,
} from '../report/sweep.js';
import { Figures } from '../report/html/blocks.js';
import { sweepSections } from '../report/html/sweep-page.js';
import type { Section } from '../display/blocks.js';
import { FIGURES_WHERE } from './leaderboard-api.js';
import { resultsPath } from '../runfile/files.js';
import { planAxis, planModels, type SweepPlanPoint } from '../runfile/sweep-file.js';
import { pointId, type Catalog } from './catalog.js';
import { runRow } from './run-row.js';
import type { SweepPoint } from '../display/runs.js';

/** A point's run as a sweep input, from the report the viewer keeps of it; null when it has none yet. */
async function pointInput(
  catalog: Catalog,
  id: string,
  p: SweepPlanPoint,
  model: string | null,
): Promise<{ row: SweepPoint; input: SweepInput | null }> {
  const row: SweepPoint = {
    run: id,
    point: pointName(p),
    model: p.model ?? model,
    num_transactions: p.num_transactions,
    fault_rate: p.fault_rate,
    status: 'not started',
    recorded: null,
    expected: null,
    reward: null,
    problem: null,
  };
  const run = await catalog.run(id);
  if (run === null) return { row, input: null };
  const listed = await runRow(run);
  Object.assign(row, { status: listed.status, recorded: listed.recorded, expected: listed.expected });
  const kept = await run.summaryNow();
  row.problem = listed.problem ?? run.dataProblem;
  if (kept === null) return { row, input: null };
  const r = kept.report;
  row.reward = r.summary.reward;
  const data: SweepInput['data'] = {
    dir: id,
    resultsPath: resultsPath(run.dir),
    run: run.info === null ? null : { ...run.info, status: run.status() },
    model: r.run.model,
    task: r.run.task,
    summary: r.summary,
    expected: r.run.expected_rollouts,
    notes: r.notes,
    provenance: r.run.provenance,
  };
  const input: SweepInput = {
    num_transactions: p.num_transactions,
    fault_rate: p.fault_rate,
    model: row.model,
    ...(p.reasoning_effort === undefined ? {} : { reasoning_effort: p.reasoning_effort }),
    ...(p.max_tokens === undefined ? {} : { max_tokens: p.max_tokens }),
    data,
  };
  return { row, input };
}

/**
 * One sweep's answer; with its points' runs read, the curves and points of `bas sweep --html`
 * (its sections), their figures going to `figures` (a bundle's templates), else left out.
 */
export async function sweepAnswer(
  catalog: Catalog,
  q: URLSearchParams,
  figures: Figures | null = null,
): Promise<unknown> {
  const id = q.get('sweep');
  if (id === null || id === '') throw new RequestError(400, '"sweep" is missing: name a sweep by its folder');
  const sweep = catalog.sweep(id);
  if (sweep === null)
    throw new RequestError(404, `no sweep folder ${JSON.stringify(terminalText(id.slice(0, 200)))} here`);
  // The plan as the catalog's walk read it: not read a second time for this answer.
  const plan = sweep.plan;
  if (plan === null) throw new RequestError(409, terminalText(sweep.error));
  const models = planModels(plan);
  const points: SweepPoint[] = [];
  const inputs: SweepInput[] = [];
  for (const p of plan.points) {
    const { row, input } = await pointInput(catalog, pointId(id, p.folder), p, models.length === 1 ? models[0]! : null);
    points.push(row);
    if (input) inputs.push(input);
  }
  catalog.keepFew();
  const result = inputs.length > 0 ? buildSweep(id, inputs, models, planAxis(plan)) : null;
  return {
    id,
    models: models.map((m) => terminalText(m)),
    created_at: typeof plan.created_at === 'string' ? terminalText(plan.created_at) : null,
    text: result ? terminalText(renderSweep(result)) : null,
    settings: result ? sweepSettingsLines(result).map(([k, v]) => [k, terminalText(v)]) : [],
    points: points.map((p) => ({
      ...p,
      point: terminalText(p.point),
      model: p.model === null ? null : terminalText(p.model),
      status: terminalText(p.status),
      problem: p.problem === null ? null : terminalText(p.problem),
    })),
    ...(result ? { sections: sectionsOf(result, figures) } : {}),
  };
}

function sectionsOf(result: SweepResult, figures: Figures | null): Section[] {
  const sections = sweepSections(result, figures);
  return figures ? sections : Figures.omitted(sections, FIGURES_WHERE);
}
