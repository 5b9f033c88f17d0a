/**
 * `bas merge DIR... --output DIR`: joins the shards of a run (or any runs of one
 * configuration with disjoint rollouts) into one run folder, and prints its summary.
 */
import { ConfigError } from '../errors/index.js';
import { mergeRuns } from '../runfile/merge.js';

export interface MergeFlags {
  output?: string;
  json?: boolean;
}

export async function merge(dirs: string[], flags: MergeFlags): Promise<void> {
  if (!flags.output) throw new ConfigError('bas merge needs --output DIR: the folder of the merged run');
  const outcome = await mergeRuns(dirs, flags.output);
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(outcome.summary, null, 2)}\n`);
  } else {
    const { renderSummary } = await import('../report/tables.js');
    process.stdout.write(
      renderSummary(outcome.summary, {
        title: `Merged ${dirs.length} runs of ${outcome.info.model} into ${outcome.dir}`,
      }),
    );
  }
  if (outcome.missing > 0) {
    process.stderr.write(
      `bas: warning: incomplete: ${outcome.expected - outcome.missing} of ${outcome.expected} rollouts are in the inputs (${outcome.missing} missing); run the missing shard and merge again, or run them into the merged folder with bas eval --resume ${outcome.dir}\n`,
    );
  }
}
