/**
 * The grading behind the reward server's routes, without HTTP: reading a request body,
 * finding the model's response inside an OpenRLHF query, and grading it with `scoreReply`,
 * the grader `bas score` and `bas eval` use, so a reward here is the reward there.
 */
import { LabelError, RequestError } from '../errors/index.js';
import { scoreReply } from '../task/score.js';
import type { Scores } from '../task/types.js';
import { labelRows, type Lane } from './grade-queue.js';
import { checkLabel, type TaskKeys } from './task-keys.js';

/**
 * Where the graded response came from: after the prompt (`prompt`), after the prompt read
 * with whitespace ignored (`prompt_loose`), after the last assistant-turn marker (`marker`),
 * or nowhere (`none`: graded as an empty reply, so it scores 0 and `parsed` is 0).
 */
export type ResponseSource = 'prompt' | 'prompt_loose' | 'marker' | 'none';

/**
 * Where chat templates start the assistant's turn (ChatML, Llama 3, gpt-oss, Phi and Zephyr,
 * Llama 2 and Mistral, Gemma, DeepSeek). Only used when the query does not start with its prompt.
 */
const ASSISTANT_MARKERS = [
  '<|im_start|>assistant',
  '<|start_header_id|>assistant<|end_header_id|>',
  '<|start|>assistant',
  '<|assistant|>',
  '[/INST]',
  '<start_of_turn>model',
  '<｜Assistant｜>',
];

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12 || code === 11 || code === 0xa0;
}

/**
 * Where the query's text after `prompt` starts when the two are compared with every whitespace
 * character ignored, or -1 when the prompt's other characters are not the query's first ones.
 * A tokenizer's decode can change spaces and newlines (a leading space, `\r\n`), never the
 * rest. One pass over each string: linear in their lengths.
 */
function looseEnd(query: string, prompt: string): number {
  let i = 0;
  for (let j = 0; j < prompt.length; j++) {
    const c = prompt.charCodeAt(j);
    if (isSpace(c)) continue;
    while (i < query.length && isSpace(query.charCodeAt(i))) i++;
    if (i >= query.length || query.charCodeAt(i) !== c) return -1;
    i++;
  }
  return i;
}

/**
 * The model's response inside `query` (the prompt and the response as the trainer's chat
 * template joined them). The prompt is a prefix of the query whenever the trainer decodes
 * what it encoded; otherwise (a tokenizer that does not round-trip, a prompt cut to fit the
 * context) the response is the text after the last assistant marker. With neither there is
 * no telling where the response starts, and grading the whole query would read the example
 * answer block in the prompt, so the response is taken as empty.
 */
export function responseOf(query: string, prompt: string): { response: string; from: ResponseSource } {
  if (query.startsWith(prompt)) return { response: query.slice(prompt.length), from: 'prompt' };
  const end = looseEnd(query, prompt);
  if (end >= 0) return { response: query.slice(end), from: 'prompt_loose' };
  let after = -1;
  for (const m of ASSISTANT_MARKERS) {
    const at = query.lastIndexOf(m);
    if (at >= 0 && at + m.length > after) after = at + m.length;
  }
  if (after >= 0) return { response: query.slice(after), from: 'marker' };
  return { response: '', from: 'none' };
}

function stringList(body: Record<string, unknown>, name: string): string[] {
  const v = body[name];
  if (!Array.isArray(v)) throw new RequestError(400, `"${name}" must be a list of strings`);
  for (let i = 0; i < v.length; i++)
    if (typeof v[i] !== 'string') throw new RequestError(400, `${name}[${i}] must be a string`);
  return v as string[];
}

function objectBody(body: unknown, shape: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new RequestError(400, `the body must be a JSON object ${shape}`);
  return body as Record<string, unknown>;
}

function checkBatch(n: number, maxBatch: number): void {
  if (n > maxBatch)
    throw new RequestError(
      413,
      `a batch holds at most ${maxBatch} items (--max-batch), got ${n}: split it, or start the server with a larger --max-batch`,
    );
}

/** Checks every label before any grading: a bad one fails the request at once. */
function checkLabels(labels: readonly unknown[], name: (i: number) => string): string[] {
  return labels.map((label, i) => {
    try {
      checkLabel(label);
      return label as string;
    } catch (err) {
      if (err instanceof LabelError) throw new RequestError(err.status, `${name(i)}: ${err.message}`);
      throw err;
    }
  });
}

/** A checked request: the response to grade for each label (every label names a task bas can grade). */
export interface RewardBatch {
  labels: string[];
  responses: string[];
  /** Where each response was found in its query (empty for /score, which is given the response). */
  sources: ResponseSource[];
  /** Ledger rows grading may need generated: the rows of each different label, added up. */
  rows: number;
}

