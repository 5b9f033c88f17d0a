/**
 * Reading a streamed chat completion (`stream: true`): server-sent events, one
 * `chat.completion.chunk` per `data:` line, `data: [DONE]` last; with
 * `stream_options.include_usage` the chunk before `[DONE]` has no choices and carries the
 * usage of the whole request. The reply is assembled here and then checked exactly as a
 * whole completion is (completion.ts), so a streamed reply is graded like any other.
 *
 * The same bounds hold as for a buffered reply, and one more:
 * - the bytes of the stream are capped (`--max-response-mb`): past the cap the connection is
 *   closed and the attempt fails as `response_too_large`;
 * - the episode and request timeouts abort the attempt through its signal, stream or not;
 * - once the first token has come, a gap longer than the idle timeout between two pieces of
 *   data (events or keep-alive comments) fails the attempt as a `timeout`: a stalled stream
 *   is noticed in seconds, not at the end of the request timeout. The wait for the first
 *   token is not an idle gap: a reasoning model may think for minutes before it, sending
 *   nothing, and that wait is the request timeout's to bound;
 * - a stream that stops before it finished (no `[DONE]`, and no finish reason before a clean
 *   end; or a `[DONE]` before any finish reason, as llama-cpp-python sends when another
 *   request interrupts it) fails as `network` (retried): a cut reply is never graded as if it
 *   were whole.
 * Parsing is linear in the bytes received: lines are found by scanning each chunk once.
 *
 * Why not the SDK's own stream reader: it prints an event that is not JSON to stderr as it
 * came (unredacted provider text), reads on after `[DONE]` until the server closes, and has
 * no byte cap, no share of the reply budget and no idle bound.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type OpenAI from 'openai';
import {
  MalformedResponseError,
  ResponseTooLargeError,
  StreamCutError,
  StreamIdleError,
  StreamReportedError,
} from '../errors/index.js';
import { readCompletion, type Completion } from './completion.js';
import { UnreadResponse } from './http-fetch.js';
import type { HeaderLike } from './retry-after.js';
import { noteAbortedWhileWaiting, replyBudget } from './reply-budget.js';

interface EventStreamOptions {
  /** Largest number of bytes read from the stream. */
  maxBytes: number;
  /** Longest gap between two pieces of data once the first token has come, in ms. */
  idleMs: number;
  /** Aborts the read (the attempt's request timeout, the episode deadline, a stop). */
  signal: AbortSignal;
  /** When the attempt started (performance.now()), for the time to first token. */
  startedAt: number;
}

/** What a stream assembled into: the body of a whole completion, and when its first token came. */
interface AssembledStream {
  body: unknown;
  /** Ms from the start of the attempt to the first content or reasoning token. */
  ttftMs: number | null;
}

/** The assembled reply of choice 0, piece by piece. */
class Assembly {
  readonly content: string[] = [];
  readonly reasoning: string[] = [];
  readonly refusal: string[] = [];
  finish: string | null = null;
  usage: unknown = null;
  chunks = 0;
  firstToken: number | null = null;

  /** Takes one parsed `chat.completion.chunk`. */
  take(chunk: unknown, now: number): void {
    if (typeof chunk !== 'object' || chunk === null || Array.isArray(chunk))
      throw new MalformedResponseError('an event of the stream is not a JSON object');
    const c = chunk as { choices?: unknown; usage?: unknown; error?: unknown };
    if (c.error !== undefined && c.error !== null) {
      const e = c.error as { message?: unknown };
      const said = typeof e === 'object' && typeof e.message === 'string' ? e.message : JSON.stringify(c.error);
      throw new StreamReportedError(`the stream reported an error: ${said}`);
    }
    this.chunks++;
    if (c.usage && typeof c.usage === 'object') this.usage = c.usage;
    if (!Array.isArray(c.choices)) return;
    for (const choice of c.choices as unknown[]) {
      if (typeof choice !== 'object' || choice === null) continue;
      const ch = choice as { index?: unknown; delta?: Record<string, unknown> | null; finish_reason?: unknown };
      // One reply is asked for (n = 1); a server that sends others anyway is heard for the first only.
      if (ch.index !== undefined && ch.index !== 0) continue;
      if (typeof ch.finish_reason === 'string') this.finish = ch.finish_reason;
      const d = ch.delta;
      if (!d || typeof d !== 'object') continue;
      let token = false;
      if (typeof d.content === 'string' && d.content !== '') {
        this.content.push(d.content);
        token = true;
      }
      // Servers name the reasoning either way; whichever comes is kept, and is never graded.
      for (const key of ['reasoning_content', 'reasoning']) {
        const r = d[key];
        if (typeof r === 'string' && r !== '') {
          this.reasoning.push(r);
          token = true;
        }
      }
      if (typeof d.refusal === 'string' && d.refusal !== '') this.refusal.push(d.refusal);
      if (token && this.firstToken === null) this.firstToken = now;
    }
  }

