/**
 * A local OpenAI-compatible endpoint (POST /v1/chat/completions, GET /v1/models) that
 * answers with a built-in policy's reply, with faults injected at chosen rates: HTTP 500s,
 * 429s with Retry-After, requests that never get an answer, malformed 200s, and replies
 * that stop mid-way (cut, or stalled with the connection left open). Fault draws come from
 * a seeded generator, so a test sees the same sequence for the same request order. A request
 * with `"stream": true` is answered with server-sent events, as OpenAI streams them.
 * It can act as a reasoning model that thinks a set number of tokens before it answers, so a
 * request's token limit can run out before any content; and it counts the tokens it reports
 * (GET /v1/bas/stats), so a test can hold a client's accounting against the server's own.
 *
 * This file is the router; the fates and answers are fault-plan.ts, sending them is
 * responder.ts, and the bounds on what a client can make it hold are http-service.ts. Every
 * request is checked before any work (a bad shape gets a 400 naming what is wrong), and a
 * failure while answering one request is a 500 to that request alone: nothing a client sends
 * can stop the server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { apiError, seeded } from './answers.js';
import { checkChatRequest } from './chat-request.js';
import { answerFor, answers, drawFate, type FaultRates } from './fault-plan.js';
import { listen, RequestGate, sendJson as send, SERVER_OPTIONS } from './http-service.js';
import { emptyStats, Responder, type ServeStats } from './responder.js';
import { tokenBucket } from './token-bucket.js';
import { BatchEngine } from './batch-routes.js';
import type { BatchFault } from './batch-jobs.js';

export interface ServeOptions extends FaultRates {
  port: number;
  host: string;
  latencyMs: number;
  /** Seconds sent in Retry-After with a 429 (fractions allowed, for fast tests). */
  retryAfterS: number;
  /** Requests per second admitted by a token bucket (holding one second's worth); 0 for no limit. */
  rateLimitRps: number;
  seed: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | null;
  /** When set, only these model ids are served. */
  models: string[] | null;
  /** With `rateLimitRps`: send only a whole-second `Retry-After`, no `retry-after-ms` (as many providers do). */
  wholeSecondRetryAfter?: boolean;
  /** Largest request body accepted, in bytes; past it the answer is 413 (default 8 MiB). */
  maxRequestBytes?: number;
  /** Bytes all unanswered requests' bodies may hold together; past it the answer is 503 (default 64 MiB). */
  bodyBudgetBytes?: number;
  /** Connections open at once; a request on one past it gets 503 (default 4,096, bas eval's highest -c). */
  maxConnections?: number;
  /** The clock of the rate limit's token bucket (default Date.now): a test moves it by hand. */
  bucketClock?: () => number;
  /** How every batch of the batch endpoints goes wrong (default: none, it completes). */
  batchFault?: BatchFault;
}

/** The default cap on a request body: far above any prompt bas sends, far below harm. */
export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** The default budget of all bodies at once: eight bodies at the cap. */
export const DEFAULT_BODY_BUDGET_BYTES = 64 * 1024 * 1024;
/** The default connection limit: bas eval's highest -c. */
export const DEFAULT_MAX_CONNECTIONS = 4096;

export interface RunningServer {
  /** Base URL for clients, ending in /v1. */
  url: string;
  port: number;
  stats: ServeStats;
  /** Bytes held now by unanswered requests' bodies, and connections open. */
  load(): { bodyBytes: number; connections: number };
  close(): Promise<void>;
}

/** One server's state, handed to the route handlers. */
interface Served {
  o: ServeOptions;
  stats: ServeStats;
  gate: RequestGate;
  responder: Responder;
  rand: () => number;
  bucket: ReturnType<typeof tokenBucket> | null;
  inFlight: number;
  batches: BatchEngine;
}

