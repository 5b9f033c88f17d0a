/**
 * A local OpenAI-compatible endpoint (POST /v1/chat/completions, GET /v1/models) that
 * answers with a built-in policy's reply, with faults injected at chosen rates: HTTP 500s,
 * 429s with Retry-After, requests that never get an answer, and malformed 200s. Fault draws
 * come from a seeded generator, so a test sees the same sequence for the same request order.
 * It can act as a reasoning model that thinks a set number of tokens before it answers, so a
 * request's token limit can run out before any content; and it counts the tokens it reports
 * (GET /v1/bas/stats), so a test can hold a client's accounting against the server's own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runPolicy, type PolicyName } from '../task/policies.js';
import type { ChatMessage } from '../task/types.js';

export interface ServeOptions {
  port: number;
  host: string;
  policy: PolicyName;
  latencyMs: number;
  errorRate: number;
  rateLimitRate: number;
  /** Seconds sent in Retry-After with a 429 (fractions allowed, for fast tests). */
  retryAfterS: number;
  hangRate: number;
  malformedRate: number;
  /** Requests per second admitted by a token bucket (holding one second's worth); 0 for no limit. */
  rateLimitRps: number;
  seed: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey: string | null;
  /** When set, only these model ids are served. */
  models: string[] | null;
  /**
   * Act as a reasoning model that spends this many tokens reasoning before it answers (0 or
   * absent: no reasoning). A request's `max_completion_tokens` (else `max_tokens`) caps
   * reasoning and reply together: at or below this it gets empty content, finish_reason
   * "length", every completion token a reasoning token.
   */
  reasoningTokens?: number;
}

/** Counts of what the server did, for tests and the log. */
interface ServeStats {
  requests: number;
  ok: number;
  errors: number;
  rateLimited: number;
  hung: number;
  malformed: number;
  unauthorized: number;
  /** Refused with 429 because the token bucket was empty (`rateLimitRps`). */
  throttled: number;
  /** Most chat requests open at once (received, not yet answered). */
  maxInFlight: number;
  /** Sums of the usage the server reported in its answers: what a provider would bill. */
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

export interface RunningServer {
  /** Base URL for clients, ending in /v1. */
  url: string;
  port: number;
  stats: ServeStats;
  close(): Promise<void>;
}

/** mulberry32: small, fast and good enough for fault draws. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function apiError(message: string, type: string, code: string | null): unknown {
  return { error: { message, type, code, param: null } };
}

/** The malformed answers a sloppy endpoint has been seen to give. */
const MALFORMED: Array<(model: string) => { body: string; type: string }> = [
  () => ({ body: '{"id": "chatcmpl-x", "choices": [', type: 'application/json' }),
  (model) => ({
    body: JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion', model, choices: [] }),
    type: 'application/json',
  }),
  (model) => ({
    body: JSON.stringify({
      id: 'chatcmpl-x',
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'length' }],
    }),
    type: 'application/json',
  }),
  () => ({ body: '<html><body>502 Bad Gateway</body></html>', type: 'text/html' }),
];

/**
 * A token bucket: `rps` tokens a second, holding at most one second's worth (so a burst of
 * `rps` requests passes at once, as a per-second budget would). `take` spends a token, or
 * says how long until one is there.
 */
export function tokenBucket(rps: number, now: () => number = Date.now): { take(): number; untilFullMs(): number } {
  const capacity = Math.max(1, rps);
  let tokens = capacity;
  let last = now();
  const refill = (): void => {
    const t = now();
    tokens = Math.min(capacity, tokens + ((t - last) / 1000) * rps);
    last = t;
  };
  return {
    /** 0 when a token was spent; else the ms until the next one. */
    take() {
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil(((1 - tokens) / rps) * 1000));
    },
    untilFullMs() {
      refill();
      return Math.ceil(((capacity - tokens) / rps) * 1000);
    },
  };
}

