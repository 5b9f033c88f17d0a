/**
 * The `fetch` given to the openai SDK, built on node:http(s) with keep-alive agents, and the
 * light stand-in for `Response` it hands over (status, headers, text, json: what the SDK
 * reads). Both are kept for the latency-bound target, `-c 100` against 200 ms replies within
 * 1.05x of the SDK alone sending the same requests (docs/performance.md, "The latency and
 * low-rate targets, decided"): the SDK with
 * Node's own fetch (undici) took 1.16x the time of the SDK with this one, and a standard
 * `Response` on this transport (about 18 us a reply against 2, its body a web stream) cost
 * bas 0.01-0.02x of that 1.05. It reads each body whole before resolving, so an abort (our
 * request timeout) bounds the body as well as the headers. Bodies that are not text or bytes
 * fall back to the global fetch.
 *
 * Buffering is bounded: an endpoint may send a body that never ends, so past
 * `maxResponseBytes` the connection is destroyed at once and the attempt fails with a
 * ResponseTooLargeError naming the cap, before more than one further chunk is held. The
 * bytes of all bodies in flight together are bounded by one budget (reply-budget.ts): past it
 * a reader pauses its connection until others finish.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { MalformedResponseError, ResponseTooLargeError } from '../errors/index.js';
import { outsideText } from '../io/outside-text.js';
import { noteAbortedWhileWaiting, replyBudget, type BudgetClaim, type ReplyBudget } from './reply-budget.js';
import { MAX_RESPONSE_MB } from '../settings/setting-parse.js';

const httpAgent = new HttpAgent({ keepAlive: true, scheduling: 'lifo', noDelay: true });
const httpsAgent = new HttpsAgent({ keepAlive: true, scheduling: 'lifo', noDelay: true });

/** The default cap on one response body: far above any chat completion, far below harm. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/** Options of `makeNodeFetch`. */
export interface NodeFetchOptions {
  /** Largest response body buffered, in bytes (default 32 MiB, at most MAX_RESPONSE_MB MiB). */
  maxResponseBytes?: number;
  /** The budget shared by all bodies in flight (default: the process's). */
  budget?: ReplyBudget;
  /**
   * Says which responses are not buffered but handed over as they arrive (a stream of
   * server-sent events): those resolve at their headers, as an `UnreadResponse` whose
   * `source` the caller reads, and bound, itself (event-stream.ts).
   */
  passThrough?: (status: number, headers: IncomingHttpHeaders) => boolean;
}

/** Status codes whose responses carry no body (a Response refuses one for them). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** Read-only response headers with the lookups the SDK makes (get, has, entries). */
class ResponseHeaders {
  private readonly map = new Map<string, string>();
  constructor(raw: string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const key = raw[i]!.toLowerCase();
      const prev = this.map.get(key);
      this.map.set(key, prev === undefined ? raw[i + 1]! : `${prev}, ${raw[i + 1]!}`);
    }
  }
  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }
  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  entries(): IterableIterator<[string, string]> {
    return this.map.entries();
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  values(): IterableIterator<string> {
    return this.map.values();
  }
  forEach(fn: (value: string, key: string) => void): void {
    this.map.forEach((v, k) => fn(v, k));
  }
  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.map.entries();
  }
}

/** A fully read response: what the SDK uses of `Response`, without web streams. */
class BufferedResponse {
  readonly ok: boolean;
  readonly body = null;
  readonly bodyUsed = false;
  readonly redirected = false;
  readonly type = 'basic';
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders,
    readonly url: string,
    private readonly payload: Buffer,
  ) {
    this.ok = status >= 200 && status < 300;
  }
  async text(): Promise<string> {
    return this.payload.toString('utf8');
  }
  async json(): Promise<unknown> {
    const text = this.payload.toString('utf8');
    try {
      return JSON.parse(text);
    } catch {
      // V8's own message quotes a cut piece of the body, which may be most of an echoed key:
      // the message is built from the whole body, redacted before it is cut.
      throw new MalformedResponseError(`the body is not JSON: "${outsideText(text, 80)}"`, { fault: 'shape' });
    }
  }
  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.payload).buffer;
  }
}

/** A response whose body was not read: the caller reads `source` (see `passThrough`). */
export class UnreadResponse {
  readonly ok: boolean;
  readonly body = null;
  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders,
    readonly url: string,
    readonly source: IncomingMessage,
  ) {
    this.ok = status >= 200 && status < 300;
  }
}

function abortError(signal: AbortSignal): Error {
  const reason = signal.reason as unknown;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

/** A fetch for JSON APIs; same contract as the global one for what the SDK sends. */
export function makeNodeFetch(options: NodeFetchOptions = {}): typeof fetch {
  const max = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(max) || max < 1 || max > MAX_RESPONSE_MB * 1024 * 1024)
    throw new RangeError(`maxResponseBytes must be a whole number from 1 to ${MAX_RESPONSE_MB} MiB, got ${max}`);
  const budget = options.budget ?? replyBudget;
  return (input, init) => fetchOnce(input, init, max, budget, options.passThrough);
}

