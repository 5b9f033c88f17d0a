/**
 * A provider's batch engine, through the openai SDK (OpenAI's Batch API and the endpoints
 * shaped like it): upload a request file (purpose `batch`), create a batch over
 * `/v1/chat/completions` with a 24-hour window, read its status, download its files. Every
 * failure is a FatalRunError (exit 1) naming the step; what the provider says is made safe first.
 */
import type OpenAI from 'openai';
import { FatalRunError } from '../errors/index.js';
import { outsideText } from '../io/outside-text.js';

/** The statuses after which a batch changes no more. */
const FINAL_STATUSES = ['completed', 'failed', 'expired', 'cancelled'] as const;

/** What a poll says of one batch. */
export interface BatchStatus {
  id: string;
  status: string;
  counts: { total: number; completed: number; failed: number };
  output_file_id: string | null;
  error_file_id: string | null;
  /** The batch's own errors (a failed validation), made safe. */
  errors: string[];
}

/** Whether a status is one a batch ends in. */
export function isFinal(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}

/** What went wrong at `step`, with the provider's words made safe. */
function stepError(step: string, err: unknown): FatalRunError {
  const e = err as { status?: unknown; message?: unknown };
  const status = typeof e?.status === 'number' ? e.status : null;
  const said = typeof e?.message === 'string' ? outsideText(e.message, 300) : 'no detail given';
  return new FatalRunError(`${step} failed${status === null ? '' : ` (HTTP ${status})`}: ${said}`, { cause: err });
}

/** Uploads `bytes` as a file of purpose `batch`; its id. */
export async function uploadBatchFile(client: OpenAI, name: string, bytes: string): Promise<string> {
  const { toFile } = await import('openai');
  try {
    const file = await client.files.create({ file: await toFile(Buffer.from(bytes), name), purpose: 'batch' });
    return file.id;
  } catch (err) {
    throw stepError(`uploading ${name}`, err);
  }
}

/** Creates a batch over an uploaded file; its id. */
export async function createBatch(client: OpenAI, fileId: string, metadata: Record<string, string>): Promise<string> {
  try {
    const batch = await client.batches.create({
      input_file_id: fileId,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata,
    });
    return batch.id;
  } catch (err) {
    throw stepError(`creating the batch over ${fileId}`, err);
  }
}

/** The batch's status now. */
export async function retrieveBatch(client: OpenAI, id: string): Promise<BatchStatus> {
  let b: OpenAI.Batches.Batch;
  try {
    b = await client.batches.retrieve(id);
  } catch (err) {
    throw stepError(`reading batch ${id}`, err);
  }
  const n = (v: unknown): number => (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0);
  return {
    id,
    status: typeof b.status === 'string' ? outsideText(b.status, 40) : 'unknown',
    counts: {
      total: n(b.request_counts?.total),
      completed: n(b.request_counts?.completed),
      failed: n(b.request_counts?.failed),
    },
    output_file_id: typeof b.output_file_id === 'string' ? b.output_file_id : null,
    error_file_id: typeof b.error_file_id === 'string' ? b.error_file_id : null,
    errors: (b.errors?.data ?? []).map((e) =>
      outsideText(`${e.code ?? ''}${e.code ? ': ' : ''}${e.message ?? ''}`, 300),
    ),
  };
}

/** A file's content as text. */
export async function downloadFile(client: OpenAI, id: string): Promise<string> {
  try {
    const res = await client.files.content(id);
    return await res.text();
  } catch (err) {
    throw stepError(`downloading file ${id}`, err);
  }
}
