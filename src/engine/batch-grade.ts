/**
 * The pure parts of a batch run: the request lines of the rollouts still to run, cut into
 * files within the provider's limits; the worst case they may cost, checked before anything
 * is sent (a batch cannot be stopped part-way for free); and each output line graded into
 * the record `bas score` makes of it.
 */
import { batchRequestLine, type BatchResult } from '../endpoint/batch-file.js';
import { erroredRecord, scoredRecord, type RolloutRecord } from '../runfile/record.js';
import { taskDigest } from '../runfile/task-digest.js';
import { ledgerFigures } from '../task/implied.js';
import { scoreReply } from '../task/score.js';
import type { Task } from '../task/types.js';

/** Tokens a chat template adds around the messages, at most (as spend.ts reserves). */
const TEMPLATE_TOKENS = 64;

/** One request file to upload: its lines and their worst case. */
export interface RequestFile {
  text: string;
  requests: number;
  /** Prompt bytes of its requests (a token is at least a byte: the bound on their prompt tokens). */
  promptTokens: number;
}

/** The provider's limits on one batch: requests per file and bytes per file. */
export interface BatchLimits {
  maxRequests: number;
  maxBytes: number;
}

/**
 * The request lines of `pairs`, cut into files of at most `limits.maxRequests` lines and
 * `limits.maxBytes` bytes (a file past them would be refused by the provider as a whole).
 */
export function requestFiles(
  pairs: Iterable<[number, number]>,
  task: (index: number) => Task,
  fields: Record<string, unknown>,
  limits: BatchLimits,
): RequestFile[] {
  const files: RequestFile[] = [];
  let parts: string[] = [];
  let cur: RequestFile = { text: '', requests: 0, promptTokens: 0 };
  let bytes = 0;
  let last: Task | null = null;
  const close = (): void => {
    if (cur.requests === 0) return;
    files.push({ ...cur, text: parts.join('') });
    parts = [];
    bytes = 0;
    cur = { text: '', requests: 0, promptTokens: 0 };
  };
  for (const [index, rollout] of pairs) {
    const t: Task = last?.index === index ? last : (last = task(index));
    const line = batchRequestLine(t, rollout, fields);
    const size = Buffer.byteLength(line);
    if (cur.requests >= limits.maxRequests || (cur.requests > 0 && bytes + size > limits.maxBytes)) close();
    parts.push(line);
    bytes += size;
    cur.requests++;
    cur.promptTokens += t.prompt.reduce((s, m) => s + Buffer.byteLength(m.content), 0) + TEMPLATE_TOKENS;
  }
  close();
  return files;
}

/** The most the files may cost: their prompts, and `maxTokens` for every reply (null: unbounded). */
export function worstCase(
  files: RequestFile[],
  maxTokens: number | null,
): { prompt: number; completion: number | null } {
  let prompt = 0;
  let requests = 0;
  for (const f of files) {
    prompt += f.promptTokens;
    requests += f.requests;
  }
  return { prompt, completion: maxTokens === null ? null : maxTokens * requests };
}

/** The record of one batch output line, as `bas score` grades it: a reply scored, or a typed error. */
export function batchRecord(r: BatchResult, task: Task, model: string): RolloutRecord {
  const base = { index: r.index, rollout: r.rollout, config: task.config, task_digest: taskDigest(task), model };
  const reply = r.completion?.text ?? null;
  const extra = { usage: r.completion?.usage ?? r.usage ?? null, finish_reason: r.completion?.finish_reason ?? null };
  if (r.error || reply === null)
    return erroredRecord(base, r.error ?? { type: 'malformed', message: 'no reply' }, { reply, ...extra });
  return scoredRecord(base, reply, scoreReply(reply, task.key, ledgerFigures(task.ledger)), extra);
}