/** Starts the server; resolves once it listens. */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const stats = emptyStats();
  const rand = seeded(o.seed);
  const gate = new RequestGate(
    {
      maxBodyBytes: o.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES,
      bodyBudgetBytes: o.bodyBudgetBytes ?? DEFAULT_BODY_BUDGET_BYTES,
      maxConnections: o.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      flags: { maxBody: '--max-request-mb', bodyBudget: '--body-budget-mb', maxConnections: '--max-connections' },
    },
    (message, status) =>
      apiError(
        `${message}.`,
        status === 503 ? 'server_error' : 'invalid_request_error',
        status === 413 ? 'request_too_large' : 'server_busy',
      ),
  );
  const responder = new Responder(stats, o.retryAfterS, rand, Math.floor(Date.now() / 1000));
  const bucket = o.rateLimitRps > 0 ? tokenBucket(o.rateLimitRps, o.bucketClock) : null;
  const batches = new BatchEngine(o, o.batchFault ?? 'none', gate);
  const s: Served = { o, stats, gate, responder, rand, bucket, inFlight: 0, batches };
  const server = createServer(SERVER_OPTIONS, (req, res) => handle(s, req, res));
  server.keepAliveTimeout = 60_000;
  gate.watch(server);
  const at = await listen(server, o.port, o.host);
  return {
    url: `http://${at.host}:${at.port}/v1`,
    port: at.port,
    stats,
    load: () => gate.load(),
    close: () =>
      new Promise<void>((done) => {
        responder.dropHeld();
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

function handle(s: Served, req: IncomingMessage, res: ServerResponse): void {
  // A client that goes away mid-request must not take the server with it.
  req.on('error', () => {});
  res.on('error', () => {});
  try {
    route(s, req, res);
  } catch (err) {
    s.responder.fail(res, err);
  }
}

function route(s: Served, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '').split('?')[0] ?? '';
  if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
    const ids = s.o.models ?? [`bas-${s.o.policy}`];
    const created = s.responder.created;
    return send(res, 200, {
      object: 'list',
      data: ids.map((id) => ({ id, object: 'model', created, owned_by: 'bas' })),
    });
  }
  if (req.method === 'GET' && (path === '/v1/bas/stats' || path === '/bas/stats'))
    return send(res, 200, { ...s.stats, batches: { created: s.batches.created, uploads: s.batches.uploads } });
  if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions'))
    return void receive(s, req, res);
  if (
    s.o.apiKey !== null &&
    req.headers.authorization !== `Bearer ${s.o.apiKey}` &&
    /^\/(v1\/)?(files|batches)\b/.test(path)
  ) {
    s.stats.unauthorized++;
    return send(res, 401, apiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
  }
  if (s.batches.route(req, res, path)) return;
  send(res, 404, apiError(`No route for ${req.method} ${path}.`, 'invalid_request_error', 'not_found'));
}

/** Reads a chat request's body within the server's bounds, then answers it. */
async function receive(s: Served, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // The key first: a request without it takes nothing of the budget, and its body is not read.
  if (s.o.apiKey !== null && req.headers.authorization !== `Bearer ${s.o.apiKey}`) {
    s.stats.requests++;
    s.stats.unauthorized++;
    const error = apiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    send(res, 401, error, { connection: 'close' });
    return void res.once('finish', () => req.destroy());
  }
  if (!s.gate.admit(req, res)) return void s.stats.rejected++;
  s.inFlight++;
  if (s.inFlight > s.stats.maxInFlight) s.stats.maxInFlight = s.inFlight;
  res.on('close', () => s.inFlight--);
  const arrived = Date.now();
  const raw = await s.gate.readBody(req, res);
  // Null: refused for its size or a full server (already answered), or the client left.
  if (raw === null) return void (res.headersSent && s.stats.rejected++);
  try {
    chat(s, req, res, raw, arrived);
  } catch (err) {
    s.responder.fail(res, err);
  }
}

function chat(s: Served, req: IncomingMessage, res: ServerResponse, raw: string, arrived: number): void {
  const { o, stats } = s;
  stats.requests++;
  const body = checked(raw);
  if (typeof body === 'string') {
    stats.rejected++;
    return send(res, 400, apiError(body, 'invalid_request_error', null));
  }
  const { model } = body;
  if (o.models && !o.models.includes(model))
    return send(
      res,
      404,
      apiError(`The model \`${model}\` does not exist.`, 'invalid_request_error', 'model_not_found'),
    );
  if (throttled(s, res)) return;
  // One draw decides the fate of the request, so the rates are exact shares of one stream.
  const fate = drawFate(s.rand(), o);
  // The reply is worked out on arrival and the latency counted from arrival, as a real
  // endpoint's would be: computing it when the timer fires would queue a whole wave of
  // policy work behind one another and add it to every answer's latency.
  const answer = answers(fate) ? answerFor(o, body.messages, body.limit, body.effort) : null;
  const pending = { res, model, stream: body.stream, includeUsage: body.includeUsage, answer };
  const wait = o.latencyMs - (Date.now() - arrived);
  if (wait > 0) setTimeout(() => s.responder.respond(fate, pending), wait);
  else s.responder.respond(fate, pending);
}

/** The request, checked; or what is wrong with it, as the 400 says it. */
function checked(raw: string): ReturnType<typeof checkChatRequest> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'The request body is not valid JSON.';
  }
  const body = checkChatRequest(parsed);
  return typeof body === 'string' ? `Invalid request: ${body}.` : body;
}

/** With --rate-limit, refuses a request the token bucket has no token for: at once, with a provider's headers. */
function throttled(s: Served, res: ServerResponse): boolean {
  const refill = s.bucket?.take() ?? 0;
  if (refill === 0) return false;
  const { o } = s;
  s.stats.throttled++;
  send(
    res,
    429,
    apiError(
      `Rate limit of ${o.rateLimitRps} requests per second reached; try again later.`,
      'rate_limit_error',
      'rate_limit_exceeded',
    ),
    {
      'retry-after': String(Math.ceil(refill / 1000)),
      ...(o.wholeSecondRetryAfter ? {} : { 'retry-after-ms': String(refill) }),
      'x-ratelimit-limit-requests': String(o.rateLimitRps),
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${s.bucket!.untilFullMs()}ms`,
    },
  );
  return true;
}
