/**
 * `bas gen`: writes tasks in one of several formats, streaming, so memory stays flat however
 * many tasks are asked for.
 */
import { ConfigError } from '../errors.js';
import { openSink, withSink } from '../io/output.js';
import { generateTask } from '../task/generate.js';
import { taskToJson } from '../task/serialize.js';
import { datasetRow, splitSeed, SPLITS, type Split } from '../task/dataset.js';
import type { Task, TaskConfig } from '../task/types.js';
import { taskConfigFromFlags, taskCountFromFlags, type TaskFlags } from './task-flags.js';

export const GEN_FORMATS = ['jsonl', 'prompt', 'table', 'csv', 'batch', 'dataset'] as const;
type GenFormat = (typeof GEN_FORMATS)[number];

export interface GenFlags extends TaskFlags {
  format?: string;
  out?: string;
  model?: string;
  temperature?: string;
  maxTokens?: string;
  reasoningEffort?: string;
  sampling?: string;
  rollouts?: string;
  split?: string;
}

/** The default number of tasks `gen` writes. */
export const GEN_DEFAULT_N = 10;

function chooseFormat(flags: GenFlags): GenFormat {
  if (flags.format === undefined) return flags.out || !process.stdout.isTTY ? 'jsonl' : 'table';
  if (!(GEN_FORMATS as readonly string[]).includes(flags.format)) {
    throw new ConfigError(`--format must be one of ${GEN_FORMATS.join(', ')}, got ${JSON.stringify(flags.format)}`);
  }
  return flags.format as GenFormat;
}

function promptText(task: Task): string {
  let out = '';
  for (const m of task.prompt) out += `===== task ${task.index} · ${m.role} =====\n${m.content}\n`;
  return out;
}

/** Requests as `bas eval` would send them, checked by the same rules as its flags. */
async function batchRenderer(flags: GenFlags): Promise<(task: Task) => string> {
  const [{ resolveSettings }, { requestFields, builtinPolicy }, { batchRequestLines }] = await Promise.all([
    import('../settings/settings.js'),
    import('../endpoint/client.js'),
    import('../endpoint/batch-file.js'),
  ]);
  if (flags.model === undefined)
    throw new ConfigError('--format batch needs -m/--model: the model id each request names');
  const settings = resolveSettings(flags, null, '', process.env);
  if (builtinPolicy(settings.model) !== null)
    throw new ConfigError('--format batch needs a real model id; built-in models run with bas eval');
  const options = {
    fields: requestFields(settings.model, settings.sampling, settings.baseURL),
    rollouts: settings.rollouts,
  };
  return (task) => batchRequestLines(task, options);
}

/**
 * The configuration with `--split` applied: the test split keeps the seed, the train split
 * takes the seed derived from it (task/dataset.ts says how), and says so on standard error.
 */
function splitConfig(flags: GenFlags): TaskConfig {
  const config = taskConfigFromFlags(flags);
  if (flags.split === undefined) return config;
  if (!(SPLITS as readonly string[]).includes(flags.split))
    throw new ConfigError(`--split must be train or test, got ${JSON.stringify(flags.split)}`);
  const seed = splitSeed(config.seed, flags.split as Split);
  process.stderr.write(
    `bas gen: ${flags.split} split of seed ${config.seed}: tasks of seed ${seed}${flags.split === 'test' ? ', the tasks bas eval runs with this seed' : `; the test split is seed ${config.seed}`}\n`,
  );
  return { ...config, seed };
}

export async function gen(flags: GenFlags): Promise<void> {
  const config = splitConfig(flags);
  const n = taskCountFromFlags(flags, GEN_DEFAULT_N);
  const format = chooseFormat(flags);
  let render: (task: Task) => string;
  let header = '';
  const batchOnly = [
    flags.model,
    flags.rollouts,
    flags.temperature,
    flags.maxTokens,
    flags.reasoningEffort,
    flags.sampling,
  ];
  if (format !== 'batch' && batchOnly.some((v) => v !== undefined)) {
    throw new ConfigError('--model, --rollouts and the sampling flags apply only to --format batch');
  }
  if (format === 'batch') render = await batchRenderer(flags);
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
  await withSink(openSink(flags.out, '--out'), async (sink) => {
    if (header) await sink.write(header);
    // The csv and table views show the ledger only: no need to build prompts for them.
    const options = { prompt: format !== 'csv' && format !== 'table' };
    for (let i = 0; i < n; i++) await sink.write(render(generateTask(config, i, options)));
  });
}