  /** The reply as a whole completion body, for the one checker of replies. */
  body(): unknown {
    if (this.chunks === 0) throw new MalformedResponseError('the stream ended without a single chunk');
    return {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: this.content.join(''),
            ...(this.refusal.length ? { refusal: this.refusal.join('') } : {}),
            ...(this.reasoning.length ? { reasoning_content: this.reasoning.join('') } : {}),
          },
          finish_reason: this.finish,
        },
      ],
      usage: this.usage,
    };
  }
}

/** The end of an SSE line: CR LF, LF or CR alone, as the event-stream format allows all three. */
const LINE_END = /\r\n|\r|\n/g;

/** Splits text into SSE lines in one pass per chunk; a line split across chunks is joined once. */
class LineSplitter {
  private pending: string[] = [];
  /** The last chunk ended in CR: an LF that opens the next one is the rest of a CR LF. */
  private afterCR = false;

  /** Calls `line` for every complete line in `text` (without its CR LF, LF or CR). */
  push(text: string, line: (l: string) => boolean): boolean {
    let start = this.afterCR && text.charCodeAt(0) === 10 ? 1 : 0;
    this.afterCR = false;
    LINE_END.lastIndex = start;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      let l = text.slice(start, m.index);
      if (this.pending.length) {
        this.pending.push(l);
        l = this.pending.join('');
        this.pending = [];
      }
      start = LINE_END.lastIndex;
      if (start === text.length && m[0] === '\r') this.afterCR = true;
      if (!line(l)) return false;
    }
    if (start < text.length) this.pending.push(text.slice(start));
    return true;
  }
}

/**
 * One stream being read: its events assembled into a reply, its bytes counted against
 * `--max-response-mb` and the budget for replies in flight, its silences bounded.
 */
class EventStreamReader {
  private readonly reply = new Assembly();
  private readonly lines = new LineSplitter();
  private readonly decoder = new StringDecoder('utf8');
  private data: string[] = [];
  private received = 0;
  private done = false;
  private settled = false;
  private idle: NodeJS.Timeout | null = null;
  // The bytes of the stream count against the budget for replies in flight (reply-budget.ts).
  private readonly claim = replyBudget.claim();

  constructor(
    private readonly res: IncomingMessage,
    private readonly o: EventStreamOptions,
    private readonly resolve: (s: AssembledStream) => void,
    private readonly reject: (e: Error) => void,
  ) {}

  start(): void {
    if (this.o.signal.aborted) return this.onAbort();
    this.o.signal.addEventListener('abort', this.onAbort, { once: true });
    this.res.on('data', (c: Buffer) => this.onData(c));
    this.res.on('end', () => this.onEnd());
    this.res.on('error', () => undefined);
    this.res.on('close', () => {
      if (!this.settled)
        this.finish(
          new StreamCutError(
            `the connection closed in the middle of the stream (${this.reply.chunks} chunks, no [DONE])`,
            this.reply.chunks,
          ),
        );
    });
  }

  private finish(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    if (this.idle) clearTimeout(this.idle);
    this.claim.release();
    this.o.signal.removeEventListener('abort', this.onAbort);
    if (err) {
      this.res.destroy();
      return this.reject(err);
    }
    try {
      const first = this.reply.firstToken;
      this.resolve({ body: this.reply.body(), ttftMs: first === null ? null : first - this.o.startedAt });
    } catch (e) {
      this.reject(e as Error);
    }
    // The connection goes back to the pool once the response ends; one that does not end
    // right after [DONE] is closed rather than left holding a socket.
    const res = this.res;
    if (!res.complete) setImmediate(() => res.complete || res.destroy());
  }

