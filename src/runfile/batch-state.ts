/**
 * What run.json's `batch` field keeps of a run sent through a provider's batch engine (`bas
 * eval --batch`): each batch's uploaded file and batch ids, written before the first poll so
 * that `--resume` re-attaches to them and never submits them again; its last status and
 * counts; and whether its output and error files were graded into results.jsonl. The key is
 * never kept (run.json is written through the redacting writer all the same).
 */
import { ConfigError } from '../errors/index.js';

/** One batch of the run. */
export interface BatchEntry {
  /** The uploaded request file's id. */
  file_id: string;
  /** The batch's id; null when the upload was recorded but the batch was never created. */
  batch_id: string | null;
  /** Request lines in its file. */
  requests: number;
  /** The provider's last status, and its request counts then. */
  status: string;
  counts: { total: number; completed: number; failed: number };
  /** Its output and error files, once the provider names them. */
  output_file_id: string | null;
  error_file_id: string | null;
  /** The batch's own errors, as the provider said them (a failed validation), made safe. */
  errors: string[];
  /** Its output and error files were read and their lines recorded in results.jsonl. */
  graded: boolean;
}

/** run.json's `batch`: every batch the run has sent, in order. */
export interface BatchState {
  batches: BatchEntry[];
}

const ID = /^[\w.:-]{1,200}$/;

function entryOf(v: unknown, file: string, i: number): BatchEntry {
  const e = (v ?? {}) as Partial<BatchEntry>;
  const bad = (what: string): never => {
    throw new ConfigError(`${file}: batch ${i + 1} has no valid ${what}; the file was not written by bas`);
  };
  if (typeof e.file_id !== 'string' || !ID.test(e.file_id)) bad('"file_id"');
  if (e.batch_id !== null && (typeof e.batch_id !== 'string' || !ID.test(e.batch_id))) bad('"batch_id"');
  if (typeof e.requests !== 'number' || !Number.isSafeInteger(e.requests) || e.requests < 0) bad('"requests"');
  for (const k of ['output_file_id', 'error_file_id'] as const)
    if (e[k] != null && (typeof e[k] !== 'string' || !ID.test(e[k]))) bad(`"${k}"`);
  const c = (e.counts ?? {}) as Partial<BatchEntry['counts']>;
  const n = (x: unknown): number => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);
  return {
    file_id: e.file_id!,
    batch_id: e.batch_id ?? null,
    requests: e.requests!,
    status: typeof e.status === 'string' ? e.status.slice(0, 40) : 'unknown',
    counts: { total: n(c.total), completed: n(c.completed), failed: n(c.failed) },
    output_file_id: e.output_file_id ?? null,
    error_file_id: e.error_file_id ?? null,
    errors: Array.isArray(e.errors)
      ? e.errors
          .filter((x) => typeof x === 'string')
          .map((x) => x.slice(0, 300))
          .slice(0, 20)
      : [],
    graded: e.graded === true,
  };
}

/** The `batch` field of a run.json, checked; null when the run was not sent as batches. */
export function batchStateOf(info: Record<string, unknown>, file: string): BatchState | null {
  const b = info.batch as { batches?: unknown } | undefined;
  if (b === undefined || b === null) return null;
  if (!Array.isArray(b.batches)) throw new ConfigError(`${file}: "batch" has no list of batches`);
  return { batches: b.batches.map((e, i) => entryOf(e, file, i)) };
}
