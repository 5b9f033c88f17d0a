/**
 * Getting one reply for one prompt: through the official openai SDK for any OpenAI-compatible
 * chat endpoint, or in-process from a built-in policy. One attempt per call; retries belong
 * to the runner's loop (retry.ts), which is why the SDK's own are switched off.
 */
import type OpenAI from 'openai';
import { policyReplier, type PolicyName } from '../task/policies.js';
import type { ChatMessage } from '../task/types.js';
import { readCompletion, type Completion } from './completion.js';
import { makeSdk, type SdkOptions } from './sdk.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from './http-fetch.js';
import { replyBudget } from './reply-budget.js';
import { readRateLimits, type HeaderLike } from './retry-after.js';
import { completeStreamed, isEventStream, streamParams } from './event-stream.js';
import { ReplyCache } from './reply-cache.js';
import type { Sampling } from '../settings/setting-table.js';

/** Which request an attempt is: the rollout number belongs to what is asked (the response cache keys on it). */
interface AttemptContext {
  rollout: number;
  /** 1 for the first attempt of an episode. */
  attempt: number;
}

/** Anything that turns a prompt into reply text; `signal` aborts the attempt. */
export interface ModelClient {
  complete(messages: readonly ChatMessage[], signal: AbortSignal, context?: AttemptContext): Promise<Completion>;
  /**
   * Replies in-process without waiting on anything (a built-in policy): an attempt then gets
   * the run's stop signal and no timeout of its own.
   */
  readonly inProcess?: boolean;
  /**
   * The reply the response cache (`--cache`) holds for this request, or null: a rollout it
   * answers sends nothing, so it takes no request slot and no budget (src/engine/rollout.ts).
   * `complete` does not look in the cache: ask this first.
   */
  cached?(messages: readonly ChatMessage[], context: AttemptContext): Completion | null;
  /**
   * Settles once the client can send at once (the SDK is loaded; a failed load is the first
   * request's error, so this never rejects). A run waits for it before it starts, so loading
   * code is not counted as the run's time, nor left to delay its first request.
   */
  ready?(): Promise<void>;
}

/** A built-in policy as a model: no key, no network, same pipeline. */
export function builtinClient(policy: PolicyName): ModelClient {
  const reply = policyReplier(policy);
  return {
    inProcess: true,
    async complete(messages) {
      return { text: reply(messages), finish_reason: 'stop', usage: null };
    },
  };
}

