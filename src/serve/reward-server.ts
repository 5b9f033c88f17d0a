/**
 * The reward service for RL trainers (`bas reward-server`): OpenRLHF's remote reward API
 * (POST /get_reward), a plain POST /score, and GET /health. It keeps no state on disk, only a
 * bounded cache of regenerated keys, so it scales by running more copies. Everything from the
 * network is bounded (body bytes, items per batch) and every bad request gets a 4xx with a
 * one-line reason; nothing a client sends can stop the process.
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RequestError } from '../errors/index.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { PROMPT_VERSION } from '../task/prompt.js';
import {
  gradeBatch,
  readRewardRequest,
  readScoreRequest,
  rewardAnswer,
  scoreAnswer,
  type ResponseSource,
} from './reward-grade.js';
import { GradePool } from './grade-pool.js';
import { TaskKeys, type CacheStats } from './task-keys.js';

export interface RewardServerOptions {
  port: number;
  host: string;
  /** When set, POST requests need `Authorization: Bearer <token>` (/health stays open for probes). */
  token: string | null;
  maxBodyBytes: number;
  maxBatch: number;
  /** Answer keys kept in memory; 0 regenerates every key. */
  cacheSize: number;
  /**
   * Grading threads; 0 grades on the main thread. Threads need the compiled program
   * (dist/serve/grade-worker.js): the CLI always has it.
   */
  workers: number;
  /** How long shutdown waits for requests under way before it drops their connections. */
  graceMs: number;
  /** Where warnings go (once each): the first query whose prompt could not be found. */
  warn?: (line: string) => void;
}

/** What the server has done, for /health and the closing line. */
interface RewardStats {
  requests: number;
  /** Items graded. */
  graded: number;
  /** Requests refused with a 4xx. */
  refused: number;
  /** Requests that failed inside the server (a 500): none, unless there is a bug. */
  failed: number;
  /** Graded queries by where their response was found (see ResponseSource). */
  responseFrom: Record<ResponseSource, number>;
}

