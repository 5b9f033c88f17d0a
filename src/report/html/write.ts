/** Writing report pages to disk, through the same atomic file sink as every other output. */
import { fileSink, withSink } from '../../io/output.js';
import type { Comparison } from '../compare.js';
import type { CompareColumn } from '../../settings/choices.js';
import type { RunData } from '../read.js';
import type { RunReport } from '../run-report.js';
import { comparePage } from './compare-page.js';
import { buildDrillData } from './drilldown.js';
import type { DrillData } from '../../display/drill.js';
import { runPage } from './run-page.js';

/**
 * Writes the page of one run with the drill-down `drill` (chosen while the run was read);
 * without one, the results are read a second time for the default selection.
 */
export async function writeRunHtml(file: string, data: RunData, report: RunReport, drill?: DrillData): Promise<void> {
  // The sink is opened first, so a bad path is refused before the page is built.
  await withSink(fileSink(file, '--html'), async (sink) =>
    sink.write(runPage(report, drill ?? (await buildDrillData(data)))),
  );
}

/** Writes the page of a comparison (its runs in one table of `columns`, when `--columns` chose them). */
export async function writeCompareHtml(
  file: string,
  c: Comparison,
  columns: readonly CompareColumn[] | null = null,
): Promise<void> {
  await withSink(fileSink(file, '--html'), async (sink) => sink.write(comparePage(c, columns)));
}
