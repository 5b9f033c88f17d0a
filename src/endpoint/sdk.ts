/**
 * The one place an openai SDK client is built, for eval's requests, `bas check` and `bas
 * models` alike: retries off (the runner's loop owns them), the SDK's timer agreeing with
 * ours, our bounded node:http fetch, and the key registered as a secret before any request,
 * so that whatever the endpoint echoes has it cut out (io/secrets.ts).
 *
 * The SDK (about 150 modules, a tenth of a second to load) is imported on first use, so a
 * run of a built-in model, a resume with nothing left and every bad-input refusal start
 * without it.
 */
import type OpenAI from 'openai';
import { registerSecret } from '../io/secrets.js';
import * as std from '../io/std.js';
import { DEFAULT_MAX_RESPONSE_BYTES, makeNodeFetch, type NodeFetchOptions } from './http-fetch.js';

/** Where to send requests, with what key, and the bounds on each. */
export interface SdkOptions {
  baseURL: string;
  apiKey: string;
  /** Per-attempt bound, in ms. */
  requestTimeoutMs: number;
  /** Largest response body read, in bytes; past it the attempt fails (default 32 MiB). */
  maxResponseBytes?: number;
  /** Responses handed over unread, for the caller to read as a stream (`--stream`). */
  passThrough?: NodeFetchOptions['passThrough'];
}

/**
 * An SDK client for these options. The key is a registered secret from the call on (before
 * the SDK is even loaded), so nothing the endpoint sends back can show it.
 */
export async function makeSdk(opts: SdkOptions): Promise<OpenAI> {
  registerSecret(opts.apiKey);
  const { default: OpenAI } = await import('openai');
  // The SDK would read these two from process.env itself; the run's environment is the CLI's
  // (src/io/std.ts), which differs when the CLI runs inside another program.
  const env = std.env();
  return new OpenAI({
    apiKey: opts.apiKey,
    baseURL: opts.baseURL,
    organization: env.OPENAI_ORG_ID ?? null,
    project: env.OPENAI_PROJECT_ID ?? null,
    maxRetries: 0,
    timeout: Math.max(1, Math.ceil(opts.requestTimeoutMs)),
    fetch: makeNodeFetch({
      maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      passThrough: opts.passThrough,
    }),
  });
}
