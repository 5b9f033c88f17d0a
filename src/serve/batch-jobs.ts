/**
 * The batch engine `bas serve` emulates (OpenAI's Batch API: files of purpose `batch`, batches
 * over `/v1/chat/completions`): each request line is answered on creation by the server's
 * policy, as a live request would be, and the batch moves one step of its life on each
 * `GET /v1/batches/{id}` (validating, in_progress, finalizing, completed), so a client's
 * polling is all the clock it needs. `--batch-fault` picks how a batch goes wrong.
 */
import { completionBody, type Answer } from './answers.js';
import { checkChatRequest } from './chat-request.js';
import { answerFor, type FaultRates } from './fault-plan.js';

import type { BatchFault } from '../settings/choices.js';
export type { BatchFault };

/** Polls a `slow` batch spends in progress (one more request done on each). */
const SLOW_POLLS = 20;

/** A file the server holds: uploaded input, or a batch's output or error file. */
export interface HeldFile {
  id: string;
  filename: string;
  purpose: string;
  bytes: string;
  created_at: number;
}

interface LineResult {
  custom_id: string;
  /** The output line's `response`, or null for a request that failed as a whole. */
  response: { status_code: number; body: unknown } | null;
  error: { code: string; message: string } | null;
}

/** One batch, with every line's fate worked out when it was created. */
export interface BatchJob {
  id: string;
  input_file_id: string;
  created_at: number;
  polls: number;
  status: string;
  results: LineResult[];
  output_file_id: string | null;
  error_file_id: string | null;
  errors: { object: 'list'; data: { code: string; message: string; line: number | null }[] } | null;
  metadata: unknown;
}

/** The answer to one request line, as a live request with that body would get it. */
function answerLine(o: FaultRates, line: string, n: number): LineResult {
  let parsed: { custom_id?: unknown; body?: unknown };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    parsed = {};
  }
  const custom_id = typeof parsed.custom_id === 'string' ? parsed.custom_id : `line-${n}`;
  const body = checkChatRequest(parsed.body);
  if (typeof body === 'string')
    return {
      custom_id,
      response: {
        status_code: 400,
        body: { error: { message: `Invalid request: ${body}.`, type: 'invalid_request_error' } },
      },
      error: null,
    };
  const a: Answer = answerFor(o, body.messages, body.limit, body.effort);
  return {
    custom_id,
    response: { status_code: 200, body: completionBody(`chatcmpl-b${n}`, 0, body.model, a) },
    error: null,
  };
}

/** A new batch over `input`'s lines; each answered now, released as its status advances. */
export function newBatch(id: string, input: HeldFile, o: FaultRates, metadata: unknown, now: number): BatchJob {
  const lines = input.bytes.split('\n').filter((l) => l.trim() !== '');
  return {
    id,
    input_file_id: input.id,
    created_at: now,
    polls: 0,
    status: 'validating',
    results: lines.map((l, i) => answerLine(o, l, i)),
    output_file_id: null,
    error_file_id: null,
    errors: null,
    metadata,
  };
}

/** The statuses a batch passes through on successive polls, by fault. */
function timeline(fault: BatchFault): string[] {
  if (fault === 'failed') return ['validating', 'failed'];
  if (fault === 'expired') return ['validating', 'in_progress', 'expired'];
  const slow = fault === 'slow' ? Array<string>(SLOW_POLLS).fill('in_progress') : ['in_progress'];
  return ['validating', ...slow, 'finalizing', 'completed'];
}

/** Which lines are released as answered (the rest go to the error file) when the batch ends. */
function released(job: BatchJob, fault: BatchFault): LineResult[] {
  return job.results.map((r, i) => {
    if (fault === 'expired' && i % 2 === 1)
      return {
        custom_id: r.custom_id,
        response: null,
        error: {
          code: 'batch_expired',
          message: 'This request could not be executed before the completion window expired.',
        },
      };
    if (fault === 'partial' && i % 3 === 2)
      return {
        custom_id: r.custom_id,
        response: { status_code: 500, body: { error: { message: 'The server had an error.', type: 'server_error' } } },
        error: null,
      };
    return r;
  });
}

/** Makes files of the batch's finished lines: `store` keeps one and returns its id. */
function finish(job: BatchJob, fault: BatchFault, store: (name: string, bytes: string) => string): void {
  const out: string[] = [];
  const err: string[] = [];
  released(job, fault).forEach((r, i) => {
    const line = `${JSON.stringify({ id: `batch_req_${i}`, ...r })}\n`;
    const ok = r.response !== null && r.response.status_code >= 200 && r.response.status_code < 300;
    (ok ? out : err).push(line);
  });
  if (out.length > 0)
    job.output_file_id =
      fault === 'lost-output' ? `file-lost-${job.id}` : store(`${job.id}_output.jsonl`, out.join(''));
  if (err.length > 0) job.error_file_id = store(`${job.id}_error.jsonl`, err.join(''));
}

/** Moves the batch one step (a poll), making its files when it ends. */
export function advance(job: BatchJob, fault: BatchFault, store: (name: string, bytes: string) => string): void {
  const steps = timeline(fault);
  if (job.polls >= steps.length - 1) return;
  job.polls++;
  job.status = steps[job.polls]!;
  if (job.status === 'failed')
    job.errors = {
      object: 'list',
      data: [
        {
          code: 'invalid_request',
          message: 'The batch failed validation (bas serve --batch-fault failed).',
          line: null,
        },
      ],
    };
  if (job.status === 'completed' || job.status === 'expired') finish(job, fault, store);
}

/** The counts a status shows: how many lines are done so far. */
function counts(job: BatchJob, fault: BatchFault): { total: number; completed: number; failed: number } {
  const total = job.results.length;
  if (job.status === 'validating' || job.status === 'failed') return { total, completed: 0, failed: 0 };
  const lines = released(job, fault);
  const bad = lines.filter((r) => r.response === null || r.response.status_code >= 300).length;
  if (job.status === 'in_progress' && fault === 'slow') {
    const done = Math.min(total, Math.floor((total * job.polls) / (SLOW_POLLS + 1)));
    return { total, completed: done, failed: 0 };
  }
  if (job.status === 'in_progress') return { total, completed: 0, failed: 0 };
  return { total, completed: total - bad, failed: bad };
}

/** The batch object `GET /v1/batches/{id}` answers with, as OpenAI shapes it. */
export function batchObject(job: BatchJob, fault: BatchFault): unknown {
  return {
    id: job.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    errors: job.errors,
    input_file_id: job.input_file_id,
    completion_window: '24h',
    status: job.status,
    output_file_id: job.output_file_id,
    error_file_id: job.error_file_id,
    created_at: job.created_at,
    request_counts: counts(job, fault),
    metadata: job.metadata ?? null,
  };
}