/** makeNodeFetch with the default cap. */
export const nodeFetch: typeof fetch = makeNodeFetch();

/** The request headers as one plain object, with the body's length. */
function requestHeaders(init: Parameters<typeof fetch>[1], body: string | Uint8Array | null): Record<string, string> {
  const headers: Record<string, string> = {};
  const given = init?.headers;
  (given instanceof Headers ? given : new Headers(given)).forEach((value, key) => (headers[key] = value));
  if (body != null)
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return headers;
}

/** What one request is bounded by: the cap on its reply, the budget for replies in flight, and which replies to pass on unread. */
interface FetchBounds {
  maxBytes: number;
  budget: ReplyBudget;
  passThrough?: NodeFetchOptions['passThrough'];
}

/** One request through node:http, its reply read whole within its bounds (or passed on unread). */
class NodeFetchCall {
  private claim: BudgetClaim | null = null;
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private readonly req: ReturnType<typeof httpRequest>;
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly url: URL,
    init: Parameters<typeof fetch>[1],
    private readonly bounds: FetchBounds,
    private readonly resolve: (r: Response) => void,
    private readonly reject: (e: Error) => void,
  ) {
    this.signal = init?.signal ?? undefined;
    const body = (init?.body ?? null) as string | Uint8Array | null;
    const https = url.protocol === 'https:';
    this.req = (https ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init?.method ?? 'GET',
        headers: requestHeaders(init, body),
        agent: https ? httpsAgent : httpAgent,
      },
      (res) => this.onResponse(res),
    );
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.req.on('error', this.fail);
    this.req.end(body ?? undefined);
  }

  private onResponse(res: IncomingMessage): void {
    if (this.bounds.passThrough?.(res.statusCode ?? 0, res.headers)) {
      // An abort still destroys the request (and so the response) until the response closes.
      res.once('close', () => this.signal?.removeEventListener('abort', this.onAbort));
      const headers = new ResponseHeaders(res.rawHeaders);
      const unread = new UnreadResponse(res.statusCode!, res.statusMessage ?? '', headers, this.url.href, res);
      return this.resolve(unread as unknown as Response);
    }
    this.claim = this.bounds.budget.claim();
    // A declared length past the cap fails before any of the body is read.
    if (Number(res.headers['content-length']) > this.bounds.maxBytes) return this.tooLarge(res);
    res.on('data', (c: Buffer) => this.onData(res, c));
    res.on('error', this.fail);
    res.on('aborted', () => this.fail(new TypeError('terminated: the connection closed mid-response')));
    res.on('end', () => this.onEnd(res));
  }

  private onData(res: IncomingMessage, c: Buffer): void {
    this.received += c.length;
    if (this.received > this.bounds.maxBytes) return this.tooLarge(res);
    this.chunks.push(c);
    if (!this.claim!.add(c.length)) {
      res.pause();
      this.claim!.pauseUntil(() => res.resume());
    }
  }

  private tooLarge(res: IncomingMessage): void {
    this.chunks.length = 0;
    const err = new ResponseTooLargeError(this.bounds.maxBytes);
    // Reject first: destroying emits 'aborted', whose error must not win.
    this.fail(err);
    res.destroy();
    this.req.destroy(err);
  }

  private onEnd(res: IncomingMessage): void {
    if (this.received > this.bounds.maxBytes) return;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.claim!.release();
    const status = res.statusCode ?? 0;
    if (status < 200 || status > 599) return this.reject(new TypeError(`invalid HTTP status ${status}`));
    const chunks = this.chunks;
    const payload = NO_BODY.has(status) ? Buffer.alloc(0) : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    const headers = new ResponseHeaders(res.rawHeaders);
    const response = new BufferedResponse(status, res.statusMessage ?? '', headers, this.url.href, payload);
    this.resolve(response as unknown as Response);
  }

  private readonly fail = (err: Error): void => {
    this.signal?.removeEventListener('abort', this.onAbort);
    this.claim?.release();
    this.reject(err);
  };

  private readonly onAbort = (): void => {
    if (this.claim?.waiting) noteAbortedWhileWaiting(this.signal!);
    this.claim?.release();
    const err = abortError(this.signal!);
    this.req.destroy(err);
    this.reject(err);
  };
}

function fetchOnce(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
  maxBytes: number,
  budget: ReplyBudget,
  passThrough?: NodeFetchOptions['passThrough'],
): Promise<Response> {
  const body = init?.body;
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const plain = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array;
  if (
    !plain ||
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    (typeof input === 'object' && !(input instanceof URL))
  ) {
    return fetch(input, init);
  }
  const signal = init?.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    new NodeFetchCall(url, init, { maxBytes, budget, passThrough }, resolve, reject);
  });
}
