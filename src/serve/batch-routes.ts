/**
 * The routes of `bas serve`'s batch engine (batch-jobs.ts says how a batch lives): upload a
 * file (`POST /v1/files`, multipart, purpose `batch`), create a batch (`POST /v1/batches`),
 * poll it (`GET /v1/batches/{id}`), describe a file (`GET /v1/files/{id}`) and read it
 * (`GET /v1/files/{id}/content`). It counts the
 * batches created, so a test can hold a client to one batch, never two.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError } from './answers.js';
import { sendJson as send, type RequestGate } from './http-service.js';
import { advance, batchObject, newBatch, type BatchFault, type BatchJob, type HeldFile } from './batch-jobs.js';
import type { FaultRates } from './fault-plan.js';

/** What the batch routes keep between requests. */
export class BatchEngine {
  readonly files = new Map<string, HeldFile>();
  readonly batches = new Map<string, BatchJob>();
  private next = 0;
  /** Batches created, and uploads received. */
  created = 0;
  uploads = 0;

  constructor(
    private readonly rates: FaultRates,
    private readonly fault: BatchFault,
    private readonly gate: RequestGate,
  ) {}

  private id(prefix: string): string {
    return `${prefix}-bas${(++this.next).toString().padStart(6, '0')}`;
  }

  private store(filename: string, bytes: string, purpose: string): HeldFile {
    const file = { id: this.id('file'), filename, purpose, bytes, created_at: Math.floor(Date.now() / 1000) };
    this.files.set(file.id, file);
    return file;
  }

  /** Answers `req` if it is one of the batch routes; false if it is not. */
  route(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const p = path.startsWith('/v1/') ? path.slice(3) : path;
    if (req.method === 'POST' && p === '/files') return this.caught(res, this.upload(req, res));
    if (req.method === 'POST' && p === '/batches') return this.caught(res, this.create(req, res));
    const batch = /^\/batches\/([\w-]{1,100})$/.exec(p);
    if (req.method === 'GET' && batch) return (this.poll(res, batch[1]!), true);
    const file = /^\/files\/([\w-]{1,100})$/.exec(p);
    if (req.method === 'GET' && file) return (this.describe(res, file[1]!), true);
    const content = /^\/files\/([\w-]{1,100})\/content$/.exec(p);
    if (req.method === 'GET' && content) return (this.content(res, content[1]!), true);
    return false;
  }

  /** A failure while answering is a 500 to that request alone. */
  private caught(res: ServerResponse, work: Promise<void>): true {
    work.catch(() => {
      if (!res.headersSent) send(res, 500, apiError('The server failed to answer.', 'server_error', null));
      else res.destroy();
    });
    return true;
  }

  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.gate.admit(req, res)) return;
    const raw = await this.gate.readBody(req, res);
    if (raw === null) return;
    const form = readMultipart(String(req.headers['content-type'] ?? ''), raw);
    if (typeof form === 'string') return send(res, 400, apiError(form, 'invalid_request_error', null));
    if (form.purpose !== 'batch')
      return send(
        res,
        400,
        apiError('This server takes files of purpose "batch" only.', 'invalid_request_error', null),
      );
    this.uploads++;
    const file = this.store(form.filename, form.file, 'batch');
    send(res, 200, fileObject(file));
  }

  private async create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.gate.admit(req, res)) return;
    const raw = await this.gate.readBody(req, res);
    if (raw === null) return;
    let body: { input_file_id?: unknown; endpoint?: unknown; completion_window?: unknown; metadata?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return send(res, 400, apiError('The request body is not valid JSON.', 'invalid_request_error', null));
    }
    const input = typeof body.input_file_id === 'string' ? this.files.get(body.input_file_id) : undefined;
    if (!input) return send(res, 404, apiError('No such input file.', 'invalid_request_error', 'not_found'));
    if (body.endpoint !== '/v1/chat/completions' || body.completion_window !== '24h')
      return send(
        res,
        400,
        apiError('endpoint must be /v1/chat/completions and completion_window 24h.', 'invalid_request_error', null),
      );
    this.created++;
    const job = newBatch(this.id('batch'), input, this.rates, body.metadata, Math.floor(Date.now() / 1000));
    this.batches.set(job.id, job);
    send(res, 200, batchObject(job, this.fault));
  }

  private poll(res: ServerResponse, id: string): void {
    const job = this.batches.get(id);
    if (!job) return send(res, 404, apiError(`No batch ${id}.`, 'invalid_request_error', 'not_found'));
    advance(job, this.fault, (name, bytes) => this.store(name, bytes, 'batch_output').id);
    send(res, 200, batchObject(job, this.fault));
  }

  private describe(res: ServerResponse, id: string): void {
    const file = this.files.get(id);
    if (!file) return send(res, 404, apiError(`No file ${id}.`, 'invalid_request_error', 'not_found'));
    send(res, 200, fileObject(file));
  }

  private content(res: ServerResponse, id: string): void {
    const file = this.files.get(id);
    if (!file) return send(res, 404, apiError(`No file ${id}.`, 'invalid_request_error', 'not_found'));
    res.writeHead(200, { 'content-type': 'application/jsonl', 'content-length': Buffer.byteLength(file.bytes) });
    res.end(file.bytes);
  }
}

function fileObject(f: HeldFile): unknown {
  return {
    id: f.id,
    object: 'file',
    bytes: Buffer.byteLength(f.bytes),
    created_at: f.created_at,
    filename: f.filename,
    purpose: f.purpose,
  };
}

/** The `purpose` and `file` parts of a multipart form, or what is wrong with it. */
export function readMultipart(type: string, raw: string): { purpose: string; file: string; filename: string } | string {
  const m = /boundary=(?:"([^"]{1,200})"|([^;\s]{1,200}))/i.exec(type);
  if (!/^multipart\/form-data/i.test(type) || !m) return 'The upload must be multipart/form-data with a boundary.';
  const boundary = `--${m[1] ?? m[2]}`;
  const fields = new Map<string, { filename: string | null; value: string }>();
  for (const part of raw.split(boundary).slice(1)) {
    if (part.startsWith('--')) break;
    const end = part.indexOf('\r\n\r\n');
    if (end < 0) continue;
    const head = part.slice(0, end);
    const name = /name="([^"]{0,100})"/i.exec(head)?.[1];
    if (name === undefined) continue;
    const filename = /filename="([^"]{0,300})"/i.exec(head)?.[1] ?? null;
    fields.set(name, { filename, value: part.slice(end + 4).replace(/\r\n$/, '') });
  }
  const file = fields.get('file');
  if (!file) return 'The upload has no "file" part.';
  return { purpose: fields.get('purpose')?.value ?? '', file: file.value, filename: file.filename ?? 'upload.jsonl' };
}
