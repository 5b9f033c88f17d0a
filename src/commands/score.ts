/**
 * `bas score`: grades replies produced elsewhere against their tasks, prints the same tables
 * as `bas eval`, with `--out FILE` writes one scored line per reply, and with `--output DIR` a
 * run folder (whose results.jsonl holds those lines and one per missing reply).
 * Every reply is checked before anything is written, so bad input leaves no partial file.
 * Exit: 0; 2 for bad input; 3, as eval, when no rollout completed or more errored (missing
 * replies and failed batch requests) than --max-error-rate allows.
 */
import { ConfigError, ErrorRateError, InputLineError } from '../errors/index.js';
import { readJsonLines } from '../io/jsonl.js';
import { outsideText } from '../io/outside-text.js';
import { openSink, withSink } from '../io/output.js';
import { SummaryBuilder } from '../summary/summary-builder.js';
import type { Summary } from '../summary/summary.js';
import { errorBudget } from '../summary/error-budget.js';
import {
  erroredRecord,
  missingReplyRecord,
  MISSING_REPLY,
  pairKey,
  scoredRecord,
  type PairKey,
  type RolloutRecord,
} from '../runfile/record.js';
import { scoreReply } from '../task/score.js';
import { taskFromJson } from '../task/serialize.js';
import { ledgerFigures, type LedgerFigures } from '../task/implied.js';
import { isBatchLine, readBatchResult, requestSampling, sameSampling } from '../endpoint/batch-file.js';
import { taskDigest } from '../runfile/task-digest.js';
import type { AnswerKey, TaskConfig } from '../task/types.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags, type FlagValues } from '../settings/flag.js';
import { checkOutputs } from '../settings/output-paths.js';
import * as std from '../io/std.js';
import type { Sampling } from '../settings/setting-table.js';

interface KeyedTask {
  key: AnswerKey;
  /** What the records say of the task they were graded against (runfile/task-digest.ts). */
  digest: string;
  figures: LedgerFigures;
  config: TaskConfig;
  generator: number | null;
  prompt_version: number | null;
}

async function readTasks(path: string): Promise<Map<number, KeyedTask>> {
  const tasks = new Map<number, KeyedTask>();
  await readJsonLines(path, '--tasks', (value, line) => {
    const task = taskFromJson(value);
    if (tasks.has(task.index)) throw new ConfigError(`${path}:${line}: task index ${task.index} appears twice`);
    tasks.set(task.index, {
      key: task.key,
      digest: taskDigest(task),
      figures: ledgerFigures(task.ledger),
      config: task.config,
      generator: task.generator,
      prompt_version: task.prompt_version,
    });
  });
  if (tasks.size === 0) throw new ConfigError(`--tasks: ${path} holds no tasks`);
  return tasks;
}

interface Reply {
  index: number;
  rollout: number;
  reply: string | null;
  model: string | null;
  usage: RolloutRecord['usage'];
  finish_reason: string | null;
  error: RolloutRecord['error'];
}

/** A batch engine's output line: a reply, or a typed error when the request failed. */
function readBatchLine(value: unknown, tasks: Map<number, KeyedTask>): Reply {
  const r = readBatchResult(value);
  if (!tasks.has(r.index)) throw new InputLineError(`result for task ${r.index}, which the tasks file does not hold`);
  return {
    index: r.index,
    rollout: r.rollout,
    reply: r.completion?.text ?? null,
    model: r.model,
    usage: r.completion?.usage ?? r.usage ?? null,
    finish_reason: r.completion?.finish_reason ?? null,
    error: r.error,
  };
}

function readReplyLine(value: unknown, tasks: Map<number, KeyedTask>, seen: Map<number, number>): Reply {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InputLineError('a reply line must be an object {"index", "reply"}');
  const o = value as Record<string, unknown>;
  const index = o.index;
  if (typeof index !== 'number' || !Number.isSafeInteger(index) || index < 0)
    throw new InputLineError('"index" must be a non-negative integer');
  // A run's own results.jsonl can be graded again: its errored lines (`"reply": null` with an
  // `error`) stay errored rollouts of their recorded type.
  const error = o.reply === null ? recordedError(o.error) : null;
  if (typeof o.reply !== 'string' && error === null)
    throw new InputLineError(
      '"reply" must be a string (or null, with the "error" {"type", "message"} of a run\'s line)',
    );
  if (!tasks.has(index)) throw new InputLineError(`reply for task ${index}, which the tasks file does not hold`);
  // Several replies to one task are its rollouts, numbered in file order unless the line says.
  let rollout = seen.get(index) ?? 0;
  if (o.rollout !== undefined) {
    if (typeof o.rollout !== 'number' || !Number.isSafeInteger(o.rollout) || o.rollout < 0)
      throw new InputLineError('"rollout" must be a non-negative integer');
    rollout = o.rollout;
  }
  seen.set(index, Math.max(seen.get(index) ?? 0, rollout + 1));
  if (error !== null) return { index, rollout, reply: null, model: null, usage: null, finish_reason: null, error };
  return { index, rollout, reply: o.reply as string, model: null, usage: null, finish_reason: null, error: null };
}

