/**
 * The flags of the commands over task files: `bas gen` writes them, `bas validate` checks their
 * keys, `bas score` scores replies to them that were made elsewhere.
 */
import { SPLITS } from '../task/dataset.js';
import { GEN_FORMATS } from './choices.js';
import type { Flag } from './flag.js';
import { batchOnly, taskGroup, toldSampling } from './flag-groups.js';
import { json, oneOf, text } from './flag-kinds.js';
import { parseModel } from './setting-parse.js';
import { SETTINGS } from './setting-table.js';

/** gen's, validate's and score's flags, each in the order of its `--help`. */
export const TASK_FILE_FLAGS = {
  gen: {
    ...taskGroup(10),
    format: {
      flags: '--format <F>',
      help: `what to write: ${GEN_FORMATS.join(', ')}`,
      defaultText: 'jsonl when written to a file or a pipe, table on a terminal',
      default: null,
      parse: oneOf(GEN_FORMATS),
    } satisfies Flag<string | null>,
    split: {
      flags: '--split <SPLIT>',
      help: `${SPLITS.join(' or ')}: disjoint task sets of one seed (test = the tasks bas eval runs)`,
      defaultText: null,
      default: null,
      parse: oneOf(SPLITS),
    } satisfies Flag<string | null>,
    out: text('-o, --out <FILE>', 'write to FILE instead of standard output'),
    model: batchOnly({ ...SETTINGS.model, help: 'model named in each request', defaultText: null }),
    temperature: batchOnly(SETTINGS.temperature),
    maxTokens: batchOnly(SETTINGS.maxTokens),
    reasoningEffort: batchOnly(SETTINGS.reasoningEffort),
    sampling: batchOnly(SETTINGS.sampling),
    rollouts: batchOnly({ ...SETTINGS.rollouts, help: 'requests per task, 1..1000' }),
  },
  validate: {
    ...taskGroup(60),
    tasks: text('--tasks <FILE>', 'check the keys shipped in a tasks JSONL file instead of generating'),
    json: json('print the result as JSON'),
  },
  score: {
    tasks: text('--tasks <FILE>', 'tasks JSONL written by bas gen', { required: true }),
    replies: text('--replies <FILE>', 'replies JSONL: {"index", "reply"} lines, or a batch output file', {
      required: true,
    }),
    output: text('--output <DIR>', 'write a run folder (results.jsonl, run.json) that bas report and bas compare read'),
    // SPEC.md: `--out` writes one scored line per reply. As for gen, `--out` names a file and
    // `--output` a folder; both may be given.
    out: text(
      '--out <FILE>',
      "write one scored line per reply (JSONL, in the replies' order, results.jsonl's line shape); - for standard output",
    ),
    model: { ...text('-m, --model <MODEL>', 'model name recorded in the run folder'), parse: parseModel },
    requests: text(
      '--requests <FILE>',
      'the batch request file the replies answer (bas gen --format batch): its sampling is recorded in the run folder',
    ),
    temperature: toldSampling(SETTINGS.temperature),
    maxTokens: toldSampling(SETTINGS.maxTokens),
    reasoningEffort: toldSampling(SETTINGS.reasoningEffort),
    sampling: toldSampling({ ...SETTINGS.sampling, default: null as Record<string, unknown> | null }),
    // eval's error budget: missing replies and failed batch requests are errored rollouts.
    maxErrorRate: {
      ...SETTINGS.maxErrorRate,
      help: 'share of errored rollouts (missing replies included), 0..1, above which score exits 3',
      doc: 'Share of errored rollouts (0..1), missing replies and failed batch requests included, above which score exits 3 after printing and writing what it scored; recorded in the run folder.',
    },
    json: json('print the summary as JSON'),
  },
};
