/**
 * The HTTP plumbing both servers share: how much a client may make them hold (connections, one
 * body, and all unfinished bodies together), reading a body within those bounds, listening,
 * and running until SIGINT or SIGTERM. A client that would pass a bound gets a status and a
 * JSON error at once (413 for its own body, 503 with Retry-After for a full server), never a
 * connection held open while the server decides.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ConfigError } from '../errors/index.js';
import * as std from '../io/std.js';
import { BodyBuffer } from './body-buffer.js';

/** What one server lets its clients make it hold. */
export interface ServiceLimits {
  /** Largest body of one request, in bytes (413 past it). */
  maxBodyBytes: number;
  /** Bytes all bodies of requests not yet answered may hold together (503 past it). */
  bodyBudgetBytes: number;
  /** Connections open at once; a request on one past it is answered 503 and the connection closed. */
  maxConnections: number;
  /** The flags that set the three, named in the refusals. */
  flags: { maxBody: string; bodyBudget: string; maxConnections: string };
}

/** What one request holds of the body budget: the body's declared length, or what has come. */
interface Share {
  bytes: number;
  given: boolean;
}

/** The error body a server answers with: OpenAI's shape for `bas serve`, a plain one for the reward server. */
export type ErrorBody = (message: string, status: number) => unknown;

/** Sends a JSON answer, unless one was sent already or the client has gone. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Whether the request carries `Authorization: Bearer <token>` (always, without a token); compared in constant time. */
export function authorized(req: IncomingMessage, token: Buffer | null): boolean {
  if (token === null) return true;
  const given = Buffer.from(req.headers.authorization ?? '');
  const want = Buffer.concat([Buffer.from('Bearer '), token]);
  return given.length === want.length && timingSafeEqual(given, want);
}

/** How long a connection past the limit may stay silent before it is closed. */
export const OVER_LIMIT_IDLE_MS = 2000;

/**
 * How long a client may take to send a request's headers. Node allows a minute and checks
 * every 30 s, so a client trickling a byte now and then held a connection for 90 s.
 */
export const HEADERS_TIMEOUT_MS = 10_000;

/** What every server of bas is made with (node:http `createServer`): headers bounded in time, checked each second. */
export const SERVER_OPTIONS = { headersTimeout: HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 } as const;

/**
 * A body that sends nothing for this long is answered 408 and dropped, and its share of the
 * budget given back: an idle client declaring a large body held the budget for minutes.
 */
export const BODY_IDLE_MS = 10_000;

/**
 * When a connection takes a place under the limit: when it opens (`connection`, the default),
 * or only once a request on it has passed the token check (`request`, for a server whose every
 * answer but a cheap refusal needs the token): then connections still sending their headers,
 * or refused for their token, take no place, and past the limit the oldest of them is closed
 * to make room for a new one.
 */
export type CountFrom = 'connection' | 'request';

const MIB = 1024 * 1024;
const mib = (bytes: number): string => `${Math.round((bytes / MIB) * 1000) / 1000} MiB`;

/**
 * Counts a server's connections and the bytes its unanswered requests' bodies hold. A body's
 * bytes are counted from its first byte (or its whole declared length, up front) until its
 * answer is sent or its client leaves, so a client that sends slowly, or never finishes,
 * holds its share of one budget rather than memory of its own.
 */
export class RequestGate {
  private connections = 0;
  private held = 0;
  private readonly over = new WeakSet<Socket>();
  /** With `request` counting: connections admitted (holding a place), and those not yet, oldest first. */
  private admitted = 0;
  private readonly placed = new WeakSet<Socket>();
  private readonly waiting = new Set<Socket>();

  constructor(
    private readonly limits: ServiceLimits,
    private readonly errorBody: ErrorBody,
    private readonly countFrom: CountFrom = 'connection',
  ) {}

