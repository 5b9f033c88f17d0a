/**
 * `bas report RUN_DIR`: the summary of a saved run with its provenance, breakdowns and cost,
 * as tables or JSON, and optionally a self-contained HTML page; `--rollout I:R` shows one
 * rollout (or embeds it in the page). The results file is read once, whatever is asked: the
 * page's bounded drill-down is chosen while the summary is built.
 */
import { ConfigError } from '../errors/index.js';
import { readRunFolding } from '../report/read.js';
import { runInputs } from '../runfile/read.js';
import { buildRunReport, renderRunReport } from '../report/run-report.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import { DrillSelection } from '../report/html/selection.js';
import { drillDataOf } from '../report/html/drilldown.js';
import { rolloutDetail } from '../display/drill.js';
import { renderRollout } from '../report/rollout-text.js';
import * as std from '../io/std.js';

export async function report(dir: string, given: Record<string, unknown>): Promise<void> {
  // Flags first: a bad price or rollout fails before any file is read.
  const opts = readFlags(COMMAND_FLAGS.report, given);
  const prices = { in: opts.priceIn ?? undefined, out: opts.priceOut ?? undefined };
  const requested = opts.rollout;
  checkOutputs([{ flag: '--html', path: opts.html, kind: 'file', inputs: runInputs(dir) }]);
  const wantDrill = opts.html !== null || requested.length > 0;
  const { data, fold: selection } = await readRunFolding(dir, () => (wantDrill ? new DrillSelection(requested) : null));
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
      std
        .stdout()
        .write(
          JSON.stringify({ run: r.run, rollouts: picked.map(({ x }) => rolloutDetail(drill!, x)) }, null, 2) + '\n',
        );
    } else {
      std.stdout().write(picked.map(({ i }) => renderRollout(drill!, i, data.model)).join('\n'));
    }
    return;
  }
  std.stdout().write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderRunReport(r));
  if (opts.html && !opts.json) std.stdout().write(`HTML report written to ${opts.html}\n`);
}
