/**
 * Turning whatever an attempt threw into one of a few error types. The types are what a run
 * records and counts; the retry loop decides from them (and the status) whether to try again.
 */
import type { APIError } from 'openai';
import {
  MalformedResponseError,
  ResponseTooLargeError,
  StreamCutError,
  StreamIdleError,
  StreamReportedError,
} from '../errors/index.js';
import { outsideText } from '../io/outside-text.js';
import { parseRetryAfter, readRateLimits } from './retry-after.js';
import { isSdkStatusError, sdkErrorKind } from './sdk-errors.js';
import { failure, statusFailure, type Failure } from './status-failure.js';

export type { Failure } from './status-failure.js';

/** Codes of a connection that was made and then closed by the other end. */
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * Whether `err` (or an error it was caused by) says the server accepted the connection and
 * then closed it without an answer: it was reached, it just would not talk.
 */
export function closedByServer(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if ((typeof code === 'string' && CLOSED_CODES.has(code)) || e.message === 'socket hang up') return true;
  }
  return false;
}

/**
 * Classifies an error thrown by one attempt. `timedOut` is true when our own deadline
 * (request timeout or episode deadline) aborted the attempt: whatever the SDK or fetch threw
 * then, the cause is a timeout.
 */
export function classifyError(err: unknown, timedOut: boolean): Failure {
  const sdk = sdkErrorKind(err);
  if (timedOut || sdk === 'timeout') {
    return failure('timeout', 'the request timed out');
  }
  if (err instanceof MalformedResponseError)
    return failure('malformed', `malformed response: ${outsideText(err.message)}`, { fault: err.fault });
  // V8's JSON.parse message quotes a cut piece of the body, which may be most of an echoed key.
  if (err instanceof SyntaxError)
    return failure('malformed', 'malformed response: the body is not JSON', { fault: 'shape' });
  if (sdk === 'abort') return failure('timeout', 'the request was aborted');
  // A streamed reply's own failures (event-stream.ts): read after the SDK handed the stream over.
  if (err instanceof ResponseTooLargeError) return failure('response_too_large', err.message);
  if (err instanceof StreamIdleError) return failure('timeout', err.message);
  if (err instanceof StreamCutError) return failure('network', err.message, { emptyStream: err.chunks === 0 });
  if (err instanceof StreamReportedError) return failure('provider', outsideText(err.message));
  if (sdk === 'connection') {
    const cause = (err as { cause?: unknown }).cause;
    // Its own type, never retried: the same endpoint would send the same flood again.
    if (cause instanceof ResponseTooLargeError) return failure('response_too_large', cause.message);
    const detail =
      cause instanceof Error
        ? (((cause as { cause?: unknown }).cause as Error | undefined)?.message ?? cause.message)
        : '';
    return failure('network', `connection failed${detail ? `: ${outsideText(detail)}` : ''}`);
  }
  if (isSdkStatusError(err)) return sdkStatusFailure(err);
  if (err instanceof Error && err.name === 'AbortError') return failure('timeout', 'the request timed out');
  // fetch's body reader fails with a TypeError when the connection drops mid-body.
  if (err instanceof TypeError) return failure('network', `connection failed: ${outsideText(err.message)}`);
  return failure('provider', outsideText(err instanceof Error ? err.message : err));
}

function sdkStatusFailure(err: APIError & { status: number }): Failure {
  // The budget headers are read once: for the wait they imply and, on a 429, for the pace.
  const limits = readRateLimits(err.headers ?? null);
  const f = statusFailure({
    status: err.status,
    error: err.error,
    fallback: err.message,
    retryAfterMs: parseRetryAfter(err.headers ?? null, Date.now(), limits),
    location: err.headers?.get('location') ?? null,
  });
  if (f.type === 'rate_limit') f.rateLimits = limits;
  return f;
}