  /**
   * Counts the server's connections from now on. One past the limit is answered 503 when its
   * request comes; one that sends nothing is closed after OVER_LIMIT_IDLE_MS, so a silent
   * client cannot hold a place past the limit until Node's own header timeout. With `request`
   * counting, connections not yet admitted are kept to the limit apart, the oldest closed first.
   */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.connections++;
      socket.once('close', () => this.connections--);
      if (this.countFrom === 'request') return this.wait(socket);
      if (this.connections <= this.limits.maxConnections) return;
      this.over.add(socket);
      socket.setTimeout(OVER_LIMIT_IDLE_MS, () => socket.destroy());
    });
  }

  /** A connection not yet admitted: past the limit of such, the oldest of them makes room. */
  private wait(socket: Socket): void {
    this.waiting.add(socket);
    socket.once('close', () => this.waiting.delete(socket));
    if (this.waiting.size <= this.limits.maxConnections) return;
    const oldest = this.waiting.values().next().value!;
    this.waiting.delete(oldest);
    oldest.destroy();
  }

  /** Bytes held now by unanswered requests' bodies, and connections open (for /health and tests). */
  load(): { bodyBytes: number; connections: number } {
    return { bodyBytes: this.held, connections: this.connections };
  }

  /**
   * Refuses a request that arrived on a connection past the limit (a 503, then the connection
   * closes, nothing of its body read); true when the request may go on.
   */
  admit(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.countFrom === 'request') return this.place(req, res);
    if (!this.over.has(req.socket)) return true;
    this.refuseFull(req, res);
    return false;
  }

  /** The 503 of a server at its connection limit. */
  private refuseFull(req: IncomingMessage, res: ServerResponse): void {
    this.refuse(
      req,
      res,
      503,
      `the server has ${this.limits.maxConnections} connections open, its limit (${this.limits.flags.maxConnections}): try again shortly`,
    );
  }

  /** `admit` with `request` counting: the connection takes a place now, when one is free (called after the token check). */
  private place(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    if (this.placed.has(socket)) return true;
    if (this.admitted >= this.limits.maxConnections) {
      this.refuseFull(req, res);
      return false;
    }
    this.waiting.delete(socket);
    this.placed.add(socket);
    this.admitted++;
    socket.once('close', () => this.admitted--);
    return true;
  }

  /**
   * Reads the whole body within the limits; null when it was refused (a 413 or 503 has been
   * sent) or when the client left before sending all of it (there is no one to answer).
   */
  readBody(req: IncomingMessage, res: ServerResponse): Promise<string | null> {
    const max = this.limits.maxBodyBytes;
    const declared = Number(req.headers['content-length']);
    const known = Number.isSafeInteger(declared) && declared >= 0;
    if (known && declared > max) return this.refused(req, res, 413);
    // A declared length is reserved whole before any byte is read: a client cannot hold the
    // budget's room for later and then fill it.
    const share: Share = { bytes: 0, given: false };
    if (!this.grow(share, known ? declared : 0)) return this.refused(req, res, 503);
    res.once('close', () => this.giveBack(share));
    return new Promise((resolve) => {
      const body = new BodyBuffer(known ? declared : max);
      const finish = (text: string | null | Promise<null>): void => {
        clearTimeout(idle);
        resolve(text);
      };
      const refuse = (status: 413 | 503): void => {
        body.drop();
        finish(this.refused(req, res, status));
      };
      // A body that stops coming is answered and dropped: an idle client cannot sit on its share.
      const idle = setTimeout(() => {
        body.drop();
        this.giveBack(share);
        this.refuse(req, res, 408, `no part of the request body came for ${BODY_IDLE_MS / 1000} s`);
        finish(null);
      }, BODY_IDLE_MS).unref();
      req.on('data', (c: Buffer) => {
        if (body.dropped) return;
        idle.refresh();
        const size = body.size + c.length;
        if (size > max) return refuse(413);
        if (size > share.bytes && !this.grow(share, size - share.bytes)) return refuse(503);
        body.add(c);
      });
      req.on('end', () => {
        if (!body.dropped) finish(body.text());
      });
      // The client left mid-body: what was held goes now, not when the answer would have.
      const gone = (): void => {
        body.drop();
        this.giveBack(share);
        finish(null);
      };
      req.on('error', gone);
      req.on('close', () => {
        if (!req.complete) gone();
      });
    });
  }

  /** Adds `bytes` to a request's share of the budget; false, adding nothing, when there is no room. */
  private grow(share: Share, bytes: number): boolean {
    if (this.held + bytes > this.limits.bodyBudgetBytes) return false;
    this.held += bytes;
    share.bytes += bytes;
    return true;
  }

  /** Gives a request's share back to the budget, once. */
  private giveBack(share: Share): void {
    if (share.given) return;
    share.given = true;
    this.held -= share.bytes;
  }

  private refused(req: IncomingMessage, res: ServerResponse, status: 413 | 503): Promise<null> {
    if (status === 413) this.tooLarge(req, res);
    else this.full(req, res);
    return Promise.resolve(null);
  }

  private tooLarge(req: IncomingMessage, res: ServerResponse): void {
    this.refuse(
      req,
      res,
      413,
      `the request body is larger than the ${this.limits.maxBodyBytes} bytes (${mib(this.limits.maxBodyBytes)}, ${this.limits.flags.maxBody}) this server accepts`,
    );
  }

  private full(req: IncomingMessage, res: ServerResponse): void {
    this.refuse(
      req,
      res,
      503,
      `the server already holds ${mib(this.held)} of request bodies, its limit being ${mib(this.limits.bodyBudgetBytes)} (${this.limits.flags.bodyBudget}): try again shortly`,
    );
  }

  /** Answers with the status and closes the connection once the answer is out, reading nothing more. */
  private refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
    sendJson(res, status, this.errorBody(message, status), {
      connection: 'close',
      ...(status === 503 ? { 'retry-after': '1' } : {}),
    });
    res.once('finish', () => req.destroy());
  }
}

/** Listens on `port` and `host`; resolves to the port had (the one picked, for port 0) and the host as a URL writes it. */
export function listen(server: Server, port: number, host: string): Promise<{ port: number; host: string }> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({ port: (server.address() as AddressInfo).port, host: host.includes(':') ? `[${host}]` : host });
    });
  });
}

/**
 * The error a command shows when its server could not start: a failure of the listening
 * socket is about the flags (a ConfigError naming the address); anything else is returned as
 * it was, to say itself.
 */
export function listenError(err: unknown, host: string, port: number): unknown {
  if ((err as { syscall?: string } | null)?.syscall !== 'listen') return err;
  const code = (err as { code?: string }).code;
  const why = code === 'EADDRINUSE' ? ': the port is in use (try --port 0)' : code ? ` (${code})` : '';
  return new ConfigError(`cannot listen on ${host}:${port}${why}`);
}

/**
 * Waits for SIGINT or SIGTERM, tells `onSignal` which, then closes the server. Until it has
 * closed, a repeated signal is the same stop (src/io/std.ts): the close runs on.
 */
export async function runUntilStopped(
  server: { close(): Promise<void> },
  onSignal: (signal: std.StopSignal) => void = () => undefined,
): Promise<void> {
  let off = (): void => {};
  const signal = await new Promise<std.StopSignal>((resolve) => (off = std.onStop(resolve)));
  onSignal(signal);
  try {
    await server.close();
  } finally {
    off();
  }
}
