/**
 * Fail fast on first contact with an endpoint. Until one request of the run has succeeded,
 * four patterns mean that no request will: the first attempts all fail to connect (refused,
 * unknown host, TLS failure); the first rollouts all end with the same refusal of the
 * request itself (a 400, 404 or 422 with one message, such as a parameter the model does
 * not take); or the first rollouts all get the same kind of unusable reply, one that the
 * settings cause rather than chance (content left empty because the token limit ran out,
 * reasoning with no content, a body over --max-response-mb); or the first rollouts all end
 * because the server asked for a wait longer than the episode has left (a budget that will
 * not come back in time). Any of them stops the run with
 * one message instead of spending every rollout on it. Random failures (a 5xx, a timeout,
 * a garbled body) never do, and once anything has succeeded this never stops a run:
 * failures after that are data.
 */
import type { Failure } from '../endpoint/classify.js';

/** Finished attempts that must all fail to connect before the run stops. */
const CONNECT_ATTEMPTS = 3;
/** Finished rollouts that must all end with one identical refusal, or one kind of unusable reply, before the run stops. */
const REFUSED_ROLLOUTS = 3;

/** Words in a connection error that mean the endpoint cannot be reached at all (not a reset under load). */
const UNREACHABLE = [
  'econnrefused',
  'enotfound',
  'eai_again',
  'ehostunreach',
  'enetunreach',
  'certificate',
  'ssl',
  'tls',
  'cert_',
];

/** True for a failure to reach the endpoint at all. */
export function isUnreachable(f: Failure): boolean {
  if (f.type !== 'network') return false;
  const text = f.message.toLowerCase();
  return UNREACHABLE.some((w) => text.includes(w));
}

/** True for the endpoint refusing the request itself: a 4xx other than 401, 403, 408 and 429. */
function isRefusal(f: Failure): boolean {
  return f.type === 'provider' && f.status !== null && f.status >= 400 && f.status < 500;
}

/**
 * A reply-level failure that the settings cause, as a key (with what to change, where its
 * message does not say so already): the same one on every first rollout means every later
 * rollout will get it too. Null for failures that can happen by chance (a body cut in
 * transit, no choices, a 5xx, a timeout) and for a refusal by the model, which depends on
 * the task.
 */
function systematic(f: Failure): { key: string; advice: string } | null {
  if (f.type === 'response_too_large')
    return {
      key: 'too_large',
      advice: 'raise --max-response-mb if replies this large are expected, or check what the endpoint sends',
    };
  // llama-cpp-python answers a prompt longer than its context with a stream that closes empty.
  if (f.emptyStream)
    return {
      key: 'empty_stream',
      advice:
        'the server closed each stream before its first piece: run bas check without --stream to see its error (a prompt longer than the context does this on llama-cpp-python)',
    };
  if (f.type !== 'malformed') return null;
  switch (f.fault) {
    // The message of these two already says what to change (endpoint/completion.ts).
    case 'cut_empty':
    case 'reasoning_only':
      return { key: f.fault, advice: '' };
    case 'empty':
      return { key: 'empty', advice: 'check the model and its chat template with bas check' };
    default:
      return null;
  }
}

/** Watches the first attempts and rollouts of a run; says when to stop. */
export class FirstContact {
  private succeeded = false;
  private attempts = 0;
  private unreachable = 0;
  private rollouts = 0;
  /** What the first rollouts ended with, as a key: '' once two differed. */
  private first: string | null = null;
  private same = 0;

  /** @param endpoint the base URL, named in the message. */
  constructor(private readonly endpoint: string) {}

  /**
   * True once this rule can no longer stop the run: a request got a reply, or the first
   * attempts and rollouts already differ from every pattern it stops on. Until then the
   * runner sends one rollout at a time (slow start).
   */
  get settled(): boolean {
    if (this.succeeded) return true;
    const attemptsRule = this.unreachable === this.attempts && this.attempts < CONNECT_ATTEMPTS;
    const rolloutsRule = this.first !== '' && this.rollouts < REFUSED_ROLLOUTS;
    return !attemptsRule && !rolloutsRule;
  }

  /** Learns from one finished attempt (null: it got a reply); returns the failure that stops the run, if this is one. */
  attempt(f: Failure | null): Failure | null {
    if (this.succeeded) return null;
    if (f === null) {
      this.succeeded = true;
      return null;
    }
    this.attempts++;
    if (isUnreachable(f)) this.unreachable++;
    if (this.unreachable === this.attempts && this.attempts === CONNECT_ATTEMPTS) {
      return {
        ...f,
        fatal: true,
        message: `cannot reach ${this.endpoint}: ${f.message} (the first ${CONNECT_ATTEMPTS} attempts all failed to connect)`,
      };
    }
    return null;
  }

  /** Learns from one finished rollout's failure (null: it got a reply); returns the failure that stops the run, if this is one. */
  rollout(f: Failure | null): Failure | null {
    if (this.succeeded || this.rollouts >= REFUSED_ROLLOUTS) return null;
    this.rollouts++;
    if (f === null) {
      this.succeeded = true;
      return null;
    }
    const cause = systematic(f);
    // A prompt past the context is refused in words that name each prompt's own length; at one
    // --num-transactions the ledgers differ little in length, so three such refusals mean all.
    const key = f.contextOverflow
      ? 'refusal: past the context'
      : isRefusal(f)
        ? `refusal ${f.status} ${f.message}`
        : f.pastDeadline
          ? 'wait past the deadline'
          : cause
            ? `reply ${cause.key}`
            : null;
    // A random failure breaks the run of identical ones for good: the first rollouts were not all alike.
    if (key === null || (this.first !== null && this.first !== key)) {
      this.first = '';
      return null;
    }
    this.first = key;
    if (++this.same < REFUSED_ROLLOUTS) return null;
    if (f.pastDeadline) {
      return {
        ...f,
        fatal: true,
        message: `${this.endpoint} asks for longer waits than an episode allows: ${f.message} (the first ${REFUSED_ROLLOUTS} rollouts all ended so; raise --timeout or come back later)`,
      };
    }
    if (cause) {
      return {
        ...f,
        fatal: true,
        message: `${this.endpoint} sent no usable reply: ${f.message} (the first ${REFUSED_ROLLOUTS} rollouts all ended this way${cause.advice ? `; ${cause.advice}` : ''})`,
      };
    }
    return {
      ...f,
      fatal: true,
      message: `${this.endpoint} refused every request: ${f.message} (the first ${REFUSED_ROLLOUTS} rollouts all got this answer)`,
    };
  }
}
