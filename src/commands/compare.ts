/**
 * `bas compare RUN_DIR...`: runs side by side, and paired differences in reward against the
 * first run where the runs share tasks.
 */
import { ConfigError } from '../errors/index.js';
import { buildComparison, renderComparison } from '../report/compare.js';
import { refuseOutputOverInput } from '../io/output.js';
import { readRun, type RunData } from '../report/read.js';
import { refuseRepeatedRuns } from '../report/run-names.js';
import { runInputs } from '../runfile/read.js';
import { parseCount } from '../task/config.js';

export interface CompareOptions {
  json?: boolean;
  html?: string;
  seed?: string;
  resamples?: string;
}

export async function compare(dirs: string[], opts: CompareOptions): Promise<void> {
  const seed = opts.seed === undefined ? 1 : parseCount(opts.seed, '--seed', 0, 2 ** 32 - 1);
  const resamples = opts.resamples === undefined ? 10_000 : parseCount(opts.resamples, '--resamples', 100, 1_000_000);
  if (dirs.length < 2) throw new ConfigError('bas compare needs at least two run folders (use bas report for one)');
  refuseRepeatedRuns(dirs, 'compare');
  if (opts.html) refuseOutputOverInput(opts.html, '--html', dirs.flatMap(runInputs));
  const runs: RunData[] = [];
  for (const dir of dirs) runs.push(await readRun(dir));
  const c = buildComparison(runs, seed, resamples);
  if (opts.html) {
    const { writeCompareHtml } = await import('../report/html/write.js');
    await writeCompareHtml(opts.html, c);
  }
  process.stdout.write(opts.json ? JSON.stringify(c, null, 2) + '\n' : renderComparison(c));
  if (opts.html && !opts.json) process.stdout.write(`HTML comparison written to ${opts.html}\n`);
}