  private readonly onAbort = (): void => {
    if (this.claim.waiting) noteAbortedWhileWaiting(this.o.signal);
    const reason = this.o.signal.reason as unknown;
    this.finish(reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError'));
  };

  /** (Re)starts the silence bound, once the first token came. */
  private arm(): void {
    if (this.idle) clearTimeout(this.idle);
    if (this.reply.firstToken === null || this.settled) return;
    this.idle = setTimeout(() => {
      this.finish(
        new StreamIdleError(
          `the stream went silent for ${this.o.idleMs / 1000} s after ${this.reply.chunks} chunks (--stream-idle-timeout)`,
        ),
      );
    }, this.o.idleMs);
  }

  /** One event's data lines, complete: a chunk of the reply, or [DONE]. False once the reply is whole. */
  private dispatch(): boolean {
    if (this.data.length === 0) return true;
    const text = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
    this.data = [];
    if (text.trim() === '[DONE]') {
      this.done = true;
      // llama-cpp-python ends a stream with [DONE] when another request comes in
      // (interrupt_requests): a reply that never said how it finished was cut, not whole.
      this.finish(
        this.reply.finish === null
          ? new StreamCutError(
              `the stream ended with [DONE] before the reply said how it finished (${this.reply.chunks} chunks, no finish_reason)`,
              this.reply.chunks,
            )
          : null,
      );
      return false;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(text);
    } catch {
      // The text itself is not quoted: it is the provider's, unbounded and unredacted.
      throw new MalformedResponseError(`an event of the stream is not JSON (${text.length} characters)`);
    }
    this.reply.take(chunk, performance.now());
    return true;
  }

  private readonly onLine = (line: string): boolean => {
    if (line === '') return this.dispatch();
    if (line.startsWith('data:')) this.data.push(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
    // Comments (": keep-alive") and other fields (event, id, retry) carry no reply.
    return true;
  };

  private onData(c: Buffer): void {
    this.received += c.length;
    if (this.settled) {
      // After [DONE] nothing more is read; a server that keeps sending loses the connection.
      if (this.received > this.o.maxBytes) this.res.destroy();
      return;
    }
    if (this.received > this.o.maxBytes) return this.finish(new ResponseTooLargeError(this.o.maxBytes));
    try {
      this.lines.push(this.decoder.write(c), this.onLine);
    } catch (err) {
      return this.finish(err as Error);
    }
    if (this.settled) return;
    if (this.claim.add(c.length)) return this.arm();
    // Waiting for memory is not the stream going silent: the idle timer waits too.
    if (this.idle) clearTimeout(this.idle);
    this.res.pause();
    this.claim.pauseUntil(() => {
      this.res.resume();
      this.arm();
    });
  }

  private onEnd(): void {
    if (this.settled) return;
    try {
      if (!this.lines.push(this.decoder.end() + '\n\n', this.onLine) || this.done) return;
      // No [DONE]: whole only if the reply said how it finished.
      if (this.reply.finish === null)
        return this.finish(
          new StreamCutError(
            `the stream ended before the reply finished (${this.reply.chunks} chunks, no [DONE])`,
            this.reply.chunks,
          ),
        );
      this.finish(null);
    } catch (err) {
      this.finish(err as Error);
    }
  }
}

/** Reads a stream of chat completion chunks to its end and assembles the reply. */
function readEventStream(res: IncomingMessage, o: EventStreamOptions): Promise<AssembledStream> {
  return new Promise<AssembledStream>((resolve, reject) => new EventStreamReader(res, o, resolve, reject).start());
}

/** True for a response to read as a stream: a 2xx of server-sent events. */
export function isEventStream(status: number, headers: IncomingHttpHeaders): boolean {
  return status >= 200 && status < 300 && /^\s*text\/event-stream/i.test(headers['content-type'] ?? '');
}

/** How a streamed request is bounded (`--max-response-mb`, `--stream-idle-timeout`). */
export interface StreamBounds {
  maxBytes: number;
  idleMs: number;
}

/** A streamed request's answer before it is checked: the body, its headers and how it came. */
interface StreamedBody {
  /** A whole chat completion: assembled from the events, or as sent by a server that ignored `stream`. */
  body: unknown;
  headers: HeaderLike;
  /** False when the server answered with a whole completion instead of events. */
  streamed: boolean;
  /** Ms from the start of the attempt to the first content or reasoning token; null without one. */
  ttftMs: number | null;
}

/**
 * One streamed request through the SDK, read to its end: it sends the request and turns a
 * refusal (4xx, 5xx) into its usual error; a stream of events is read and assembled here. A
 * server that answers with a whole completion instead (some ignore `stream`) is read as one.
 * The body is not yet checked: `completeStreamed` checks it as a rollout's, `bas check` grades it.
 * `answered` hears the status and headers as they come, before the body is read (which may
 * fail): a caller that needs them (`bas check`) has them even then.
 */
export async function requestStreamed(
  sdk: OpenAI,
  body: Record<string, unknown>,
  signal: AbortSignal,
  bounds: StreamBounds,
  answered?: (status: number, headers: HeaderLike) => void,
): Promise<StreamedBody> {
  const startedAt = performance.now();
  const response = (await sdk.chat.completions.create(streamParams(body), { signal }).asResponse()) as
    UnreadResponse | Response;
  answered?.(response.status, response.headers);
  if (response instanceof UnreadResponse) {
    const { body: assembled, ttftMs } = await readEventStream(response.source, {
      maxBytes: bounds.maxBytes,
      idleMs: bounds.idleMs,
      signal,
      startedAt,
    });
    return { body: assembled, headers: response.headers, streamed: true, ttftMs };
  }
  return { body: await response.json(), headers: response.headers, streamed: false, ttftMs: null };
}

/** The request fields that ask for a stream, with the usage of the whole request at its end. */
export function streamParams(body: Record<string, unknown>): OpenAI.ChatCompletionCreateParamsStreaming {
  return {
    ...body,
    stream: true,
    stream_options: { include_usage: true },
  } as unknown as OpenAI.ChatCompletionCreateParamsStreaming;
}

/**
 * One streamed attempt: the reply, checked as a whole completion is, with its time to first
 * token, and the headers it came with (the client reads their rate limits, as for any reply).
 */
export async function completeStreamed(
  sdk: OpenAI,
  body: Record<string, unknown>,
  signal: AbortSignal,
  bounds: StreamBounds,
): Promise<{ completion: Completion; headers: HeaderLike }> {
  const r = await requestStreamed(sdk, body, signal, bounds);
  const completion = readCompletion(r.body, body);
  if (r.streamed) completion.ttft_ms = r.ttftMs === null ? null : Math.round(r.ttftMs);
  return { completion, headers: r.headers };
}
