/**
 * `bas report RUN_DIR`: the summary of a saved run with its breakdowns and cost, as tables,
 * JSON, and optionally a self-contained HTML page.
 */
import { refuseOutputOverInput } from '../io/output.js';
import { readRun } from '../report/read.js';
import { runInputs } from '../runfile/read.js';
import { buildRunReport, parsePrice, renderRunReport } from '../report/run-report.js';

export interface ReportOptions {
  json?: boolean;
  html?: string;
  priceIn?: string;
  priceOut?: string;
}

export async function report(dir: string, opts: ReportOptions): Promise<void> {
  // Flags first: a bad price fails before any file is read.
  const prices = { in: parsePrice(opts.priceIn, '--price-in'), out: parsePrice(opts.priceOut, '--price-out') };
  if (opts.html) refuseOutputOverInput(opts.html, '--html', runInputs(dir));
  const data = await readRun(dir);
  const r = buildRunReport(data, prices);
  if (opts.html) {
    const { writeRunHtml } = await import('../report/html/write.js');
    await writeRunHtml(opts.html, data, r);
  }
  process.stdout.write(opts.json ? JSON.stringify(r, null, 2) + '\n' : renderRunReport(r));
  if (opts.html && !opts.json) process.stdout.write(`HTML report written to ${opts.html}\n`);
}
