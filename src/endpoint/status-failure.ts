/**
 * What an HTTP status and an error body mean for a rollout: the one reading shared by the live
 * path (classify.ts, from the SDK's error) and by batch output files (batch-file.ts), so that a
 * 404 `model_not_found` is the same failure whichever way the reply came. No SDK here, so
 * reading a batch file loads none.
 */
import type { ReplyFault } from '../errors/index.js';
import { outsideText } from '../io/outside-text.js';
import { urlWithoutCredentials } from '../io/secrets.js';
import type { RateLimits } from './retry-after.js';

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
  /** A 429's `x-ratelimit-*` budgets, when it named any: what the pace learns a rate from. */
  rateLimits?: RateLimits | null;
  /** Set when a stream closed before its first piece (first-contact.ts counts these). */
  emptyStream?: boolean;
  /** Set when the endpoint said the prompt is longer than the model's context (first-contact.ts). */
  contextOverflow?: boolean;
}

/** A Failure with the fields not given left empty. */
export function failure(type: ErrorType, message: string, extra: Partial<Failure> = {}): Failure {
  return { type, message, status: null, retryAfterMs: null, fatal: false, ...extra };
}

/** What came back with an HTTP error status. */
export interface StatusReply {
  status: number;
  /** The body's `error` object (OpenAI's shape), or whatever the body held. */
  error: unknown;
  /** Text to show when the body has no message (the raw body, or the SDK's summary of it). */
  fallback: string;
  /** The wait the reply's headers asked for, in ms, when known. */
  retryAfterMs: number | null;
  /** The `Location` header of a redirect. */
  location?: string | null;
}

/** The provider's words for this reply, made safe (outsideText): its message, else the fallback. */
function saidBy(reply: StatusReply): string {
  const body = reply.error as { message?: unknown; param?: unknown } | null | undefined;
  const message = typeof body?.message === 'string' && body.message.trim() !== '' ? body.message : null;
  // The SDK's summary starts with the status, which the failure's own words already name.
  let text = message ?? reply.fallback.replace(new RegExp(`^${reply.status} `), '');
  if (message === null && /^status code \(no body\)$/.test(text)) text = 'no message';
  // OpenAI's 400s name the refused request field in `param`: the one thing to change.
  const param =
    typeof body?.param === 'string' && body.param !== '' ? ` (parameter ${outsideText(body.param, 80)})` : '';
  return (outsideText(text) || 'no message') + param;
}

/** The error code of the body (`model_not_found`), or ''. */
function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : '';
}

/** The error type of the body (`insufficient_quota`), or ''. */
function typeOf(error: unknown): string {
  const type = (error as { type?: unknown } | null | undefined)?.type;
  return typeof type === 'string' ? type : '';
}

/**
 * The failure an HTTP error status means: 401 and 403 refuse the key, a 404 naming the model
 * does not know it, and a 402 or `insufficient_quota` is a spent quota (all fatal: no request
 * of the run can succeed), 429 is a rate limit,
 * 408 a timeout, a 3xx a redirect bas does not follow, and the rest the provider's word
 * against the request (5xx retried, other 4xx not).
 */
export function statusFailure(reply: StatusReply): Failure {
  const { status } = reply;
  const said = saidBy(reply);
  if (status === 401 || status === 403) {
    return failure('auth', `the endpoint refused the API key (HTTP ${status}): ${said}`, { status, fatal: true });
  }
  if (status === 404 && (codeOf(reply.error) === 'model_not_found' || /model/i.test(said))) {
    return failure('auth', `the endpoint does not know this model (HTTP 404): ${said}`, { status, fatal: true });
  }
  // A spent quota or credit balance is not a rate limit: no wait clears it, so the run stops.
  if (status === 402 || codeOf(reply.error) === 'insufficient_quota' || typeOf(reply.error) === 'insufficient_quota') {
    return failure('provider', `the provider refused for lack of quota or credit (HTTP ${status}): ${said}`, {
      status,
      fatal: true,
    });
  }
  if (status === 429) {
    return failure('rate_limit', `rate limited (HTTP 429): ${said}`, { status, retryAfterMs: reply.retryAfterMs });
  }
  if (status === 408) return failure('timeout', `the server timed out the request (HTTP 408): ${said}`, { status });
  if (status >= 300 && status < 400) {
    const to = reply.location ? ` to ${outsideText(urlWithoutCredentials(reply.location), 200)}` : '';
    return failure(
      'provider',
      `the endpoint redirected the request${to} (HTTP ${status}); bas does not follow redirects: give the final URL as --base-url`,
      { status },
    );
  }
  // OpenAI's code, and the words of llama.cpp, vLLM and others for a prompt past the window.
  if (codeOf(reply.error) === 'context_length_exceeded' || /context (length|window|size)/i.test(said))
    return failure(
      'provider',
      `HTTP ${status}: ${said}; the prompt does not fit the model's context window: use fewer --num-transactions, or a server with a larger context`,
      { status, contextOverflow: true },
    );
  return failure('provider', `HTTP ${status}: ${said}`, {
    status,
    retryAfterMs: status >= 500 ? reply.retryAfterMs : null,
  });
}