/** A successful answer, as sent. */
interface ChatBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{ index: number; message: Record<string, string>; finish_reason: string }>;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    completion_tokens_details?: { reasoning_tokens: number };
  };
}

/** The request's cap on completion tokens (`max_completion_tokens`, else `max_tokens`), or null. */
function tokenLimit(body: { max_tokens?: unknown; max_completion_tokens?: unknown }): number | null {
  for (const v of [body.max_completion_tokens, body.max_tokens]) {
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  }
  return null;
}

type Fate = 'hang' | 'error' | 'rate_limit' | 'malformed' | 'ok';

/** Which fault (if any) a draw `u` in [0, 1) lands on: the rates are consecutive slices. */
function drawFate(u: number, o: ServeOptions): Fate {
  if ((u -= o.hangRate) < 0) return 'hang';
  if ((u -= o.errorRate) < 0) return 'error';
  if ((u -= o.rateLimitRate) < 0) return 'rate_limit';
  if ((u -= o.malformedRate) < 0) return 'malformed';
  return 'ok';
}

/** Starts the server; resolves once it listens. */
export function startServer(o: ServeOptions): Promise<RunningServer> {
  const rand = seeded(o.seed);
  const stats: ServeStats = {
    requests: 0,
    ok: 0,
    errors: 0,
    rateLimited: 0,
    hung: 0,
    malformed: 0,
    unauthorized: 0,
    throttled: 0,
    maxInFlight: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
  };
  const bucket = o.rateLimitRps > 0 ? tokenBucket(o.rateLimitRps) : null;
  let inFlight = 0;
  const hanging = new Set<ServerResponse>();
  let created = Math.floor(Date.now() / 1000);

  /** The body of a successful answer, computed as soon as the request arrives. */
  const answer = (model: string, messages: ChatMessage[], limit: number | null): ChatBody => {
    const reply = runPolicy(o.policy, messages);
    let promptChars = 0;
    for (const m of messages) promptChars += typeof m.content === 'string' ? m.content.length : 0;
    const prompt_tokens = Math.ceil(promptChars / 4);
    const message: Record<string, string> = { role: 'assistant', content: reply };
    let finish = 'stop';
    let completion_tokens = Math.ceil(reply.length / 4);
    const usage: ChatBody['usage'] = { prompt_tokens, completion_tokens, total_tokens: 0 };
    const thinks = o.reasoningTokens ?? 0;
    if (thinks > 0) {
      // A token is about four characters here, as for the usage counts.
      const cap = limit ?? Number.POSITIVE_INFINITY;
      const thought = Math.min(thinks, cap);
      message.reasoning_content = `Checking the ledger row by row (${thought} tokens of reasoning).`;
      if (thought + completion_tokens > cap) {
        finish = 'length';
        message.content = reply.slice(0, Math.max(0, cap - thought) * 4);
        completion_tokens = cap;
      } else {
        completion_tokens += thought;
      }
      usage.completion_tokens_details = { reasoning_tokens: thought };
    }
    usage.completion_tokens = completion_tokens;
    usage.total_tokens = prompt_tokens + completion_tokens;
    return {
      id: `chatcmpl-bas-${stats.requests}`,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    };
  };

  /** Counts what an answer reports, as it is sent. */
  const bill = (body: ChatBody): void => {
    stats.promptTokens += body.usage.prompt_tokens;
    stats.completionTokens += body.usage.completion_tokens;
    stats.reasoningTokens += body.usage.completion_tokens_details?.reasoning_tokens ?? 0;
  };

  const chat = (req: IncomingMessage, res: ServerResponse, raw: string, arrived: number): void => {
    stats.requests++;
    if (o.apiKey !== null && req.headers.authorization !== `Bearer ${o.apiKey}`) {
      stats.unauthorized++;
      return send(res, 401, apiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    let body: { model?: unknown; messages?: unknown; max_tokens?: unknown; max_completion_tokens?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return send(res, 400, apiError('The request body is not valid JSON.', 'invalid_request_error', null));
    }
    if (typeof body?.model !== 'string' || !Array.isArray(body.messages)) {
      return send(res, 400, apiError('The request needs "model" and "messages".', 'invalid_request_error', null));
    }
    const model = body.model;
    if (o.models && !o.models.includes(model)) {
      return send(
        res,
        404,
        apiError(`The model \`${model}\` does not exist.`, 'invalid_request_error', 'model_not_found'),
      );
    }
    const refill = bucket?.take() ?? 0;
    if (refill > 0) {
      // Refused at once, before any work, with the headers a hosted provider sends.
      stats.throttled++;
      return send(
        res,
        429,
        apiError(
          `Rate limit of ${o.rateLimitRps} requests per second reached; try again later.`,
          'rate_limit_error',
          'rate_limit_exceeded',
        ),
        {
          'retry-after': String(Math.ceil(refill / 1000)),
          'retry-after-ms': String(refill),
          'x-ratelimit-limit-requests': String(o.rateLimitRps),
          'x-ratelimit-remaining-requests': '0',
          'x-ratelimit-reset-requests': `${bucket!.untilFullMs()}ms`,
        },
      );
    }
    // One draw decides the fate of the request, so the rates are exact shares of one stream.
    const fate = drawFate(rand(), o);
    // The reply is worked out on arrival and the latency counted from arrival, as a real
    // endpoint's would be: computing it when the timer fires would queue a whole wave of
    // policy work behind one another and add it to every answer's latency.
    const body200 = fate === 'ok' ? answer(model, body.messages as ChatMessage[], tokenLimit(body)) : null;
    const respond = (): void => {
      switch (fate) {
        case 'hang':
          stats.hung++;
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'error':
          stats.errors++;
          // Real gateways often say when to come back after a 5xx too; it keeps tests fast.
          return send(
            res,
            500,
            apiError('The server had an error while processing your request.', 'server_error', null),
            {
              'retry-after': String(o.retryAfterS),
            },
          );
        case 'rate_limit':
          stats.rateLimited++;
          return send(
            res,
            429,
            apiError('Rate limit reached; try again later.', 'rate_limit_error', 'rate_limit_exceeded'),
            {
              'retry-after': String(o.retryAfterS),
            },
          );
        case 'malformed': {
          stats.malformed++;
          const m = MALFORMED[Math.floor(rand() * MALFORMED.length)]!(model);
          res.writeHead(200, { 'content-type': m.type, 'content-length': Buffer.byteLength(m.body) });
          return void res.end(m.body);
        }
        case 'ok':
          stats.ok++;
          bill(body200!);
          return send(res, 200, body200);
      }
    };
    const wait = o.latencyMs - (Date.now() - arrived);
    if (wait > 0) setTimeout(respond, wait);
    else respond();
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      const ids = o.models ?? [`bas-${o.policy}`];
      return send(res, 200, {
        object: 'list',
        data: ids.map((id) => ({ id, object: 'model', created, owned_by: 'bas' })),
      });
    }
    if (req.method === 'GET' && (path === '/v1/bas/stats' || path === '/bas/stats')) return send(res, 200, stats);
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) {
      inFlight++;
      if (inFlight > stats.maxInFlight) stats.maxInFlight = inFlight;
      res.on('close', () => inFlight--);
      const arrived = Date.now();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => chat(req, res, Buffer.concat(chunks).toString('utf8'), arrived));
      return;
    }
    send(res, 404, apiError(`No route for ${req.method} ${path}.`, 'invalid_request_error', 'not_found'));
  });
  server.keepAliveTimeout = 60_000;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      const host = o.host.includes(':') ? `[${o.host}]` : o.host;
      created = Math.floor(Date.now() / 1000);
      resolve({
        url: `http://${host}:${port}/v1`,
        port,
        stats,
        close: () =>
          new Promise<void>((done) => {
            for (const res of hanging) res.destroy();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