export interface RunningRewardServer {
  url: string;
  port: number;
  stats: RewardStats;
  cache(): CacheStats;
  /** Stops taking requests, lets those under way finish (up to graceMs), then closes. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, { error: { message } }, headers);
}

/** Whether the request carries the bearer token; compared in constant time. */
function authorized(req: IncomingMessage, token: Buffer | null): boolean {
  if (token === null) return true;
  const given = Buffer.from(req.headers.authorization ?? '');
  const want = Buffer.concat([Buffer.from('Bearer '), token]);
  return given.length === want.length && timingSafeEqual(given, want);
}

/**
 * The request body; null after a 413 has been sent for one over `max` bytes, or when the
 * client went away before sending all of it (there is no one to answer).
 */
function readBody(req: IncomingMessage, res: ServerResponse, max: number): Promise<string | null> {
  return new Promise((resolve) => {
    const tooBig = (): void => {
      sendError(res, 413, `the body is larger than ${max} bytes (--max-body-mb): send smaller batches`, {
        connection: 'close',
      });
      req.resume();
      resolve(null);
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) return tooBig();
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > max) {
        over = true;
        chunks.length = 0;
        return tooBig();
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    // A promise settles once: after 'end' these change nothing.
    req.on('error', () => resolve(null));
    req.on('close', () => resolve(null));
  });
}

/** Starts the server; resolves once it listens. */
export async function startRewardServer(o: RewardServerOptions): Promise<RunningRewardServer> {
  const keys = new TaskKeys(o.cacheSize);
  const pool =
    o.workers > 0 ? new GradePool(o.workers, o.cacheSize, new URL('./grade-worker.js', import.meta.url)) : null;
  const cache = (): CacheStats => pool?.cache() ?? keys.stats();
  const token = o.token === null ? null : Buffer.from(o.token);
  const stats: RewardStats = {
    requests: 0,
    graded: 0,
    refused: 0,
    failed: 0,
    responseFrom: { prompt: 0, prompt_loose: 0, marker: 0, none: 0 },
  };
  let stopping = false;
  const warned = new Set<string>();
  const warnOnce = (kind: string, line: string): void => {
    if (warned.has(kind)) return;
    warned.add(kind);
    o.warn?.(line);
  };

  const health = (res: ServerResponse): void =>
    send(res, stopping ? 503 : 200, {
      status: stopping ? 'stopping' : 'ok',
      generator: GENERATOR_VERSION,
      prompt_version: PROMPT_VERSION,
      max_batch: o.maxBatch,
      max_body_bytes: o.maxBodyBytes,
      workers: o.workers,
      stats,
      cache: cache(),
    });

  const post = async (route: '/get_reward' | '/score', req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req, res, o.maxBodyBytes);
    if (raw === null) return void stats.refused++;
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new RequestError(400, 'the body is not valid JSON');
    }
    const batch = route === '/get_reward' ? readRewardRequest(body, o.maxBatch) : readScoreRequest(body, o.maxBatch);
    const scores = pool ? await pool.grade(batch.labels, batch.responses) : await gradeBatch(batch, keys);
    stats.graded += scores.length;
    for (const f of batch.sources) stats.responseFrom[f]++;
    if (batch.sources.some((f) => f === 'marker' || f === 'none'))
      warnOnce(
        'prefix',
        'a query did not start with its prompt: its response was taken after the last assistant marker, or as empty where there was none (see docs/training.md; /health counts them)',
      );
    // While stopping, answer and let the connection go, so keep-alive clients reconnect elsewhere.
    send(res, 200, route === '/get_reward' ? rewardAnswer(scores, batch.sources) : scoreAnswer(scores), {
      ...(stopping ? { connection: 'close' } : {}),
    });
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendError(res, 405, 'use GET /health', { allow: 'GET, HEAD' });
      return health(res);
    }
    if (path !== '/get_reward' && path !== '/score')
      return sendError(res, 404, `no route ${path}: the routes are POST /get_reward, POST /score and GET /health`);
    stats.requests++;
    if (req.method !== 'POST') {
      stats.refused++;
      return sendError(res, 405, `use POST ${path}`, { allow: 'POST' });
    }
    if (!authorized(req, token)) {
      stats.refused++;
      req.resume();
      return sendError(res, 401, 'this server needs "Authorization: Bearer <token>"', {
        'www-authenticate': 'Bearer',
        connection: 'close',
      });
    }
    if (stopping) {
      stats.refused++;
      req.resume();
      return sendError(res, 503, 'the server is shutting down', { connection: 'close', 'retry-after': '1' });
    }
    post(path, req, res).catch((err: unknown) => {
      if (err instanceof RequestError) {
        stats.refused++;
        return sendError(res, err.status, err.message);
      }
      stats.failed++;
      sendError(res, 500, 'internal error while grading');
    });
  });
  server.keepAliveTimeout = 60_000;

  if (pool) {
    try {
      await pool.ready();
    } catch (err) {
      await pool.close();
      throw new Error(`the grading threads did not start: ${(err as Error).message} (try --workers 0)`, {
        cause: err,
      });
    }
  }
  return new Promise((resolve, reject) => {
    // A port that cannot be had: the threads already started must not keep the process alive.
    const failed = (err: Error): void => void (pool?.close() ?? Promise.resolve()).then(() => reject(err));
    server.once('error', failed);
    server.listen(o.port, o.host, () => {
      server.off('error', failed);
      const port = (server.address() as AddressInfo).port;
      const host = o.host.includes(':') ? `[${o.host}]` : o.host;
      let closing: Promise<void> | null = null;
      resolve({
        url: `http://${host}:${port}`,
        port,
        stats,
        cache,
        close: () =>
          (closing ??= new Promise<void>((done) => {
            stopping = true;
            const timer = setTimeout(() => server.closeAllConnections(), o.graceMs);
            server.close(() => {
              clearTimeout(timer);
              void (pool?.close() ?? Promise.resolve()).then(done);
            });
            server.closeIdleConnections();
          })),
      });
    });
  });
}
