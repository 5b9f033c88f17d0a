/**
 * The reward service for RL trainers (`bas reward-server`): OpenRLHF's remote reward API
 * (POST /get_reward), NeMo Gym's resources-server API (POST /seed_session and POST /verify:
 * nemo-gym.ts), a plain POST /score, and GET /health. It keeps no state on disk, only a
 * cache of regenerated keys bounded in count and bytes, so it scales by running more copies.
 * What a client can make it hold or do is bounded: connections, body bytes (each, and all
 * unanswered ones together: http-service.ts), items per batch, and ledger rows to generate
 * (each request, and all under way together); grading takes every request's pieces in turn
 * (grade-queue.ts), so a large batch cannot starve a small one. Every bad request gets a 4xx,
 * and a full server a 503, with a one-line reason; nothing a client sends can stop the process.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RequestError } from '../errors/index.js';
import { GENERATOR_VERSION } from '../task/generate.js';
import { PROMPT_VERSION } from '../task/prompt.js';
import { GradePool } from './grade-pool.js';
import { GradeQueue, RowBudget } from './grade-queue.js';
import { readVerifyRequest, seedSessionAnswer, verifyAnswer } from './nemo-gym.js';
import { authorized, listen, RequestGate, sendJson as send, SERVER_OPTIONS } from './http-service.js';
import {
  mainThreadLane,
  readRewardRequest,
  readScoreRequest,
  rewardAnswer,
  scoreAnswer,
  type RewardBatch,
  type ResponseSource,
} from './reward-grade.js';
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
  /** Bytes the kept keys may take together (default 64 MiB). */
  cacheBytes?: number;
  /** Ledger rows one request may need generated (default 1,000,000); four times this across all requests under way. */
  maxRows?: number;
  /** Bytes all unanswered requests' bodies may hold together (default 128 MiB). */
  bodyBudgetBytes?: number;
  /** Connections open at once (default 1,024). */
  maxConnections?: number;
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

export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_MAX_ROWS = 1_000_000;
/** Two bodies at the default --max-body-mb. */
export const DEFAULT_BODY_BUDGET_BYTES = 128 * 1024 * 1024;
export const DEFAULT_MAX_CONNECTIONS = 1024;

/** What the server has done, for /health and the closing line. */
interface RewardStats {
  requests: number;
  /** Items graded. */
  graded: number;
  /** Requests refused with a 4xx, or a 503 while full or stopping. */
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

/** One server's state, handed to the route handlers. */
interface Rewarder {
  o: RewardServerOptions;
  stats: RewardStats;
  gate: RequestGate;
  queue: GradeQueue;
  cache: () => CacheStats;
  token: Buffer | null;
  /** Rows the requests under way may need generated. */
  rows: RowBudget;
  stopping: boolean;
  warned: Set<string>;
}

function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  send(res, status, { error: { message } }, headers);
}

/** Starts the server; resolves once it listens. */
export async function startRewardServer(o: RewardServerOptions): Promise<RunningRewardServer> {
  const cacheBytes = o.cacheBytes ?? DEFAULT_CACHE_BYTES;
  const keys = new TaskKeys(o.cacheSize, cacheBytes);
  const pool = await startPool(o, cacheBytes);
  const r: Rewarder = {
    o,
    stats: {
      requests: 0,
      graded: 0,
      refused: 0,
      failed: 0,
      responseFrom: { prompt: 0, prompt_loose: 0, marker: 0, none: 0 },
    },
    gate: new RequestGate(
      {
        maxBodyBytes: o.maxBodyBytes,
        bodyBudgetBytes: o.bodyBudgetBytes ?? DEFAULT_BODY_BUDGET_BYTES,
        maxConnections: o.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
        flags: { maxBody: '--max-body-mb', bodyBudget: '--body-budget-mb', maxConnections: '--max-connections' },
      },
      (message) => ({ error: { message } }),
    ),
    queue: new GradeQueue(pool ? pool.lanes() : [mainThreadLane(keys)]),
    cache: () => pool?.cache() ?? keys.stats(),
    token: o.token === null ? null : Buffer.from(o.token),
    rows: new RowBudget(o.maxRows ?? DEFAULT_MAX_ROWS),
    stopping: false,
    warned: new Set(),
  };
  const server = createServer(SERVER_OPTIONS, (req, res) => route(r, req, res));
  server.keepAliveTimeout = 60_000;
  r.gate.watch(server);
  // A port that cannot be had: the threads already started must not keep the process alive.
  const at = await listen(server, o.port, o.host).catch(async (err: unknown) => {
    await pool?.close();
    throw err;
  });
  let closing: Promise<void> | null = null;
  return {
    url: `http://${at.host}:${at.port}`,
    port: at.port,
    stats: r.stats,
    cache: r.cache,
    close: () => (closing ??= stop(r, server, pool)),
  };
}