/** OpenAI's own API refuses `max_tokens` on its reasoning models and wants the newer name. */
function isOpenAIProper(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** The request body (without messages) for these settings. */
export function requestFields(model: string, sampling: Sampling, baseURL: string): Record<string, unknown> {
  const body: Record<string, unknown> = { model };
  if (sampling.temperature !== null) body.temperature = sampling.temperature;
  if (sampling.max_tokens !== null) {
    // Most compatible servers (vLLM, Ollama, llama.cpp, OpenRouter) know `max_tokens`;
    // api.openai.com rejects it for reasoning models in favour of `max_completion_tokens`.
    body[isOpenAIProper(baseURL) ? 'max_completion_tokens' : 'max_tokens'] = sampling.max_tokens;
  }
  if (sampling.reasoning_effort !== null) body.reasoning_effort = sampling.reasoning_effort;
  Object.assign(body, sampling.extra);
  return body;
}

export interface HttpClientOptions extends SdkOptions {
  model: string;
  sampling: Sampling;
  /** Ask for the reply as a stream of events (`--stream`), with this idle timeout between them. */
  stream?: { idleTimeoutMs: number } | null;
  /** Replies already received are taken from here, and new ones kept (`--cache`). */
  cache?: ReplyCache | null;
}

/** One unstreamed attempt: the reply, checked, and the headers it came with. */
async function completeWhole(
  sdk: OpenAI,
  fields: Record<string, unknown>,
  messages: readonly ChatMessage[],
  signal: AbortSignal,
): Promise<{ completion: Completion; headers: HeaderLike }> {
  const body = { ...fields, messages: messages as ChatMessage[], stream: false };
  const params = body as OpenAI.ChatCompletionCreateParamsNonStreaming;
  const { data, response } = await sdk.chat.completions.create(params, { signal }).withResponse();
  return { completion: readCompletion(data as unknown, body), headers: response.headers };
}

/** One attempt through the SDK once it is loaded: the whole reply, or a stream read whole. */
function sdkAsk(
  sdkReady: Promise<OpenAI>,
  fields: Record<string, unknown>,
  stream: HttpClientOptions['stream'] | null,
  maxResponseBytes: number,
): (messages: readonly ChatMessage[], signal: AbortSignal) => Promise<Completion> {
  return async (messages, signal) => {
    const sdk = await sdkReady;
    const { completion, headers } = stream
      ? await completeStreamed(sdk, { ...fields, messages }, signal, {
          maxBytes: maxResponseBytes,
          idleMs: stream.idleTimeoutMs,
        })
      : await completeWhole(sdk, fields, messages, signal);
    // Read once, for both what the pace learns a rate from and whether a budget is used up
    // (a reply can say so before any 429 does: the runner slows down).
    completion.rate_limits = readRateLimits(headers);
    return held(completion);
  };
}

/** A client for an OpenAI-compatible endpoint. */
export function httpClient(opts: HttpClientOptions): ModelClient {
  // The SDK builds its headers with the global Headers class, which Node loads lazily (all
  // of undici) on first touch; touching it here keeps that cost out of the first requests.
  void globalThis.Headers;
  // From here on the key is cut out of whatever the endpoint sends back (io/secrets.ts).
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const stream = opts.stream ?? null;
  const sdkReady = makeSdk({ ...opts, passThrough: stream ? isEventStream : undefined });
  // A failed load (a broken install) is the first request's error, not an unhandled
  // rejection, and the client is as ready as it will be.
  const loaded = sdkReady.then(
    () => undefined,
    () => undefined,
  );
  const ready = (): Promise<void> => loaded;
  const fields = requestFields(opts.model, opts.sampling, opts.baseURL);
  const cache = opts.cache ?? null;
  const ask = sdkAsk(sdkReady, fields, stream, maxResponseBytes);
  if (cache === null) return { complete: ask, ready };
  // The body as sent, stream fields included: a streamed and a whole reply are different requests.
  const bodyOf = (messages: readonly ChatMessage[]): Record<string, unknown> => {
    const plain = { ...fields, messages };
    return stream ? (streamParams(plain) as unknown as Record<string, unknown>) : { ...plain, stream: false };
  };
  // Only an episode's first attempt is answered from the cache: a later one follows a failure
  // this run paid for, and its record keeps that attempt's usage.
  const lookUp = (body: Record<string, unknown>, context?: AttemptContext): Completion | null => {
    if ((context?.attempt ?? 1) !== 1) return null;
    const hit = cache.get(ReplyCache.keyOf(opts.baseURL, body, context?.rollout ?? 0), body);
    return hit ? held({ ...hit.completion, cached: hit.cached }) : null;
  };
  return {
    ready,
    cached: (messages, context) => lookUp(bodyOf(messages), context),
    // Always sends: the episode asks `cached` before its first attempt (src/engine/rollout.ts),
    // so looking up again here would hash the request and open its entry a second time.
    async complete(messages, signal, context) {
      const key = ReplyCache.keyOf(opts.baseURL, bodyOf(messages), context?.rollout ?? 0);
      const began = performance.now();
      const completion = await ask(messages, signal);
      cache.put(key, completion, Math.round(performance.now() - began));
      return completion;
    },
  };
}

/** The completion with its text counted against the memory budget until the runner has recorded it. */
function held(completion: Completion): Completion {
  const hold = replyBudget.hold(completion.text.length);
  completion.release = () => hold.release();
  return completion;
}
