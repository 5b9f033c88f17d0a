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
 * Every request is checked before any work (a bad shape gets a 400 naming what is wrong),
 * bodies are capped (413), and a failure while answering one request is answered with a 500
 * to that request alone: nothing a client sends can stop the server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runPolicy, type PolicyName } from '../task/policies.js';
import type { ChatMessage } from '../task/types.js';
import { checkChatRequest } from './chat-request.js';
import { tokenBucket } from './token-bucket.js';
import { apiError, completionBody, MALFORMED, seeded, send, streamEvents, type Answer } from './answers.js';

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
  /** Share of replies cut mid-way (the connection closed); default 0. */
  cutRate?: number;
  /** Share of replies that stop mid-way with the connection left open; default 0. */
  stallRate?: number;
  /** With `rateLimitRps`: send only a whole-second `Retry-After`, no `retry-after-ms` (as many providers do). */
  wholeSecondRetryAfter?: boolean;
  /** Largest request body accepted, in bytes; past it the answer is 413 (default 8 MiB). */
  maxRequestBytes?: number;
  /**
   * Act as a reasoning model that spends this many tokens reasoning before it answers (0 or
   * absent: no reasoning). A request's `max_completion_tokens` (else `max_tokens`) caps
   * reasoning and reply together: at or below this it gets empty content, finish_reason
   * "length", every completion token a reasoning token.
   */
  reasoningTokens?: number;
}

/** The default cap on a request body: far above any prompt bas sends, far below harm. */
export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;

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
  /** Replies cut mid-way, and replies stalled mid-way. */
  cut: number;
  stalled: number;
  /** Requests refused for their shape (400) or size (413). */
  rejected: number;
  /** Requests whose answer failed inside the server (answered 500, the server kept running). */
  failed: number;
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

type Fate = 'hang' | 'error' | 'rate_limit' | 'malformed' | 'cut' | 'stall' | 'ok';

