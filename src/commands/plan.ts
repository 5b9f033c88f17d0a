/**
 * `bas plan RUN_DIR [RUN_DIR]`: the tasks a fixed design needs to detect a difference, from a
 * pilot run or two runs sharing tasks, with its cost where prices are known.
 */
import { ConfigError } from '../errors/index.js';
import { buildPlan, renderPlan } from '../report/plan.js';
import { refuseRepeatedRuns } from '../report/run-names.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import * as std from '../io/std.js';

export async function plan(dirs: string[], given: Record<string, unknown>): Promise<void> {
  const opts = readFlags(COMMAND_FLAGS.plan, given);
  if (dirs.length > 2) throw new ConfigError('bas plan takes one pilot run, or two runs that share tasks, not more');
  refuseRepeatedRuns(dirs, 'plan');
  const p = await buildPlan(dirs, {
    difference: opts.difference,
    rollouts: opts.rollouts,
    prices: { in: opts.priceIn ?? undefined, out: opts.priceOut ?? undefined },
    simulations: opts.simulations,
    seed: opts.seed,
    maxTasks: opts.maxTasks,
  });
  std.stdout().write(opts.json ? `${JSON.stringify(p, null, 2)}\n` : renderPlan(p));
}