/** The error of a results.jsonl line, made safe; null when `value` is not one. */
function recordedError(value: unknown): RolloutRecord['error'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const { type, message } = value as { type?: unknown; message?: unknown };
  if (typeof type !== 'string' || !/^[a-z][a-z_]{0,39}$/.test(type)) return null;
  return { type, message: outsideText(typeof message === 'string' ? message : '') };
}

function toRecord(r: Reply, task: KeyedTask, model: string | null): RolloutRecord {
  const base = {
    index: r.index,
    rollout: r.rollout,
    config: task.config,
    task_digest: task.digest,
    model: model ?? r.model ?? undefined,
  };
  const extra = { usage: r.usage, finish_reason: r.finish_reason };
  if (r.error || r.reply === null)
    return erroredRecord(base, r.error ?? { type: 'malformed', message: 'no reply' }, { reply: r.reply, ...extra });
  return scoredRecord(base, r.reply, scoreReply(r.reply, task.key, task.figures), extra);
}

/** As many rollouts per task as eval's -r allows. */
const MAX_ROLLOUTS = 1000;

/**
 * An errored record for every planned (task, rollout) with no reply: every task of the tasks
 * file, each with as many rollouts as the most any task has. So the errors-as-0 view covers
 * every task, and a replies file that lost lines cannot pass for a complete run.
 */
function missingReplies(
  tasks: Map<number, KeyedTask>,
  records: RolloutRecord[],
  pairs: Set<PairKey>,
  file: string,
  model: string | null,
): RolloutRecord[] {
  const rollouts = records.reduce((m, r) => Math.max(m, (r.rollout ?? 0) + 1), 1);
  const out: RolloutRecord[] = [];
  const indices = [...tasks.keys()].sort((a, b) => a - b);
  for (const index of indices) {
    for (let rollout = 0; rollout < rollouts; rollout++) {
      if (pairs.has(pairKey(index, rollout))) continue;
      out.push(
        missingReplyRecord(
          {
            index,
            rollout,
            config: tasks.get(index)!.config,
            task_digest: tasks.get(index)!.digest,
            model: model ?? undefined,
          },
          file,
        ),
      );
    }
  }
  return out;
}

type ScoreFlags = FlagValues<typeof COMMAND_FLAGS.score> & { tasks: string; replies: string };

/**
 * The sampling the replies were made with, as the user tells it (the flags, or the batch
 * request file the replies answer); null (unknown) when nothing is told.
 */
async function toldSampling(flags: ScoreFlags): Promise<Sampling | null> {
  const told = [flags.temperature, flags.maxTokens, flags.reasoningEffort, flags.sampling].some((v) => v !== null);
  if (!told && flags.requests === null) return null;
  if (flags.output === null)
    throw new ConfigError(
      '--temperature, --max-tokens, --reasoning-effort, --sampling and --requests record how the replies were sampled in a run folder: give --output DIR too',
    );
  if (flags.requests !== null) {
    if (told)
      throw new ConfigError('--requests says how the replies were sampled: give it or the sampling flags, not both');
    return requestsSampling(flags.requests);
  }
  return {
    temperature: flags.temperature,
    max_tokens: flags.maxTokens,
    reasoning_effort: flags.reasoningEffort,
    extra: flags.sampling ?? {},
  };
}

/**
 * The sampling every line of a batch request file asks for. Requests sampled in different
 * ways are not one run's: refused, naming the first line that differs from the first.
 */
async function requestsSampling(path: string): Promise<Sampling> {
  let first: Sampling | null = null;
  await readJsonLines(path, '--requests', (value, line) => {
    const sampling = requestSampling(value);
    if (first === null) first = sampling;
    else if (!sameSampling(first, sampling))
      throw new ConfigError(
        `--requests: ${path}:${line} is sampled differently from line 1: one run folder records one sampling`,
      );
  });
  if (first === null) throw new ConfigError(`--requests: ${path} holds no requests`);
  return first;
}

/** Every reply of the replies file graded against its task, in file order. */
async function gradeReplies(flags: ScoreFlags, tasks: Map<number, KeyedTask>): Promise<RolloutRecord[]> {
  const records: RolloutRecord[] = [];
  const seen = new Map<number, number>();
  const pairs = new Set<PairKey>();
  await readJsonLines(flags.replies, '--replies', (value) => {
    const r = isBatchLine(value) ? readBatchLine(value, tasks) : readReplyLine(value, tasks, seen);
    // Every task is planned with as many rollouts as the highest named: an unbounded number
    // would have the missing ones counted for ever. eval's -r allows 1..1000, so 0..999.
    if (r.rollout >= MAX_ROLLOUTS)
      throw new InputLineError(`rollout ${r.rollout} is out of range: rollouts are numbered 0 to ${MAX_ROLLOUTS - 1}`);
    const pair = pairKey(r.index, r.rollout);
    if (pairs.has(pair)) throw new InputLineError(`task ${r.index} rollout ${r.rollout} has a second reply`);
    pairs.add(pair);
    records.push(toRecord(r, tasks.get(r.index)!, flags.model ?? null));
  });
  if (records.length === 0) throw new ConfigError(`--replies: ${flags.replies} holds no replies`);
  return records;
}

