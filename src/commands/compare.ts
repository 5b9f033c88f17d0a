/**
 * `bas compare RUN_DIR...`: runs side by side, and paired differences in reward against the
 * first run where the runs share tasks.
 */
import { ConfigError } from '../errors/index.js';
import { readComparison, renderComparison } from '../report/compare.js';
import { renderComparisonColumns } from '../report/compare-columns.js';
import { refuseRepeatedRuns } from '../report/run-names.js';
import { runInputs } from '../runfile/read.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import * as std from '../io/std.js';

export async function compare(dirs: string[], given: Record<string, unknown>): Promise<void> {
  const opts = readFlags(COMMAND_FLAGS.compare, given);
  const { seed, resamples } = opts;
  if (dirs.length < 2) throw new ConfigError('bas compare needs at least two run folders (use bas report for one)');
  refuseRepeatedRuns(dirs, 'compare');
  checkOutputs([{ flag: '--html', path: opts.html, kind: 'file', inputs: dirs.flatMap(runInputs) }]);
  const c = await readComparison(dirs, seed, resamples);
  if (opts.html) {
    const { writeCompareHtml } = await import('../report/html/write.js');
    await writeCompareHtml(opts.html, c, opts.columns);
  }
  const text = (): string => (opts.columns === null ? renderComparison(c) : renderComparisonColumns(c, opts.columns));
  std.stdout().write(opts.json ? JSON.stringify(c, null, 2) + '\n' : text());
  if (opts.html && !opts.json) std.stdout().write(`HTML comparison written to ${opts.html}\n`);
}