function rowsOf(labels: readonly string[]): number {
  let rows = 0;
  for (const label of new Set(labels)) rows += labelRows(label);
  return rows;
}

/** Reads `{"query": [...], "prompts": [...], "labels": [...]}`; throws a RequestError naming the fault. */
export function readRewardRequest(body: unknown, maxBatch: number): RewardBatch {
  const o = objectBody(body, '{"query": [...], "prompts": [...], "labels": [...]}');
  const query = stringList(o, 'query');
  const prompts = stringList(o, 'prompts');
  if (!Array.isArray(o.labels)) throw new RequestError(400, '"labels" must be a list of task labels');
  const labels = o.labels as unknown[];
  if (prompts.length !== query.length || labels.length !== query.length)
    throw new RequestError(
      400,
      `"query", "prompts" and "labels" must be of one length, got ${query.length}, ${prompts.length} and ${labels.length}`,
    );
  checkBatch(query.length, maxBatch);
  const checked = checkLabels(labels, (i) => `labels[${i}]`);
  const responses: string[] = [];
  const sources: ResponseSource[] = [];
  for (let i = 0; i < query.length; i++) {
    const r = responseOf(query[i]!, prompts[i]!);
    responses.push(r.response);
    sources.push(r.from);
  }
  return { labels: checked, responses, sources, rows: rowsOf(checked) };
}

/** Reads `[{"label", "completion"}, ...]` (or `{"items": [...]}`) for POST /score. */
export function readScoreRequest(body: unknown, maxBatch: number): RewardBatch {
  const items = Array.isArray(body) ? body : (objectBody(body, '[{"label", "completion"}, ...]').items as unknown);
  if (!Array.isArray(items))
    throw new RequestError(400, 'the body must be a list of {"label", "completion"} items (or {"items": [...]})');
  checkBatch(items.length, maxBatch);
  const labels: unknown[] = [];
  const responses: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const it = items[i] as unknown;
    if (it === null || typeof it !== 'object' || Array.isArray(it))
      throw new RequestError(400, `item ${i} must be an object {"label", "completion"}`);
    const { label, completion } = it as Record<string, unknown>;
    if (typeof completion !== 'string') throw new RequestError(400, `item ${i}: "completion" must be a string`);
    labels.push(label);
    responses.push(completion);
  }
  const checked = checkLabels(labels, (i) => `item ${i}: label`);
  return { labels: checked, responses, sources: [], rows: rowsOf(checked) };
}

/**
 * A lane of the GradeQueue on this thread, with keys from `keys`: it hands control back to
 * the event loop before each piece, so requests are read and answered between pieces.
 */
export function mainThreadLane(keys: TaskKeys): Lane {
  return async (labels, responses) => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return labels.map((label, i) => {
      const { key, figures } = keys.keyFor(label);
      return scoreReply(responses[i]!, key, figures);
    });
  };
}

/** Per-item numbers OpenRLHF logs (it turns each `extra_logs` list into a tensor, so numbers only). */
const LOGGED = [
  ['bas_correct', (s: Scores) => s.rewards.bas_correct],
  ['fault_audit', (s: Scores) => s.rewards.fault_audit],
  ['bas_label_accuracy', (s: Scores) => s.metrics.bas_label_accuracy],
  ['fault_precision', (s: Scores) => s.metrics.fault_precision],
  ['fault_recall', (s: Scores) => s.metrics.fault_recall],
  ['num_flagged', (s: Scores) => s.metrics.num_flagged],
  ['parsed', (s: Scores) => s.metrics.parsed],
] as const;

/** The answer to POST /get_reward, in the order of the request. */
export function rewardAnswer(scores: readonly Scores[], sources: readonly ResponseSource[]): unknown {
  const rewards = scores.map((s) => s.reward);
  const extra: Record<string, number[]> = {};
  for (const [name, pick] of LOGGED) extra[name] = scores.map(pick);
  // 1 when the response was found after its prompt (exactly or with whitespace ignored).
  extra.prompt_matched = sources.map((f) => (f === 'prompt' || f === 'prompt_loose' ? 1 : 0));
  return { rewards, scores: rewards, extra_logs: extra, response_from: sources };
}

/** The answer to POST /score: what `bas score --out` writes per reply, less index and config. */
export function scoreAnswer(scores: readonly Scores[]): unknown {
  return {
    results: scores.map((s) => ({ reward: s.reward, rewards: s.rewards, metrics: s.metrics, detail: s.detail })),
  };
}
