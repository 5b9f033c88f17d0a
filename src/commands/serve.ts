/**
 * `bas serve`: a local OpenAI-compatible endpoint backed by a built-in policy, for trying a
 * pipeline without a provider and for the end-to-end tests. Runs until SIGINT or SIGTERM.
 */
import { ConfigError } from '../errors/index.js';
import type { PolicyName } from '../task/policy-names.js';
import { COMMAND_FLAGS } from '../settings/command-flags.js';
import { readFlags } from '../settings/flag.js';
import { listenError, runUntilStopped } from '../serve/http-service.js';
import { startServer, type ServeOptions } from '../serve/serve.js';
import * as std from '../io/std.js';
import type { BatchFault } from '../settings/choices.js';

/** Checks the flags; every bad value names its flag and range. */
function serveOptions(given: Record<string, unknown>): ServeOptions {
  const f = readFlags(COMMAND_FLAGS.serve, given);
  const o: ServeOptions = {
    port: f.port,
    host: f.host!,
    policy: f.policy as PolicyName,
    latencyMs: f.latency,
    errorRate: f.errorRate,
    rateLimitRate: f.rateLimitRate,
    retryAfterS: f.retryAfter,
    hangRate: f.hangRate,
    malformedRate: f.malformedRate,
    rateLimitRps: f.rateLimit,
    wholeSecondRetryAfter: f.wholeSecondRetryAfter,
    cutRate: f.cutRate,
    stallRate: f.stallRate,
    maxRequestBytes: Math.round(f.maxRequestMb * 1024 * 1024),
    bodyBudgetBytes: Math.round(f.bodyBudgetMb * 1024 * 1024),
    maxConnections: f.maxConnections,
    seed: f.seed,
    reasoningTokens: f.reasoningTokens,
    maxCompletionTokens: f.maxCompletionTokens,
    apiKey: f.apiKey,
    models: f.models,
    batchFault: f.batchFault as BatchFault,
  };
  if (o.wholeSecondRetryAfter && !o.rateLimitRps)
    throw new ConfigError('--whole-second-retry-after shapes the 429s of --rate-limit; give --rate-limit RPS too');
  const sum = o.errorRate + o.rateLimitRate + o.hangRate + o.malformedRate + o.cutRate! + o.stallRate!;
  if (sum > 1 + 1e-9) {
    throw new ConfigError(
      `--error-rate, --rate-limit-rate, --hang-rate, --malformed-rate, --cut-rate and --stall-rate add up to ${sum}; together they must be at most 1`,
    );
  }
  return o;
}

/** Runs `bas serve` until a signal. */
export async function serve(flags: Record<string, unknown>): Promise<void> {
  const o = serveOptions(flags);
  const server = await startServer(o).catch((err: unknown) => {
    throw listenError(err, o.host, o.port);
  });
  const faults = [
    o.errorRate && `500s ${o.errorRate}`,
    o.rateLimitRate && `429s ${o.rateLimitRate}`,
    o.hangRate && `hangs ${o.hangRate}`,
    o.malformedRate && `malformed ${o.malformedRate}`,
    o.cutRate && `cut ${o.cutRate}`,
    o.stallRate && `stalled ${o.stallRate}`,
    o.rateLimitRps &&
      `at most ${o.rateLimitRps} requests/s${o.wholeSecondRetryAfter ? ' (whole-second Retry-After)' : ''}`,
  ].filter(Boolean);
  const thinks =
    (o.reasoningTokens ? `, reasons ${o.reasoningTokens} tokens before answering` : '') +
    (o.maxCompletionTokens ? `, writes at most ${o.maxCompletionTokens} completion tokens` : '');
  std
    .stdout()
    .write(
      `bas serve: listening on ${server.url} (policy ${o.policy}, latency ${o.latencyMs} ms${thinks}${faults.length ? `, faults: ${faults.join(', ')}` : ''}${o.apiKey ? ', key required' : ''}${o.batchFault !== 'none' ? `, batch fault: ${o.batchFault}` : ''})\n`,
    );
  await runUntilStopped(server);
  const s = server.stats;
  std
    .stderr()
    .write(
      `bas serve: ${s.requests} requests, ${s.ok} answered, ${s.errors} 500s, ${s.rateLimited} 429s, ${s.hung} hung, ${s.malformed} malformed, ${s.cut} cut, ${s.stalled} stalled, ${s.throttled} over the rate limit, ${s.unauthorized} refused, ${s.rejected} rejected (400/413/503), ${s.failed} failed (500); usage reported: ${s.promptTokens} prompt, ${s.completionTokens} completion (${s.reasoningTokens} reasoning) tokens\n`,
    );
}