/** The summary on standard output (standard error when the records go to standard output), and a warning for what is missing. */
async function printScored(flags: ScoreFlags, summary: Summary, scoredLines: number, missing: number): Promise<void> {
  if (missing > 0) {
    const planned = scoredLines + missing;
    std
      .stderr()
      .write(
        `bas: warning: incomplete: ${scoredLines} of ${planned} planned rollouts have a reply; the ${missing} missing are counted as errored rollouts of type ${MISSING_REPLY}\n`,
      );
  }
  const print = flags.out === '-' ? std.stderr() : std.stdout();
  if (flags.json) return void print.write(`${JSON.stringify(summary, null, 2)}\n`);
  const { renderSummary } = await import('../report/tables.js');
  // The replies the file held; the missing ones are the error table's.
  const replied = `${scoredLines} ${scoredLines === 1 ? 'reply' : 'replies'}`;
  print.write(renderSummary(summary, { title: `Scored ${replied} from ${flags.replies}` }));
}

export async function score(given: Record<string, unknown>): Promise<void> {
  const flags = readFlags(COMMAND_FLAGS.score, given) as ScoreFlags;
  // `--out -` is standard output: the tables then go to standard error, so the lines stay JSONL.
  const outFile = flags.out !== null && flags.out !== '-' ? flags.out : null;
  const owned = flags.output !== null ? [flags.output] : [];
  checkOutputs([
    { flag: '--output', path: flags.output, kind: 'folder' },
    { flag: '--out', path: outFile, kind: 'file', inputs: [flags.tasks, flags.replies], owned },
  ]);
  const sampling = await toldSampling(flags);
  if (flags.output !== null) (await import('../runfile/build.js')).requireEmptyOutput(flags.output, '--output');
  const tasks = await readTasks(flags.tasks);
  // Refuse a tasks file that --output cannot stand for before any reply is read.
  const scoredRun = flags.output !== null ? await import('../runfile/scored-run.js') : null;
  scoredRun?.singleTaskConfig(tasks);
  const records = await gradeReplies(flags, tasks);
  // One line per reply: the missing ones, added next, are the run folder's and the summary's.
  const scoredLines = records.length;
  const pairs = new Set(records.map((r) => pairKey(r.index, r.rollout ?? 0)));
  const missing = missingReplies(tasks, records, pairs, flags.replies, flags.model ?? null);
  records.push(...missing);
  const builder = new SummaryBuilder();
  for (const r of records) builder.add(r);
  const summary = builder.result();
  if (flags.out !== null) {
    await withSink(openSink(outFile ?? undefined, '--out'), async (sink) => {
      for (let i = 0; i < scoredLines; i++) await sink.write(`${JSON.stringify(records[i])}\n`);
    });
  }
  if (scoredRun) {
    const model = flags.model ?? records.find((r) => r.model)?.model ?? 'unknown';
    const status = missing.length > 0 ? 'incomplete' : 'complete';
    await scoredRun.writeScoredRun(flags.output!, records, tasks, summary, model, status, flags.maxErrorRate, sampling);
  }
  await printScored(flags, summary, scoredLines, missing.length);
  const over = overBudget(summary, flags.maxErrorRate);
  if (over) throw over;
}

/**
 * eval's error budget, applied once everything is printed and written: no rollout completed,
 * or more errored (missing replies included) than `maxErrorRate` allows, is exit 3.
 */
function overBudget(summary: Summary, maxErrorRate: number): ErrorRateError | null {
  const { errored, rollouts, errors_by_type } = summary.counts;
  const verdict = errorBudget(summary.counts, maxErrorRate);
  if (verdict === 'ok') return null;
  const types = Object.entries(errors_by_type)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  if (verdict === 'nothing-completed')
    return new ErrorRateError(`no rollout completed (${errored} errored: ${types}); nothing was measured`);
  const missing = errors_by_type[MISSING_REPLY] ?? 0;
  const fix = [
    ...(missing > 0 ? ['give the missing replies'] : []),
    ...(errored > missing ? ['send the failed requests again'] : []),
  ].join(' and ');
  return new ErrorRateError(
    `${errored} of ${rollouts} rollouts errored (${types}), more than --max-error-rate ${maxErrorRate} allows; ${fix}, or --max-error-rate 1 to accept them`,
  );
}
