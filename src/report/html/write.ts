/** Writing report pages to disk. */
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ConfigError } from '../../errors.js';
import type { Comparison } from '../compare.js';
import type { RunData } from '../read.js';
import type { RunReport } from '../run-report.js';
import { comparePage } from './compare-page.js';
import { buildDrillData } from './drilldown.js';
import { runPage } from './run-page.js';

/** Writes beside the target and renames into place, so a failure leaves no partial page. */
async function write(file: string, html: string): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    await writeFile(temp, html, 'utf8');
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw new ConfigError(`cannot write --html ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Writes the page of one run (reads its results a second time for the task drill-down). */
export async function writeRunHtml(file: string, data: RunData, report: RunReport): Promise<void> {
  await write(file, runPage(report, await buildDrillData(data)));
}

/** Writes the page of a comparison. */
export async function writeCompareHtml(file: string, c: Comparison): Promise<void> {
  await write(file, comparePage(c));
}