/** The grading threads, started; null for grading on the main thread. */
async function startPool(o: RewardServerOptions, cacheBytes: number): Promise<GradePool | null> {
  if (o.workers === 0) return null;
  const pool = new GradePool(
    o.workers,
    { keys: o.cacheSize, bytes: cacheBytes },
    new URL('./grade-worker.js', import.meta.url),
  );
  try {
    await pool.ready();
    return pool;
  } catch (err) {
    await pool.close();
    throw new Error(`the grading threads did not start: ${(err as Error).message} (try --workers 0)`, { cause: err });
  }
}

/** Refuses new requests, waits up to graceMs for those under way, then closes. */
function stop(r: Rewarder, server: Server, pool: GradePool | null): Promise<void> {
  return new Promise<void>((done) => {
    r.stopping = true;
    const timer = setTimeout(() => server.closeAllConnections(), r.o.graceMs);
    server.close(() => {
      clearTimeout(timer);
      void (pool?.close() ?? Promise.resolve()).then(done);
    });
    server.closeIdleConnections();
  });
}

function route(r: Rewarder, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/health') {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return sendError(res, 405, 'use GET /health', { allow: 'GET, HEAD' });
    return health(r, res);
  }
  if (!isPostRoute(path))
    return sendError(
      res,
      404,
      `no route ${path}: the routes are POST /get_reward, POST /score, POST /seed_session, POST /verify and GET /health`,
    );
  r.stats.requests++;
  const refusal = refusalOf(r, req, path);
  if (refusal) {
    r.stats.refused++;
    req.resume();
    return sendError(res, refusal.status, refusal.message, refusal.headers);
  }
  post(r, path, req, res).catch((err: unknown) => {
    if (err instanceof RequestError) {
      r.stats.refused++;
      return sendError(res, err.status, err.message, err.status === 503 ? { 'retry-after': '1' } : {});
    }
    r.stats.failed++;
    sendError(res, 500, 'internal error while grading');
  });
}

/** Why a POST is refused before its body is read, if it is. */
function refusalOf(
  r: Rewarder,
  req: IncomingMessage,
  path: string,
): { status: number; message: string; headers: Record<string, string> } | null {
  if (req.method !== 'POST') return { status: 405, message: `use POST ${path}`, headers: { allow: 'POST' } };
  if (!authorized(req, r.token))
    return {
      status: 401,
      message: 'this server needs "Authorization: Bearer <token>"',
      headers: { 'www-authenticate': 'Bearer', connection: 'close' },
    };
  if (r.stopping)
    return {
      status: 503,
      message: 'the server is shutting down',
      headers: { connection: 'close', 'retry-after': '1' },
    };
  return null;
}

function health(r: Rewarder, res: ServerResponse): void {
  const { o, stopping } = r;
  send(res, stopping ? 503 : 200, {
    status: stopping ? 'stopping' : 'ok',
    generator: GENERATOR_VERSION,
    prompt_version: PROMPT_VERSION,
    max_batch: o.maxBatch,
    max_body_bytes: o.maxBodyBytes,
    max_rows: r.rows.perRequest,
    workers: o.workers,
    stats: r.stats,
    cache: r.cache(),
    load: { ...r.gate.load(), rows: r.rows.inUse },
  });
}

type PostRoute = '/get_reward' | '/score' | '/seed_session' | '/verify';

function isPostRoute(path: string | undefined): path is PostRoute {
  return path === '/get_reward' || path === '/score' || path === '/seed_session' || path === '/verify';
}

async function post(r: Rewarder, route: PostRoute, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!r.gate.admit(req, res)) return void r.stats.refused++;
  const raw = await r.gate.readBody(req, res);
  if (raw === null) return void r.stats.refused++;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new RequestError(400, 'the body is not valid JSON');
  }
  if (route === '/seed_session') return send(res, 200, seedSessionAnswer(body), closing(r));
  if (route === '/verify') {
    const { batch, row } = readVerifyRequest(body);
    const [scores] = await graded(r, batch);
    return send(res, 200, verifyAnswer(row, scores!), closing(r));
  }
  const max = r.o.maxBatch;
  const batch = route === '/get_reward' ? readRewardRequest(body, max) : readScoreRequest(body, max);
  const scores = await graded(r, batch);
  if (batch.sources.some((f) => f === 'marker' || f === 'none') && !r.warned.has('prefix')) {
    r.warned.add('prefix');
    r.o.warn?.(
      'a query did not start with its prompt: its response was taken after the last assistant marker, or as empty where there was none (see docs/training.md; /health counts them)',
    );
  }
  send(res, 200, route === '/get_reward' ? rewardAnswer(scores, batch.sources) : scoreAnswer(scores), closing(r));
}

/** While stopping, answer and let the connection go, so keep-alive clients reconnect elsewhere. */
function closing(r: Rewarder): Record<string, string> {
  return r.stopping ? { connection: 'close' } : {};
}

/** Grades a batch within the row budgets: its own (413 past it) and the server's (503 while full). */
async function graded(r: Rewarder, batch: RewardBatch): ReturnType<GradeQueue['grade']> {
  r.rows.take(batch.rows);
  try {
    const scores = await r.queue.grade(batch.labels, batch.responses);
    r.stats.graded += scores.length;
    for (const f of batch.sources) r.stats.responseFrom[f]++;
    return scores;
  } finally {
    r.rows.give(batch.rows);
  }
}
