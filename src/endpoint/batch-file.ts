/**
 * The OpenAI batch file formats, which vLLM's offline batch runner also reads and writes.
 * Input: one `POST /v1/chat/completions` request per line, its `custom_id` naming the task
 * and the rollout. Output: one line per request, with the response body or an error; each
 * becomes a reply to score or a typed error, exactly like a rollout of `bas eval`.
 */
import type { Task } from '../task/types.js';
import { outsideText } from '../io/outside-text.js';
import { statusFailure, type ErrorType } from './status-failure.js';
import { InputLineError, MalformedResponseError } from '../errors/index.js';
import { readCompletion, type Completion, type Usage } from './completion.js';
import { canon } from '../io/canon.js';
import type { Sampling } from '../settings/setting-table.js';

const CUSTOM_ID = /^task-(\d+)-r(\d+)$/;

/** `task-7-r0`: task 7, first rollout. */
export function customId(index: number, rollout: number): string {
  return `task-${index}-r${rollout}`;
}

/** The task index and rollout named by a custom_id, or null if it is not one of ours. */
export function parseCustomId(id: string): { index: number; rollout: number } | null {
  const m = CUSTOM_ID.exec(id);
  if (!m) return null;
  const index = Number(m[1]);
  const rollout = Number(m[2]);
  return Number.isSafeInteger(index) && Number.isSafeInteger(rollout) ? { index, rollout } : null;
}

/** What every request of a batch file carries besides its messages. */
export interface BatchOptions {
  /** model, sampling fields, as `bas eval` would send them. */
  fields: Record<string, unknown>;
  rollouts: number;
}

/** The request line of one rollout of a task, newline included. */
export function batchRequestLine(task: Task, rollout: number, fields: Record<string, unknown>): string {
  return `${JSON.stringify({
    custom_id: customId(task.index, rollout),
    method: 'POST',
    url: '/v1/chat/completions',
    body: { ...fields, messages: task.prompt },
  })}\n`;
}

/** The request lines of one task: one per rollout. */
export function batchRequestLines(task: Task, options: BatchOptions): string {
  let out = '';
  for (let r = 0; r < options.rollouts; r++) out += batchRequestLine(task, r, options.fields);
  return out;
}

/** One line of a batch output file, read. */
export interface BatchResult {
  index: number;
  rollout: number;
  model: string | null;
  completion: Completion | null;
  error: { type: ErrorType; message: string } | null;
  /** What the request cost, where its body reported it: a reply's, or an unusable reply's. */
  usage?: Usage | null;
}

/** A failed request's own words (its code and message), made safe by outsideText. */
function said(error: unknown): string {
  if (error && typeof error === 'object') {
    const e = error as { message?: unknown; code?: unknown };
    const parts = [typeof e.code === 'string' ? e.code : '', typeof e.message === 'string' ? e.message : ''].filter(
      Boolean,
    );
    if (parts.length > 0) return outsideText(parts.join(': '));
  }
  return 'no detail given';
}

/**
 * Reads one parsed output line. Throws an InputLineError for a line that is not a batch result
 * at all (the caller names the line); a failed request is a result with a typed error, read
 * by the same rules as a live reply's status (status-failure.ts).
 */
export function readBatchResult(value: unknown): BatchResult {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new InputLineError('a batch output line must be an object');
  const line = value as { custom_id?: unknown; response?: unknown; error?: unknown };
  if (typeof line.custom_id !== 'string') throw new InputLineError('"custom_id" is missing');
  const id = parseCustomId(line.custom_id);
  if (!id)
    throw new InputLineError(
      `"custom_id" ${JSON.stringify(line.custom_id)} is not of the form task-<index>-r<rollout>`,
    );
  const response = line.response as { status_code?: unknown; body?: unknown } | null | undefined;
  const status = typeof response?.status_code === 'number' ? response.status_code : null;
  const body = response?.body as { model?: unknown; error?: unknown } | undefined;
  const model = typeof body?.model === 'string' ? outsideText(body.model, 200) : null;
  const base = { index: id.index, rollout: id.rollout, model };
  if (line.error != null && (response == null || status === null)) {
    return {
      ...base,
      completion: null,
      error: { type: 'provider', message: `batch request failed: ${said(line.error)}` },
    };
  }
  if (status === null)
    return {
      ...base,
      completion: null,
      error: { type: 'malformed', message: 'the line has neither a response nor an error' },
    };
  if (status < 200 || status >= 300) {
    const error = body?.error ?? line.error;
    const f = statusFailure({ status, error, fallback: said(error), retryAfterMs: null });
    return { ...base, completion: null, error: { type: f.type, message: f.message } };
  }
  try {
    return { ...base, completion: readCompletion(body), error: null };
  } catch (err) {
    if (err instanceof MalformedResponseError)
      return {
        ...base,
        completion: null,
        error: { type: 'malformed', message: `malformed response: ${err.message}` },
        usage: err.usage,
      };
    throw err;
  }
}

/** Whether a parsed JSONL line looks like batch output rather than an `{"index", "reply"}` line. */
export function isBatchLine(value: unknown): boolean {
  return value !== null && typeof value === 'object' && 'custom_id' in value;
}

/** Fields of a request body that are not its sampling: what is asked of whom, and how it is sent. */
const NOT_SAMPLING = new Set(['model', 'messages', 'stream', 'stream_options']);

/**
 * The sampling a batch request line's body asks for, as run.json records it: `temperature`,
 * `max_tokens` (or `max_completion_tokens`, as api.openai.com is sent it), `reasoning_effort`,
 * and the other fields as `extra`. A field of the wrong type is refused: the line is not a
 * request bas could have written.
 */
export function requestSampling(value: unknown): Sampling {
  const body = (value as { body?: unknown } | null)?.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new InputLineError('a request line must have a "body" object');
  const out: Sampling = { temperature: null, max_tokens: null, reasoning_effort: null, extra: {} };
  // Own properties whatever their names (`__proto__` included): built from entries, not assigned.
  const extra: Array<[string, unknown]> = [];
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    if (NOT_SAMPLING.has(k)) continue;
    if (k === 'temperature' && typeof v === 'number') out.temperature = v;
    else if ((k === 'max_tokens' || k === 'max_completion_tokens') && Number.isSafeInteger(v))
      out.max_tokens = v as number;
    else if (k === 'reasoning_effort' && typeof v === 'string') out.reasoning_effort = outsideText(v, 40);
    else if (k === 'temperature' || k === 'max_tokens' || k === 'max_completion_tokens' || k === 'reasoning_effort')
      throw new InputLineError(`"body.${k}" is not a ${k === 'reasoning_effort' ? 'string' : 'number'}`);
    else extra.push([outsideText(k, 80), v]);
  }
  out.extra = Object.fromEntries(extra);
  return out;
}

/** Whether two requests were sampled alike. */
export function sameSampling(a: Sampling, b: Sampling): boolean {
  return canon(a) === canon(b);
}
