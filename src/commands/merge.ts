/**
 * `bas merge DIR... --output DIR`: joins the shards of a run (or any runs of one
 * configuration with disjoint rollouts) into one run folder, and prints its summary.
 */
import { ConfigError } from '../errors/index.js';
import { mergeRuns } from '../runfile/merge.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { savedResumeCommand } from '../settings/resume-command.js';
import { checkOutputs } from '../settings/output-paths.js';
import { MEASURED_RUN_JSON_KEYS } from '../settings/setting-table.js';
import * as std from '../io/std.js';

/**
 * What merged runs must share: the run.json keys of the settings declared `measured`, less
 * `shard`, which differs between shards by design.
 */
const MUST_AGREE = MEASURED_RUN_JSON_KEYS.filter((k) => k !== 'shard');

export async function merge(dirs: string[], given: Record<string, unknown>): Promise<void> {
  const flags = readFlags(COMMAND_FLAGS.merge, given);
  if (!flags.output) throw new ConfigError('merge needs --output DIR: the folder of the merged run');
  checkOutputs([{ flag: '--output', path: flags.output, kind: 'folder' }]);
  const outcome = await mergeRuns(dirs, flags.output, MUST_AGREE);
  if (flags.json) {
    std.stdout().write(`${JSON.stringify(outcome.summary, null, 2)}\n`);
  } else {
    const { renderSummary } = await import('../report/tables.js');
    std.stdout().write(
      renderSummary(outcome.summary, {
        title: `Merged ${dirs.length} runs of ${outcome.info.model} into ${outcome.dir}`,
      }),
    );
  }
  if (outcome.missing > 0) {
    std
      .stderr()
      .write(
        `bas: warning: incomplete: ${outcome.expected - outcome.missing} of ${outcome.expected} rollouts are in the inputs (${outcome.missing} missing); run the missing shard and merge again, or run them into the merged folder with ${savedResumeCommand(outcome.dir, outcome.info, std.env())}\n`,
      );
  }
}
