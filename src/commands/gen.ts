/**
 * `bas gen`: writes tasks in one of several formats, streaming, so memory stays flat however
 * many tasks are asked for.
 */
import { ConfigError } from '../errors/index.js';
import { openSink, withSink } from '../io/output.js';
import { generateTask } from '../task/generate.js';
import { taskToJson } from '../task/serialize.js';
import { datasetRow, splitSeed, type Split } from '../task/dataset.js';
import type { Task, TaskConfig } from '../task/types.js';
import type { GenFormat } from '../settings/choices.js';
import type { EvalFlags } from '../settings/settings.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { taskConfigOf } from '../settings/setting-table.js';
import { readFlags, type FlagValues } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import * as std from '../io/std.js';

type GenFlags = FlagValues<typeof COMMAND_FLAGS.gen>;

function chooseFormat(flags: GenFlags): GenFormat {
  if (flags.format === null) return flags.out || !std.stdout().isTTY ? 'jsonl' : 'table';
  return flags.format as GenFormat;
}

function promptText(task: Task): string {
  let out = '';
  for (const m of task.prompt) out += `===== task ${task.index} · ${m.role} =====\n${m.content}\n`;
  return out;
}

/** Requests as `bas eval` would send them, checked by the same rules as its flags. */
async function batchRenderer(flags: Record<string, unknown>): Promise<(task: Task) => string> {
  const [{ resolvePlan }, { requestFields }, { batchRequestLines }] = await Promise.all([
    import('../settings/plan.js'),
    import('../endpoint/client.js'),
    import('../endpoint/batch-file.js'),
  ]);
  if (flags.model === undefined)
    throw new ConfigError('--format batch needs -m/--model: the model id each request names');
  const plan = resolvePlan(flags as EvalFlags, null, '', std.env());
  if (plan.target.kind === 'builtin')
    throw new ConfigError('--format batch needs a real model id; built-in models run with bas eval');
  const options = {
    fields: requestFields(plan.target.model, plan.target.sampling, plan.target.baseURL),
    rollouts: plan.tasks.rollouts,
  };
  return (task) => batchRequestLines(task, options);
}

/**
 * The configuration with `--split` applied: the test split keeps the seed, the train split
 * takes the seed derived from it (task/dataset.ts says how), and says so on standard error.
 */
function splitConfig(flags: GenFlags): TaskConfig {
  const config = taskConfigOf(flags);
  if (flags.split === null) return config;
  const seed = splitSeed(config.seed, flags.split as Split);
  std
    .stderr()
    .write(
      `bas gen: ${flags.split} split of seed ${config.seed}: tasks of seed ${seed}${flags.split === 'test' ? ', the tasks bas eval runs with this seed' : `; the test split is seed ${config.seed}`}\n`,
    );
  return { ...config, seed };
}

export async function gen(given: Record<string, unknown>): Promise<void> {
  const flags = readFlags(COMMAND_FLAGS.gen, given);
  const config = splitConfig(flags);
  const n = flags.num;
  const format = chooseFormat(flags);
  let render: (task: Task) => string;
  let header = '';
  const batchOnly = ['model', 'rollouts', 'temperature', 'maxTokens', 'reasoningEffort', 'sampling'] as const;
  if (format !== 'batch' && batchOnly.some((k) => given[k] !== undefined)) {
    throw new ConfigError('--model, --rollouts and the sampling flags apply only to --format batch');
  }
  checkOutputs([{ flag: '-o/--out', path: flags.out, kind: 'file' }]);
  if (format === 'batch') render = await batchRenderer(given);
  else if (format === 'jsonl') render = (task) => `${JSON.stringify(taskToJson(task))}\n`;
  else if (format === 'dataset') render = (task) => `${JSON.stringify(datasetRow(task))}\n`;
  else if (format === 'prompt') render = promptText;
  else if (format === 'csv') {
    const view = await import('../report/ledger-view.js');
    header = view.CSV_HEADER;
    render = view.taskCsvRows;
  } else {
    const view = await import('../report/ledger-view.js');
    render = (task) => `${task.index > 0 ? '\n' : ''}${view.renderTaskTable(task)}`;
  }
  await withSink(openSink(flags.out ?? undefined, '--out'), async (sink) => {
    if (header) await sink.write(header);
    // The csv and table views show the ledger only: no need to build prompts for them.
    const options = { prompt: format !== 'csv' && format !== 'table' };
    for (let i = 0; i < n; i++) await sink.write(render(generateTask(config, i, options)));
  });
}