/** Which fault (if any) a draw `u` in [0, 1) lands on: the rates are consecutive slices. */
function drawFate(u: number, o: ServeOptions): Fate {
  if ((u -= o.hangRate) < 0) return 'hang';
  if ((u -= o.errorRate) < 0) return 'error';
  if ((u -= o.rateLimitRate) < 0) return 'rate_limit';
  if ((u -= o.malformedRate) < 0) return 'malformed';
  if ((u -= o.cutRate ?? 0) < 0) return 'cut';
  if ((u -= o.stallRate ?? 0) < 0) return 'stall';
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
    cut: 0,
    stalled: 0,
    rejected: 0,
    failed: 0,
    promptTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
  };
  const maxRequestBytes = o.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const bucket = o.rateLimitRps > 0 ? tokenBucket(o.rateLimitRps) : null;
  let inFlight = 0;
  const hanging = new Set<ServerResponse>();
  let created = Math.floor(Date.now() / 1000);

  /** The reply and its usage, computed as soon as the request arrives. */
  const answer = (messages: ChatMessage[], limit: number | null): Answer => {
    const reply = runPolicy(o.policy, messages);
    let promptChars = 0;
    for (const m of messages) promptChars += m.content.length;
    const prompt_tokens = Math.ceil(promptChars / 4);
    const a: Answer = {
      reply,
      reasoning: null,
      finish: 'stop',
      usage: { prompt_tokens, completion_tokens: Math.ceil(reply.length / 4), total_tokens: 0 },
    };
    const thinks = o.reasoningTokens ?? 0;
    if (thinks > 0) {
      // A token is about four characters here, as for the usage counts.
      const cap = limit ?? Number.POSITIVE_INFINITY;
      const thought = Math.min(thinks, cap);
      a.reasoning = `Checking the ledger row by row (${thought} tokens of reasoning).`;
      if (thought + a.usage.completion_tokens > cap) {
        a.finish = 'length';
        a.reply = reply.slice(0, Math.max(0, cap - thought) * 4);
        a.usage.completion_tokens = cap;
      } else {
        a.usage.completion_tokens += thought;
      }
      a.usage.completion_tokens_details = { reasoning_tokens: thought };
    }
    a.usage.total_tokens = prompt_tokens + a.usage.completion_tokens;
    return a;
  };

  /** Counts what an answer reports, as it is sent whole. */
  const bill = (a: Answer): void => {
    stats.promptTokens += a.usage.prompt_tokens;
    stats.completionTokens += a.usage.completion_tokens;
    stats.reasoningTokens += a.usage.completion_tokens_details?.reasoning_tokens ?? 0;
  };

  /** Sends the first half of a reply, then closes the connection (`cut`) or leaves it open (`stall`). */
  const stopMidway = (res: ServerResponse, fate: 'cut' | 'stall', head: () => void, pieces: string[]): void => {
    if (res.destroyed) return;
    head();
    for (const p of pieces.slice(0, Math.max(1, Math.floor(pieces.length / 2)))) res.write(p);
    if (fate === 'cut') {
      stats.cut++;
      res.destroy();
    } else {
      stats.stalled++;
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
    }
  };

  const chat = (req: IncomingMessage, res: ServerResponse, raw: string, arrived: number): void => {
    stats.requests++;
    if (o.apiKey !== null && req.headers.authorization !== `Bearer ${o.apiKey}`) {
      stats.unauthorized++;
      return send(res, 401, apiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      stats.rejected++;
      return send(res, 400, apiError('The request body is not valid JSON.', 'invalid_request_error', null));
    }
    const body = checkChatRequest(parsed);
    if (typeof body === 'string') {
      stats.rejected++;
      return send(res, 400, apiError(`Invalid request: ${body}.`, 'invalid_request_error', null));
    }
    const { model } = body;
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
          ...(o.wholeSecondRetryAfter ? {} : { 'retry-after-ms': String(refill) }),
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
    const a = fate === 'ok' || fate === 'cut' || fate === 'stall' ? answer(body.messages, body.limit) : null;
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
          if (res.destroyed) return;
          stats.malformed++;
          const m = MALFORMED[Math.floor(rand() * MALFORMED.length)]!(model);
          res.writeHead(200, { 'content-type': m.type, 'content-length': Buffer.byteLength(m.body) });
          return void res.end(m.body);
        }
        case 'cut':
        case 'stall':
        case 'ok': {
          if (body.stream) {
            const events = streamEvents(`chatcmpl-bas-${stats.requests}`, created, model, a!, body.includeUsage);
            const head = (): void =>
              void res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            if (fate !== 'ok') return stopMidway(res, fate, head, events);
            if (res.destroyed) return;
            stats.ok++;
            bill(a!);
            head();
            return void res.end(events.join(''));
          }
          const text = JSON.stringify(completionBody(`chatcmpl-bas-${stats.requests}`, created, model, a!));
          if (fate !== 'ok') {
            const half = text.slice(0, Math.floor(text.length / 2));
            const head = (): void =>
              void res.writeHead(200, {
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(text),
              });
            return stopMidway(res, fate, head, [half]);
          }
          stats.ok++;
          bill(a!);
          return send(res, 200, text);
        }
      }
    };
    const guarded = (): void => {
      try {
        respond();
      } catch (err) {
        fail(res, err);
      }
    };
    const wait = o.latencyMs - (Date.now() - arrived);
    if (wait > 0) setTimeout(guarded, wait);
    else guarded();
  };

  /** A failure inside the server while answering one request: a 500 to it alone. */
  const fail = (res: ServerResponse, err: unknown): void => {
    stats.failed++;
    const why = err instanceof Error ? err.message : String(err);
    if (!res.headersSent) send(res, 500, apiError(`bas serve failed on this request: ${why}`, 'server_error', null));
    else res.destroy();
  };

  const server: Server = createServer((req, res) => {
    // A client that goes away mid-request must not take the server with it.
    req.on('error', () => {});
    res.on('error', () => {});
    try {
      route(req, res);
    } catch (err) {
      fail(res, err);
    }
  });

  const route = (req: IncomingMessage, res: ServerResponse): void => {
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
      const tooLarge = (): void => {
        stats.rejected++;
        send(
          res,
          413,
          apiError(
            `The request body is larger than the ${maxRequestBytes} bytes this server accepts.`,
            'invalid_request_error',
            'request_too_large',
          ),
          { connection: 'close' },
        );
        // Nothing more of this body is read: the connection goes once the answer is out.
        res.on('finish', () => req.destroy());
      };
      // A declared length past the cap is refused before any of the body is read.
      if (Number(req.headers['content-length']) > maxRequestBytes) return tooLarge();
      inFlight++;
      if (inFlight > stats.maxInFlight) stats.maxInFlight = inFlight;
      res.on('close', () => inFlight--);
      const arrived = Date.now();
      const chunks: Buffer[] = [];
      let received = 0;
      let over = false;
      req.on('data', (c: Buffer) => {
        if (over) return;
        received += c.length;
        if (received > maxRequestBytes) {
          over = true;
          chunks.length = 0;
          return tooLarge();
        }
        chunks.push(c);
      });
      req.on('end', () => {
        if (over) return;
        try {
          chat(req, res, Buffer.concat(chunks).toString('utf8'), arrived);
        } catch (err) {
          fail(res, err);
        }
      });
      return;
    }
    send(res, 404, apiError(`No route for ${req.method} ${path}.`, 'invalid_request_error', 'not_found'));
  };
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
