/**
 * Turning whatever an attempt threw into one of a few error types. The types are what a run
 * records and counts; the retry loop decides from them (and the status) whether to try again.
 */
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { MalformedResponseError, type ReplyFault } from './completion.js';
import { ResponseTooLargeError } from './http-fetch.js';
import { StreamCutError, StreamIdleError, StreamReportedError } from './event-stream.js';
import { redact } from '../io/secrets.js';
import { parseRetryAfter } from './retry-after.js';

/** Why a rollout ended without a reply to score. */
export type ErrorType = 'timeout' | 'rate_limit' | 'provider' | 'network' | 'malformed' | 'auth' | 'response_too_large';

/** One failed attempt, classified. */
export interface Failure {
  type: ErrorType;
  message: string;
  /** HTTP status, when a response came back. */
  status: number | null;
  /** The server's requested wait (Retry-After), in ms. */
  retryAfterMs: number | null;
  /** True when no request of the run can succeed (bad key, unknown model): stop the run. */
  fatal: boolean;
  /** Set when the server asked for a wait that ends past the episode deadline (first-contact.ts counts these). */
  pastDeadline?: boolean;
  /** For a reply that came back but cannot be scored: what kind of unusable reply it was. */
  fault?: ReplyFault | null;
}

function failure(type: ErrorType, message: string, extra: Partial<Failure> = {}): Failure {
  return { type, message, status: null, retryAfterMs: null, fatal: false, ...extra };
}

/**
 * The server's own words, shortened: providers sometimes send whole HTML pages. The key is
 * cut out first, so that shortening cannot leave a piece of it behind.
 */
function brief(text: unknown, max = 300): string {
  const s = redact(String(text ?? ''))
    .replace(/\s+/g, ' ')
    .trim();
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/**
 * Classifies an error thrown by one attempt. `timedOut` is true when our own deadline
 * (request timeout or episode deadline) aborted the attempt: whatever the SDK or fetch threw
 * then, the cause is a timeout.
 */
export function classifyError(err: unknown, timedOut: boolean): Failure {
  if (timedOut || err instanceof APIConnectionTimeoutError) {
    return failure('timeout', 'the request timed out');
  }
  if (err instanceof MalformedResponseError || err instanceof SyntaxError) {
    const fault = err instanceof MalformedResponseError ? err.fault : 'shape';
    return failure('malformed', `malformed response: ${brief((err as Error).message)}`, { fault });
  }
  if (err instanceof APIUserAbortError) return failure('timeout', 'the request was aborted');
  // A streamed reply's own failures (event-stream.ts): read after the SDK handed the stream over.
  if (err instanceof ResponseTooLargeError) return failure('response_too_large', err.message);
  if (err instanceof StreamIdleError) return failure('timeout', err.message);
  if (err instanceof StreamCutError) return failure('network', err.message);
  if (err instanceof StreamReportedError) return failure('provider', brief(err.message));
  if (err instanceof APIConnectionError) {
    const cause = (err as { cause?: unknown }).cause;
    // Its own type, never retried: the same endpoint would send the same flood again.
    if (cause instanceof ResponseTooLargeError) return failure('response_too_large', cause.message);
    const detail =
      cause instanceof Error
        ? (((cause as { cause?: unknown }).cause as Error | undefined)?.message ?? cause.message)
        : '';
    return failure('network', `connection failed${detail ? `: ${brief(detail)}` : ''}`);
  }
  if (err instanceof APIError && typeof err.status === 'number') return statusFailure(err);
  if (err instanceof Error && err.name === 'AbortError') return failure('timeout', 'the request timed out');
  // fetch's body reader fails with a TypeError when the connection drops mid-body.
  if (err instanceof TypeError) return failure('network', `connection failed: ${brief(err.message)}`);
  return failure('provider', brief(err instanceof Error ? err.message : err));
}

function statusFailure(err: APIError): Failure {
  const status = err.status as number;
  const body = err.error as { message?: unknown; code?: unknown; param?: unknown; type?: unknown } | undefined;
  // OpenAI's 400s name the refused request field in `param`: the one thing to change.
  const param = typeof body?.param === 'string' && body.param !== '' ? ` (parameter ${brief(body.param, 80)})` : '';
  const said = brief(body?.message ?? err.message) + param;
  const code = typeof body?.code === 'string' ? body.code : (err.code ?? '');
  const headers = err.headers ?? null;
  if (status === 401 || status === 403) {
    return failure('auth', `the endpoint refused the API key (HTTP ${status}): ${said}`, { status, fatal: true });
  }
  if (status === 404 && (code === 'model_not_found' || /model/i.test(said))) {
    return failure('auth', `the endpoint does not know this model (HTTP 404): ${said}`, { status, fatal: true });
  }
  // A spent quota or credit balance is not a rate limit: no wait clears it, so the run stops.
  if (status === 402 || code === 'insufficient_quota' || body?.type === 'insufficient_quota') {
    return failure('provider', `the provider refused for lack of quota or credit (HTTP ${status}): ${said}`, {
      status,
      fatal: true,
    });
  }
  if (status === 429) {
    return failure('rate_limit', `rate limited (HTTP 429): ${said}`, {
      status,
      retryAfterMs: parseRetryAfter(headers),
    });
  }
  if (status === 408) return failure('timeout', `the server timed out the request (HTTP 408): ${said}`, { status });
  // 5xx (retried) and the other 4xx (not retried) are the provider's word against the request.
  return failure('provider', `HTTP ${status}: ${said}`, {
    status,
    retryAfterMs: status >= 500 ? parseRetryAfter(headers) : null,
  });
}
