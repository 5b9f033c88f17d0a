/**
 * `bas report RUN_DIR`: the summary of a saved run with its breakdowns and cost, as tables,
 * JSON, and optionally a self-contained HTML page.
 */
import { readRun } from '../report/read.js';
import { runInputs } from '../runfile/read.js';
import { buildRunReport, renderRunReport } from '../report/run-report.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';

export async function report(dir: string, given: Record<string, unknown>): Promise<void> {
  // Flags first: a bad price fails before any file is read.
  const opts = readFlags(COMMAND_FLAGS.report, given);
  const prices = { in: opts.priceIn ?? undefined, out: opts.priceOut ?? undefined };
  checkOutputs([{ flag: '--html', path: opts.html, kind: 'file', inputs: runInputs(dir) }]);
  const data = await readRun(dir);
  const r = buildRunReport(data, prices);
  if (opts.html) {
    const { writeRunHtml } = await import('../report/html/write.js');
    await writeRunHtml(opts.html, data, r);
  }
  process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderRunReport(r));
  if (opts.html && !opts.json) process.stdout.write(`HTML report written to ${opts.html}\n`);
}
