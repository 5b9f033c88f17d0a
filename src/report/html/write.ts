/** Writing report pages to disk, through the same atomic file sink as every other output. */
import { fileSink, withSink } from '../../io/output.js';
import type { Comparison } from '../compare.js';
import type { RunData } from '../read.js';
import type { RunReport } from '../run-report.js';
import { comparePage } from './compare-page.js';
import { buildDrillData } from './drilldown.js';
import { runPage } from './run-page.js';

/** Writes the page of one run (reads its results a second time for the task drill-down). */
export async function writeRunHtml(file: string, data: RunData, report: RunReport): Promise<void> {
  // The sink is opened first, so a bad path is refused before the page is built.
  await withSink(fileSink(file, '--html'), async (sink) => sink.write(runPage(report, await buildDrillData(data))));
}

/** Writes the page of a comparison. */
export async function writeCompareHtml(file: string, c: Comparison): Promise<void> {
  await withSink(fileSink(file, '--html'), async (sink) => sink.write(comparePage(c)));
}
