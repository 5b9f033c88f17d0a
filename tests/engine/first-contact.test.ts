/**
 * The first-contact rule on its own: which first rollouts stop a run (the same refusal, or
 * the same kind of unusable reply, on each of the first three) and which never do (random
 * failures, mixed kinds, anything after a success).
 */
import { describe, expect, it } from 'vitest';
import type { Failure } from '../../src/endpoint/classify.js';
import type { ReplyFault } from '../../src/endpoint/completion.js';
import { FirstContact } from '../../src/engine/first-contact.js';

const base: Failure = { type: 'malformed', message: 'x', status: null, retryAfterMs: null, fatal: false };
const reply = (fault: ReplyFault, message = `malformed response: ${fault}`): Failure => ({ ...base, fault, message });
const CUT = reply('cut_empty', 'malformed response: empty content (finish_reason "length": …; raise --max-tokens …)');
const TOO_LARGE: Failure = { ...base, type: 'response_too_large', message: 'the response body passed the 1 MiB cap' };
const SERVER_ERROR: Failure = { ...base, type: 'provider', status: 500, message: 'HTTP 500: overloaded' };
const TIMEOUT: Failure = { ...base, type: 'timeout', message: 'no reply within the request timeout of 60 s' };
const GARBLED = reply('shape', 'malformed response: the body is not a JSON object');

/** Feeds the rollouts' outcomes in order; the first stop, if any. */
function feed(outcomes: Array<Failure | null>): Failure | null {
  const fc = new FirstContact('http://127.0.0.1:1/v1');
  for (const f of outcomes) {
    const stop = fc.rollout(f);
    if (stop) return stop;
  }
  return null;
}

describe('FirstContact: unusable replies', () => {
  it.each([
    ['an empty reply cut by the token limit', CUT, /raise --max-tokens/],
    ['reasoning with no content', reply('reasoning_only'), /reasoning_only/],
    ['an empty reply', reply('empty'), /chat template/],
    ['a reply over --max-response-mb', TOO_LARGE, /raise --max-response-mb/],
  ])('three of %s stop the run, with the message and what to change', (_name, f, advice) => {
    const stop = feed([f, f, f]);
    expect(stop?.fatal).toBe(true);
    expect(stop?.message).toMatch(/^http:\/\/127\.0\.0\.1:1\/v1 sent no usable reply: /);
    expect(stop?.message).toContain(f.message);
    expect(stop?.message).toMatch(/the first 3 rollouts all ended this way/);
    expect(stop?.message).toMatch(advice);
    // Two are not enough.
    expect(feed([f, f])).toBeNull();
  });

  it.each([
    ['three 500s', [SERVER_ERROR, SERVER_ERROR, SERVER_ERROR]],
    ['three timeouts', [TIMEOUT, TIMEOUT, TIMEOUT]],
    ['three garbled bodies', [GARBLED, GARBLED, GARBLED]],
    ['one cut reply among random failures', [CUT, SERVER_ERROR, TIMEOUT, CUT, CUT]],
    ['kinds that differ', [CUT, reply('empty'), CUT, CUT]],
    ['a success first', [null, CUT, CUT, CUT]],
    ['a success among them', [CUT, null, CUT, CUT]],
    ['model refusals', [reply('refused'), reply('refused'), reply('refused')]],
  ])('%s never stop the run', (_name, outcomes) => {
    expect(feed(outcomes as Array<Failure | null>)).toBeNull();
  });

  it('a refusal and an unusable reply are not the same answer', () => {
    const refusal: Failure = { ...base, type: 'provider', status: 400, message: 'HTTP 400: bad' };
    expect(feed([refusal, CUT, CUT])).toBeNull();
    expect(feed([refusal, refusal, refusal])?.message).toMatch(/refused every request/);
  });
});
