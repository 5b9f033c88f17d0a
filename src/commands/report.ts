/**
 * `bas report RUN_DIR`: the summary of a saved run with its provenance, breakdowns and cost,
 * as tables or JSON, and optionally a self-contained HTML page; `--rollout I:R` shows one
 * rollout (or embeds it in the page). The results file is read once, whatever is asked: the
 * page's bounded drill-down is chosen while the summary is built.
 */
import { ConfigError } from '../errors.js';
import { refuseOutputOverInput } from '../io/output.js';
import { readRun } from '../report/read.js';
import { runInputs } from '../runfile/read.js';
import { buildRunReport, parsePrice, renderRunReport } from '../report/run-report.js';
import { DrillSelection } from '../report/html/selection.js';
import { drillDataOf } from '../report/html/drilldown.js';
import { renderRollout } from '../report/rollout-text.js';

export interface ReportOptions {
  json?: boolean;
  html?: string;
  priceIn?: string;
  priceOut?: string;
  /** "I:R" (or "I" for rollout 0), each given once or as a comma-separated list. */
  rollout?: string[];
}

/** At most this many rollouts by name in one command (each is embedded whole). */
const MAX_REQUESTED = 1000;

/** Parses `--rollout` values: "17:0", "17" (rollout 0), or lists "3:0,17:2". */
export function parseRollouts(values: string[] | undefined): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const v of values ?? [])
    for (const part of v.split(',')) {
      const m = /^\s*(\d{1,9})(?::(\d{1,3}))?\s*$/.exec(part);
      if (!m)
        throw new ConfigError(
          `--rollout must be INDEX:ROLLOUT (such as 17:0), or INDEX for rollout 0, got ${JSON.stringify(part)}`,
        );
      out.push([Number(m[1]), Number(m[2] ?? 0)]);
    }
  if (out.length > MAX_REQUESTED)
    throw new ConfigError(`--rollout names ${out.length} rollouts; at most ${MAX_REQUESTED}`);
  return out;
}

export async function report(dir: string, opts: ReportOptions): Promise<void> {
  // Flags first: a bad price or rollout fails before any file is read.
  const prices = { in: parsePrice(opts.priceIn, '--price-in'), out: parsePrice(opts.priceOut, '--price-out') };
  const requested = parseRollouts(opts.rollout);
  if (opts.html) refuseOutputOverInput(opts.html, '--html', runInputs(dir));
  const wantDrill = opts.html !== undefined || requested.length > 0;
  const selection = wantDrill ? new DrillSelection(requested) : null;
  const data = await readRun(dir, { onRecord: selection ? (r) => selection.add(r) : undefined });
  const missing = selection?.missing() ?? [];
  if (missing.length)
    throw new ConfigError(
      `${dir} has no rollout ${missing.map(([i, r]) => `${i}:${r}`).join(', ')} (it holds ${data.summary.counts.tasks} task(s) with up to ${data.summary.counts.max_rollouts} rollout(s) each)`,
    );
  const r = buildRunReport(data, prices);
  const drill = selection ? drillDataOf(data, selection.selected()) : null;
  if (opts.html) {
    const { writeRunHtml } = await import('../report/html/write.js');
    await writeRunHtml(opts.html, data, r, drill!);
  }
  if (requested.length && !opts.html) {
    // The rollouts asked for, and nothing else: the summary is `bas report DIR` alone.
    const asked = new Set(requested.map(([i, k]) => `${i}:${k}`));
    const picked = drill!.rollouts.map((x, i) => ({ x, i })).filter(({ x }) => asked.has(`${x[1]}:${x[2]}`));
    if (opts.json) {
      process.stdout.write(
        JSON.stringify({ run: r.run, rollouts: picked.map(({ x }) => rolloutJson(drill!, x)) }, null, 2) + '\n',
      );
    } else {
      process.stdout.write(picked.map(({ i }) => renderRollout(drill!, i, data.model)).join('\n'));
    }
    return;
  }
  process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderRunReport(r));
  if (opts.html && !opts.json) process.stdout.write(`HTML report written to ${opts.html}\n`);
}

/** One rollout of the page data as named fields, for `--rollout … --json`. */
function rolloutJson(
  d: NonNullable<ReturnType<typeof drillDataOf>>,
  x: ReturnType<typeof drillDataOf>['rollouts'][number],
) {
  const task = x[0] >= 0 ? d.tasks[x[0]]! : null;
  const row = (cells: (typeof d.tasks)[number]['rows'][number]) =>
    Object.fromEntries(
      d.layout.row.map((name, i) => [
        name,
        d.layout.interned.includes(name) ? d.strings[cells[i] as number] : cells[i],
      ]),
    );
  return {
    ...Object.fromEntries(d.layout.rollout.map((name, i) => [name, x[i]])),
    figures:
      x[9] === null
        ? null
        : Object.fromEntries(d.labels.map((l, i) => [l, { given: x[9]![i]![0], right: x[9]![i]![1] }])),
    task:
      task === null
        ? null
        : {
            business: task.business,
            period: task.period,
            expected_bas: Object.fromEntries(d.labels.map((l, i) => [l, task.bas[i]])),
            expected_faults: Object.fromEntries(
              Object.entries(task.faults).map(([id, cs]) => [id, cs.map((c) => d.codes[c])]),
            ),
            rows: task.rows.map(row),
          },
  };
}
