/**
 * Fail fast on first contact with an endpoint. Until one request of the run has succeeded,
 * three patterns mean that no request will: the first attempts all fail to connect (refused,
 * unknown host, TLS failure), or the first rollouts all end with the same refusal of the
 * request itself (a 400, 404 or 422 with one message, such as a parameter the model does
 * not take), or the first rollouts all end because the server asked for a wait longer than
 * the episode has left (a budget that will not come back in time). Any of them stops the run
 * with one message instead of spending every rollout on it.
 * Once anything has succeeded, this never stops a run: failures after that are data.
 */
import type { Failure } from '../endpoint/classify.js';

/** Finished attempts that must all fail to connect before the run stops. */
const CONNECT_ATTEMPTS = 3;
/** Finished rollouts that must all end with one identical refusal before the run stops. */
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
function isUnreachable(f: Failure): boolean {
  if (f.type !== 'network') return false;
  const text = f.message.toLowerCase();
  return UNREACHABLE.some((w) => text.includes(w));
}

/** True for the endpoint refusing the request itself: a 4xx other than 401, 403, 408 and 429. */
function isRefusal(f: Failure): boolean {
  return f.type === 'provider' && f.status !== null && f.status >= 400 && f.status < 500;
}

/** Watches the first attempts and rollouts of a run; says when to stop. */
export class FirstContact {
  private succeeded = false;
  private attempts = 0;
  private unreachable = 0;
  private rollouts = 0;
  private refusal: Failure | null = null;
  private sameRefusals = 0;
  /** First rollouts that failed because the server asked for a wait past the episode deadline. */
  private tooLong = 0;

  /** @param endpoint the base URL, named in the message. */
  constructor(private readonly endpoint: string) {}

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
    if (f.pastDeadline && ++this.tooLong === REFUSED_ROLLOUTS) {
      return {
        ...f,
        fatal: true,
        message: `${this.endpoint} asks for longer waits than an episode allows: ${f.message} (the first ${REFUSED_ROLLOUTS} rollouts all ended so; raise --timeout or come back later)`,
      };
    }
    if (!isRefusal(f)) return null;
    if (this.refusal === null) this.refusal = f;
    if (this.refusal.status === f.status && this.refusal.message === f.message) this.sameRefusals++;
    if (this.sameRefusals === REFUSED_ROLLOUTS) {
      return {
        ...f,
        fatal: true,
        message: `${this.endpoint} refused every request: ${f.message} (the first ${REFUSED_ROLLOUTS} rollouts all got this answer)`,
      };
    }
    return null;
  }
}
