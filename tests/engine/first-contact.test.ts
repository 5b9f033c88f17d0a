/**
 * The first-contact rule on its own: which first rollouts stop a run (the same refusal, or
 * the same kind of unusable reply, on each of the first three) and which never do (random
 * failures, mixed kinds, anything after a success).
 */
import { describe, expect, it } from 'vitest';
import type { Failure } from '../../src/endpoint/classify.js';
import type { ReplyFault } from '../../src/endpoint/completion.js';
import { statusFailure } from '../../src/endpoint/status-failure.js';
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

/**
 * Recorded from llama-cpp-python 0.3.36 serving Gemma 3 270M with an 8,192-token context: the
 * 400 it sends for a ledger of 400 rows. Each prompt has its own length, so the words differ
 * in their numbers from one task to the next.
 */
function llamaCppOverflow(messages: number): Failure {
  return statusFailure({
    status: 400,
    error: {
      message: `This model's maximum context length is 8192 tokens. However, you requested ${messages + 16} tokens (${messages} in the messages, 16 in the completion). Please reduce the length of the messages or completion.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
    fallback: '',
    retryAfterMs: null,
  });
}

describe('FirstContact: what a real llama.cpp server sends', () => {
  it('three prompts past the context window stop the run, though each names its own length', () => {
    const stop = feed([llamaCppOverflow(22586), llamaCppOverflow(22303), llamaCppOverflow(22410)]);
    expect(stop?.fatal).toBe(true);
    expect(stop?.message).toMatch(/refused every request: HTTP 400: This model's maximum context length is 8192/);
    expect(stop?.message).toMatch(/does not fit the model's context window: use fewer --num-transactions/);
  });

  it('streamed, the same prompts get a 200 whose stream closes empty: three of those stop the run too', () => {
    const empty: Failure = {
      ...base,
      type: 'network',
      message: 'the stream ended before the reply finished (0 chunks, no [DONE])',
      emptyStream: true,
    };
    const stop = feed([empty, empty, empty]);
    expect(stop?.message).toMatch(/sent no usable reply: .*run bas check without --stream/);
    // A stream cut after its first piece is a network failure like any other.
    const cut: Failure = { ...empty, message: 'the stream ended before the reply finished (4 chunks, no [DONE])' };
    delete cut.emptyStream;
    expect(feed([cut, cut, cut])).toBeNull();
  });
});
