/**
 * How `bas serve` answers a request once its fate is drawn: a whole completion or a stream,
 * a 500 or 429 with Retry-After, a malformed 200, no answer at all, or half an answer (the
 * connection then cut, or left open). It keeps the counts a test holds the client's against.
 */
import type { ServerResponse } from 'node:http';
import { apiError, completionBody, MALFORMED, streamEvents, type Answer } from './answers.js';
import { sendJson as send } from './http-service.js';
import type { Fate } from './fault-plan.js';

/** Counts of what the server did, for tests and the closing line. */
export interface ServeStats {
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
  /** Requests refused for their shape (400), their size (413), or a full server (503). */
  rejected: number;
  /** Requests whose answer failed inside the server (answered 500, the server kept running). */
  failed: number;
  /** Sums of the usage the server reported in its answers: what a provider would bill. */
  promptTokens: number;
  completionTokens: number;
  reasoningTokens: number;
}

/** Every count at zero. */
export function emptyStats(): ServeStats {
  return {
    ...{ requests: 0, ok: 0, errors: 0, rateLimited: 0, hung: 0, malformed: 0, unauthorized: 0, throttled: 0 },
    ...{ maxInFlight: 0, cut: 0, stalled: 0, rejected: 0, failed: 0 },
    ...{ promptTokens: 0, completionTokens: 0, reasoningTokens: 0 },
  };
}

/** One checked request on its way to an answer. */
export interface Pending {
  res: ServerResponse;
  model: string;
  stream: boolean;
  includeUsage: boolean;
  /** The answer, worked out on arrival; null for a fate that sends none. */
  answer: Answer | null;
}

/** Sends what each fate sends, and counts it. */
export class Responder {
  /** Answers held open (hung or stalled), closed with the server. */
  private readonly held = new Set<ServerResponse>();
  private replies = 0;

  constructor(
    private readonly stats: ServeStats,
    private readonly retryAfterS: number,
    private readonly rand: () => number,
    /** The `created` time of every answer: when the server started, in seconds. */
    readonly created: number,
  ) {}

  /** Answers `p` as its fate says; a failure inside is a 500 to this request alone. */
  respond(fate: Fate, p: Pending): void {
    try {
      this.answer(fate, p);
    } catch (err) {
      this.fail(p.res, err);
    }
  }

  private answer(fate: Fate, p: Pending): void {
    const retry = { 'retry-after': String(this.retryAfterS) };
    switch (fate) {
      case 'hang':
        this.stats.hung++;
        return this.hold(p.res);
      case 'error':
        this.stats.errors++;
        // Real gateways often say when to come back after a 5xx too; it keeps tests fast.
        return send(
          p.res,
          500,
          apiError('The server had an error while processing your request.', 'server_error', null),
          retry,
        );
      case 'rate_limit':
        this.stats.rateLimited++;
        return send(
          p.res,
          429,
          apiError('Rate limit reached; try again later.', 'rate_limit_error', 'rate_limit_exceeded'),
          retry,
        );
      case 'malformed':
        return this.malformed(p);
      default:
        return p.stream ? this.streamed(fate, p) : this.whole(fate, p);
    }
  }

  private malformed(p: Pending): void {
    if (p.res.destroyed) return;
    this.stats.malformed++;
    const m = MALFORMED[Math.floor(this.rand() * MALFORMED.length)]!(p.model);
    p.res.writeHead(200, { 'content-type': m.type, 'content-length': Buffer.byteLength(m.body) });
    p.res.end(m.body);
  }

  private streamed(fate: 'ok' | 'cut' | 'stall', p: Pending): void {
    const events = streamEvents(this.nextId(), this.created, p.model, p.answer!, p.includeUsage);
    const head = (): void =>
      void p.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (fate !== 'ok') return this.stopMidway(p.res, fate, head, events);
    if (p.res.destroyed) return;
    this.bill(p.answer!);
    head();
    p.res.end(events.join(''));
  }

  private whole(fate: 'ok' | 'cut' | 'stall', p: Pending): void {
    const text = JSON.stringify(completionBody(this.nextId(), this.created, p.model, p.answer!));
    if (fate === 'ok') {
      this.bill(p.answer!);
      return send(p.res, 200, text);
    }
    const head = (): void =>
      void p.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    this.stopMidway(p.res, fate, head, [text.slice(0, Math.floor(text.length / 2))]);
  }

  private nextId(): string {
    return `chatcmpl-bas-${++this.replies}`;
  }

  /** Counts what an answer reports, as it is sent whole. */
  private bill(a: Answer): void {
    this.stats.ok++;
    this.stats.promptTokens += a.usage.prompt_tokens;
    this.stats.completionTokens += a.usage.completion_tokens;
    this.stats.reasoningTokens += a.usage.completion_tokens_details?.reasoning_tokens ?? 0;
  }

  /** Sends the first half of a reply, then closes the connection (`cut`) or leaves it open (`stall`). */
  private stopMidway(res: ServerResponse, fate: 'cut' | 'stall', head: () => void, pieces: string[]): void {
    if (res.destroyed) return;
    head();
    for (const p of pieces.slice(0, Math.max(1, Math.floor(pieces.length / 2)))) res.write(p);
    if (fate === 'cut') {
      this.stats.cut++;
      res.destroy();
    } else {
      this.stats.stalled++;
      this.hold(res);
    }
  }

  private hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  /** A failure inside the server while answering one request: a 500 to it alone. */
  fail(res: ServerResponse, err: unknown): void {
    this.stats.failed++;
    const why = err instanceof Error ? err.message : String(err);
    if (!res.headersSent) send(res, 500, apiError(`bas serve failed on this request: ${why}`, 'server_error', null));
    else res.destroy();
  }

  /** Drops every answer held open. */
  dropHeld(): void {
    for (const res of this.held) res.destroy();
  }
}
